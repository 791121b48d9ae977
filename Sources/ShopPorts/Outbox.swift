import Foundation
import ShopModels

/// Which message an order's change sends its shopper.
public enum OutboxKind: String, Hashable, Sendable, CaseIterable {
    case receipt, shipped, canceled, refunded

    /// The message an order event calls for, if any.
    public init?(_ change: OrderChange) {
        switch change {
        case .charged: self = .receipt
        case .shipped: self = .shipped
        case .canceled: self = .canceled
        case .refunded: self = .refunded
        case .placed, .declined, .voided, .unanswered, .delivered, .disputed, .disputeClosed: return nil
        }
    }
}

/// Where a message in the outbox stands.
public enum OutboxState: Hashable, Sendable {
    /// Not sent yet: due at `nextAttemptAt`.
    case pending
    case sent(at: Date)
    /// Given up on after the configured time; the merchant sees why.
    case failed
}

/// One message waiting in, or gone from, the outbox: written in the transaction of the order event it tells of,
/// so none is lost and none is written twice; composed from the order when it is sent.
public struct OutboxEntry: Hashable, Sendable {
    /// `MSG-000001`.
    public var id: String
    public var orderNumber: String
    public var kind: OutboxKind
    /// The position of the event it tells of in the order's history, from 1.
    public var eventSequence: Int
    public var recipient: MailAddress
    /// The `Message-ID` every attempt carries.
    public var messageID: String
    public var createdAt: Date
    public var state: OutboxState
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?

    public init(
        id: String, orderNumber: String, kind: OutboxKind, eventSequence: Int, recipient: MailAddress, messageID: String, createdAt: Date,
        state: OutboxState = .pending, attempts: Int = 0, nextAttemptAt: Date, lastError: String? = nil
    ) {
        self.id = id
        self.orderNumber = orderNumber
        self.kind = kind
        self.eventSequence = eventSequence
        self.recipient = recipient
        self.messageID = messageID
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
    }

    /// The outbox id of the `sequence`th message.
    public static func id(sequence: Int) -> String { "MSG-" + String(1_000_000 + sequence).dropFirst() }

    /// A Message-ID no other message of any shop shares: the outbox id, the order, and this shop's install id.
    public static func messageID(id: String, orderNumber: String, installID: String) -> String {
        "<\(id).\(orderNumber).\(installID)@storefront.invalid>"
    }
}

/// What one attempt to send a message came to.
public enum OutboxAttempt: Hashable, Sendable {
    case sent
    /// Not sent; tried again at `next`.
    case retry(next: Date, error: String)
    /// Not sent, and given up on.
    case gaveUp(error: String)
}

/// The outbox's reading and recording side: what the delivery worker and the merchant's commands use. Messages
/// are written by the order repositories, in the transaction of the order's change.
public protocol MailOutbox: Sendable {
    /// Pending messages due at `now`, oldest first.
    func due(at now: Date, limit: Int) async throws -> [OutboxEntry]
    /// Records an attempt on message `id` at `at`.
    func record(_ attempt: OutboxAttempt, for id: String, at: Date) async throws
    /// Every message, newest first.
    func entries(limit: Int) async throws -> [OutboxEntry]
    /// The messages of one order, oldest first.
    func entries(orderNumber: String) async throws -> [OutboxEntry]
    /// Message `id` (`MSG-000001`), or nil.
    func entry(id: String) async throws -> OutboxEntry?
    /// How many messages are pending, and when the oldest of them was written: what the operator's metrics show.
    func backlog() async throws -> OutboxBacklog
}

/// The outbox's pending messages, counted.
public struct OutboxBacklog: Equatable, Sendable {
    public var pending: Int
    /// When the oldest pending message was written; nil when none is pending.
    public var oldest: Date?

    public init(pending: Int, oldest: Date?) {
        self.pending = pending
        self.oldest = oldest
    }
}
