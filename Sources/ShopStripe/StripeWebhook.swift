import Foundation
import ShopModels
import ShopPorts

/// Stripe's webhook events, checked and read: what each means for one of the shop's orders is read from Stripe
/// itself when the event arrives (the event says which object changed; its current state is asked for), so events
/// arriving out of order or late act on what is true now.
///
/// An object belongs to this shop when its PaymentIntent names an order in its metadata and the shop filed that
/// PaymentIntent on that order: two shops on one Stripe account, or payments made outside the shop, are ignored.
public struct StripeWebhook: ProviderWebhook {
    public let provider = "stripe"
    private let signature: StripeWebhookSignature
    private let client: StripeClient
    private let references: any ProviderReferenceRepository

    public init(
        secrets: [String], tolerance: Duration = StripeWebhookSignature.defaultTolerance, client: StripeClient,
        references: any ProviderReferenceRepository
    ) {
        signature = StripeWebhookSignature(secrets: secrets, tolerance: tolerance)
        self.client = client
        self.references = references
    }

    public func verify(payload: [UInt8], signature header: String?, now: Date) throws(WebhookRefusal) -> ProviderEventHeader {
        try signature.check(payload, header: header, now: now)
        let event = try Self.event(payload)
        return ProviderEventHeader(id: event.id, type: event.type)
    }

    public func notice(for payload: [UInt8]) async throws -> ProviderNotice {
        do {
            return try await read(Self.event(payload))
        } catch StripeFailure.refused(404, _) {
            // Not on this account (or deleted): asking again will not find it either.
            return .ignored("Stripe has no such object on this account")
        }
    }

    private func read(_ event: StripeEvent) async throws -> ProviderNotice {
        let object = event.data.object
        switch event.type {
        case "payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled":
            guard let id = object.id else { throw WebhookRefusal.malformed("a PaymentIntent event without the PaymentIntent's id") }
            let intent: StripePaymentIntent = try await client.get("/v1/payment_intents/\(id)")
            return try await order(of: intent).map { .chargeEnded(orderNumber: $0) } ?? Self.notOurs(id)
        case "charge.refunded", "charge.refund.updated":
            guard let id = object.paymentIntent else { return .ignored("a charge with no PaymentIntent") }
            let intent: StripePaymentIntent = try await client.get("/v1/payment_intents/\(id)")
            guard let number = try await order(of: intent) else { return Self.notOurs(id) }
            let list: StripeRefundList = try await client.get("/v1/refunds?payment_intent=\(id)&limit=100")
            return .refunds(
                orderNumber: number,
                list.data.map { refund in
                    ProviderRefund(
                        reference: refund.id, amount: Self.money(refund.amount, intent.currency), shopRefundID: refund.metadata?["refund_id"],
                        succeeded: refund.status == "succeeded" || refund.status == nil,
                        failure: refund.status == "failed" || refund.status == "canceled"
                            ? "\(refund.status ?? "failed"): \(refund.failureReason ?? "no reason given")" : nil
                    )
                })
        case "checkout.session.completed":
            // The card page finished, perhaps after the SSH session that opened it was gone: its card is read from
            // Stripe's records (the SetupIntent's PaymentMethod), never from the event alone.
            guard object.mode == "setup", let setupID = object.setupIntent, let customer = object.metadata?["storefront_customer"] else {
                return .ignored("a Checkout Session that is not the shop's card page")
            }
            let setup: StripeSetupIntent = try await client.get("/v1/setup_intents/\(setupID)")
            guard setup.status == "succeeded", let methodID = setup.paymentMethod else { return .ignored("SetupIntent \(setupID) has no card yet") }
            // The metadata names a customer; only the Stripe Customer this shop filed for that customer proves it is
            // theirs (another shop on the account, or anyone making sessions on it, may use the same name).
            let filed = try await references.customerReference(for: customer, account: client.account)
            guard let filed, setup.customer == filed else {
                return .ignored("Checkout Session \(object.id ?? "") saved a card for a Stripe Customer this shop did not file for \(customer)")
            }
            let method: StripePaymentMethod = try await client.get("/v1/payment_methods/\(methodID)")
            return .cardSaved(customer: customer, card: StripePaymentProvider.paymentMethod(method, fallback: nil))
        case "charge.dispute.closed":
            // The signed event carries the whole dispute as it closed: its status is the outcome, and its amount and
            // reason record the dispute too when this end arrives before its start (Stripe does not keep the order).
            guard let disputeID = object.id, let status = object.status, let amount = object.amount else {
                throw WebhookRefusal.malformed("a dispute event without the dispute's id, status or amount")
            }
            return try await disputedOrder(object) { number, intent in
                .disputeClosed(
                    orderNumber: number, amount: Self.money(amount, object.currency ?? intent.currency), reason: Self.words(object.reason),
                    reference: disputeID, outcome: status)
            }
        case "charge.dispute.created":
            guard let disputeID = object.id, let amount = object.amount else {
                throw WebhookRefusal.malformed("a dispute event without the dispute's id or amount")
            }
            return try await disputedOrder(object) { number, intent in
                .disputed(
                    orderNumber: number, amount: Self.money(amount, object.currency ?? intent.currency), reason: Self.words(object.reason),
                    reference: disputeID)
            }
        default:
            return .ignored("Stripe events of type \(event.type) are not acted on")
        }
    }

    /// The notice `make` gives for the order a dispute's charge paid, read from Stripe (the dispute names its charge,
    /// and sometimes its PaymentIntent); ignored when the charge is not one of this shop's orders.
    private func disputedOrder(
        _ dispute: StripeEventObject, _ make: (_ orderNumber: String, _ intent: StripePaymentIntent) -> ProviderNotice
    ) async throws -> ProviderNotice {
        var intentID = dispute.paymentIntent
        if intentID == nil, let charge = dispute.charge {
            let read: StripeEventObject = try await client.get("/v1/charges/\(charge)")
            intentID = read.paymentIntent
        }
        guard let intentID else { return .ignored("a dispute of a charge with no PaymentIntent") }
        let intent: StripePaymentIntent = try await client.get("/v1/payment_intents/\(intentID)")
        guard let number = try await order(of: intent) else { return Self.notOurs(intentID) }
        return make(number, intent)
    }

    /// The order `intent` was made for, when this shop filed it on that order.
    private func order(of intent: StripePaymentIntent) async throws -> String? {
        guard let number = intent.metadata?["order_number"], let key = intent.metadata?["idempotency_key"] else { return nil }
        return try await references.paymentReference(forOrderKey: key) == intent.id ? number : nil
    }

    private static func notOurs(_ intent: String) -> ProviderNotice {
        .ignored("PaymentIntent \(intent) is not one this shop filed on an order")
    }

    private static func money(_ units: Int64, _ currency: String) -> Money {
        StripeAmounts.money(units: units, currencyCode: currency) ?? Money(minorUnits: units, currency: .usd)
    }

    /// A dispute's reason code in words (`product_not_received` → "product not received").
    private static func words(_ reason: String?) -> String {
        (reason ?? "").replacingOccurrences(of: "_", with: " ")
    }

    private static func event(_ payload: [UInt8]) throws(WebhookRefusal) -> StripeEvent {
        do {
            return try JSONDecoder().decode(StripeEvent.self, from: Data(payload))
        } catch {
            throw .malformed("not a Stripe event (\(error))")
        }
    }
}

/// An event as Stripe sends it: the parts the shop reads.
struct StripeEvent: Decodable, Sendable {
    struct Payload: Decodable, Sendable { var object: StripeEventObject }
    var id: String
    var type: String
    var data: Payload
}

/// The object an event is about, whichever kind it is: the fields the shop reads of PaymentIntents, charges and
/// disputes.
struct StripeEventObject: Decodable, Sendable {
    var id: String?
    var paymentIntent: String?
    var charge: String?
    var amount: Int64?
    var currency: String?
    var reason: String?
    /// A dispute's: `won`, `lost`, `warning_closed`, or one of the open ones.
    var status: String?
    /// A Checkout Session's: `setup` for the card page, its SetupIntent, and the shop's customer in its metadata.
    var mode: String?
    var setupIntent: String?
    var metadata: [String: String]?

    enum CodingKeys: String, CodingKey {
        case id, charge, amount, currency, reason, status, mode, metadata
        case setupIntent = "setup_intent"
        case paymentIntent = "payment_intent"
    }
}
