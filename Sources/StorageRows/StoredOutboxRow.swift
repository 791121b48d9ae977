import Foundation
import ShopModels
import ShopPorts

/// An `outbox` row as both databases keep it, decoded by the columns' names in camel case.
public struct StoredOutboxRow: Decodable, Sendable {
    public var id: String
    public var orderNumber: String
    public var kind: String
    public var eventSequence: Int
    public var recipient: String
    public var recipientName: String
    public var messageId: String
    public var createdAt: Double
    public var state: String
    public var attempts: Int
    public var nextAttemptAt: Double
    public var lastError: String?
    public var sentAt: Double?

    /// The columns every read selects.
    public static let columns =
        "id, order_number, kind, event_sequence, recipient, recipient_name, message_id, created_at, state, attempts, next_attempt_at, last_error, sent_at"

    public var entry: OutboxEntry {
        OutboxEntry(
            id: id, orderNumber: orderNumber, kind: OutboxKind(rawValue: kind) ?? .receipt, eventSequence: eventSequence,
            recipient: MailAddress(name: recipientName, address: recipient), messageID: messageId,
            createdAt: Date(timeIntervalSince1970: createdAt),
            state: state == "sent" ? .sent(at: Date(timeIntervalSince1970: sentAt ?? createdAt)) : state == "failed" ? .failed : .pending,
            attempts: attempts, nextAttemptAt: Date(timeIntervalSince1970: nextAttemptAt), lastError: lastError
        )
    }
}
