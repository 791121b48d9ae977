import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// The outbox: written by the order repository in the transaction of each change that sends a message, read and
/// recorded by the delivery workers of every host.
public final class SQLOutbox: MailOutbox {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    /// Writes the message `kind` of the order's event `eventSequence`, in the caller's transaction; an order with no
    /// email (placed before emails were kept) gets none.
    public static func enqueue(_ kind: OutboxKind, of orderNumber: String, eventSequence: Int, at: Date, on connection: any SQLConnection) throws {
        guard let row = try connection.row("SELECT email, email_name FROM orders WHERE number = \(orderNumber)"),
            let email: String = try row["email"], !email.isEmpty
        else { return }
        let sequence = try connection.nextSequence(of: "outbox", sequence: "outbox_sequence")
        let id = OutboxEntry.id(sequence: sequence)
        let install: String = try connection.value("SELECT id FROM shop_install") ?? "shop"
        try connection.execute(
            """
            INSERT INTO outbox (id, sequence, order_number, kind, event_sequence, recipient, recipient_name, message_id, created_at, next_attempt_at)
            VALUES (\(id), \(sequence), \(orderNumber), \(kind.rawValue), \(eventSequence), \(email), \(try row["email_name"] as String? ?? ""),
                \(OutboxEntry.messageID(id: id, orderNumber: orderNumber, installID: install)), \(at), \(at))
            """)
    }

    public func due(at now: Date, limit: Int) async throws -> [OutboxEntry] {
        try await entries("WHERE state = 'pending' AND next_attempt_at <= \(now) ORDER BY sequence LIMIT \(limit)")
    }

    public func backlog() async throws -> OutboxBacklog {
        try await database.run(.read) { connection in
            let row = try connection.row("SELECT count(*) AS pending, min(created_at) AS oldest FROM outbox WHERE state = 'pending'")
            return OutboxBacklog(pending: try row?["pending"] ?? 0, oldest: try row?["oldest"])
        }
    }

    public func record(_ attempt: OutboxAttempt, for id: String, at: Date) async throws {
        let change: SQLStatement =
            switch attempt {
            case .sent: "state = 'sent', sent_at = \(at), last_error = NULL"
            case .retry(let next, let error): "next_attempt_at = \(next), last_error = \(error)"
            case .gaveUp(let error): "state = 'failed', last_error = \(error)"
            }
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("UPDATE outbox SET attempts = attempts + 1, \(change) WHERE id = \(id) AND state = 'pending'")
        }
    }

    public func entries(limit: Int) async throws -> [OutboxEntry] {
        try await entries("ORDER BY sequence DESC LIMIT \(limit)")
    }

    public func entries(orderNumber: String) async throws -> [OutboxEntry] {
        try await entries("WHERE order_number = \(orderNumber) ORDER BY sequence")
    }

    public func entry(id: String) async throws -> OutboxEntry? {
        try await entries("WHERE id = \(id)").first
    }

    /// The entries `filter` (a WHERE, ORDER BY or LIMIT clause) selects.
    private func entries(_ filter: SQLStatement) async throws -> [OutboxEntry] {
        try await database.run(.read) { connection in
            try connection.decode(StoredOutboxRow.self, "SELECT \(raw: StoredOutboxRow.columns) FROM outbox \(filter)").map(\.entry)
        }
    }
}

extension SQLOutbox: LiveObject {}
