import Foundation
import ShopModels

/// An event a payment provider sent, once its signature was checked: its id and its type.
public struct ProviderEventHeader: Hashable, Sendable {
    public var id: String
    public var type: String

    public init(id: String, type: String) {
        self.id = id
        self.type = type
    }
}

/// Why a provider's event was refused; nothing was changed.
public enum WebhookRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// No signature, or none made with a secret the shop holds.
    case badSignature(String)
    /// Signed longer ago than the tolerance allows (or too far ahead): a replay, or a clock far off.
    case stale(signedAt: Date, now: Date)
    /// Signed, but not an event the shop can read.
    case malformed(String)

    public var description: String {
        switch self {
        case .badSignature(let why): "bad signature: \(why)"
        case .stale(let signedAt, let now):
            "stale signature: signed at \(UTCTime(signedAt).iso8601), \(Int(min(abs(now.timeIntervalSince(signedAt)), 1e15))) s from now"
        case .malformed(let why): "not a readable event: \(why)"
        }
    }
}

/// A refund as the provider lists it for a payment.
public struct ProviderRefund: Hashable, Sendable {
    /// The provider's id (`re_…`).
    public var reference: String
    public var amount: Money
    /// The shop's id (`RF-000001`) where the shop asked for it; nil for one made elsewhere (the provider's dashboard).
    public var shopRefundID: String?
    /// Whether the money went back; a refund still pending or failed at the provider is not.
    public var succeeded: Bool
    /// Why the provider gave up on it (failed or canceled), nil while it is pending or once it succeeded.
    public var failure: String?

    public init(reference: String, amount: Money, shopRefundID: String?, succeeded: Bool, failure: String? = nil) {
        self.reference = reference
        self.amount = amount
        self.shopRefundID = shopRefundID
        self.succeeded = succeeded
        self.failure = failure
    }
}

/// What an event means for one of the shop's orders, read from the provider's own records when it arrives.
public enum ProviderNotice: Hashable, Sendable {
    /// The order's charge ended at the provider (succeeded or failed): the order is settled from its records.
    case chargeEnded(orderNumber: String)
    /// Every refund of the order's payment, as the provider lists them now.
    case refunds(orderNumber: String, [ProviderRefund])
    /// A shopper finished the provider's card page: `card` belongs in `customer`'s wallet, whether or not the
    /// session that opened the page is still there to see it.
    case cardSaved(customer: String, card: PaymentMethod)
    /// The shopper's bank disputes the order's payment.
    case disputed(orderNumber: String, amount: Money, reason: String, reference: String)
    /// The dispute `reference` of the order ended, as the provider words its outcome (`won`, `lost`…); its amount and
    /// reason, so an end heard before the dispute's start records both.
    case disputeClosed(orderNumber: String, amount: Money, reason: String, reference: String, outcome: String)
    /// Nothing for the shop to do, and why (a type it does not act on, a payment of another shop).
    case ignored(String)
}

/// A payment provider's webhook: checks what it sends and reads what it means.
///
/// Order of calls: `verify` (no I/O; a refusal changes nothing) → `notice` (reads the provider's records).
public protocol ProviderWebhook: Sendable {
    /// The provider's name, as the event log keeps it (`stripe`).
    var provider: String { get }
    /// The event's header, when `signature` signs `payload` with one of the shop's secrets recently enough at `now`.
    func verify(payload: [UInt8], signature: String?, now: Date) throws(WebhookRefusal) -> ProviderEventHeader
    /// What the verified event means for the shop's orders. Throws when the provider's records cannot be read, so the
    /// provider sends the event again later.
    func notice(for payload: [UInt8]) async throws -> ProviderNotice
}

/// The provider events the shop acted on: a redelivered event is acknowledged and not applied again.
public protocol ProviderEventLog: Sendable {
    /// Whether event `id` of `provider` was handled already.
    func handledEvent(_ id: String, provider: String) async throws -> Bool
    /// Records event `id` as handled, with what was done; a second record of the same id is ignored.
    func recordEvent(_ header: ProviderEventHeader, provider: String, orderNumber: String?, outcome: String, at: Date) async throws
}

/// A verified provider event waiting to be applied: the shop answers the provider once the event is kept here, and
/// applies it afterwards, again and again until it is applied or given up.
public struct WaitingProviderEvent: Hashable, Sendable {
    public var provider: String
    public var header: ProviderEventHeader
    /// The body exactly as the provider signed it.
    public var payload: [UInt8]
    public var receivedAt: Date
    /// Tries that failed so far.
    public var attempts: Int
    public var lastError: String?
    /// Given up on: no more tries until the provider delivers it again.
    public var givenUp: Bool

    public init(
        provider: String, header: ProviderEventHeader, payload: [UInt8], receivedAt: Date, attempts: Int = 0, lastError: String? = nil,
        givenUp: Bool = false
    ) {
        self.givenUp = givenUp
        self.provider = provider
        self.header = header
        self.payload = payload
        self.receivedAt = receivedAt
        self.attempts = attempts
        self.lastError = lastError
    }
}

/// How a try at a waiting event ended, when it was not applied.
public enum ProviderEventSetback: Hashable, Sendable {
    /// Tried again at `next`.
    case retry(next: Date, error: String)
    /// No more tries: kept as failed until the provider delivers the event again.
    case gaveUp(error: String)
}

/// The provider's verified events waiting to be applied, shared by every process of the shop.
///
/// Order of calls: `keep` (at delivery) → `claimDue` (by a worker) → `logged` (applied: the log holds it now) or
/// `setBack`.
public protocol ProviderEventInbox: Sendable {
    /// Keeps `event` to apply, due at once; false when it waits already. A redelivery of an event given up on makes
    /// it wait again, with its tries counted from zero.
    func keep(_ event: WaitingProviderEvent) async throws -> Bool
    /// At most `limit` events due at `now`, oldest first, each held from other workers until `now + hold`.
    func claimDue(at now: Date, hold: Duration, limit: Int) async throws -> [WaitingProviderEvent]
    /// Drops event `id` once the log holds it.
    func logged(_ id: String, provider: String) async throws
    /// Records a try at event `id` that did not apply it.
    func setBack(_ id: String, provider: String, _ setback: ProviderEventSetback) async throws
    /// Every event that waits or was given up on, oldest first.
    func waiting(limit: Int) async throws -> [WaitingProviderEvent]
}

/// The provider's events: the ones waiting and the ones handled.
public typealias ProviderEvents = ProviderEventLog & ProviderEventInbox
