import Foundation
import GRDB
import LiveObjects
import ShopModels
import ShopPorts
import StorageRows

/// The outbox in SQLite: written by the order repository in the transaction of each change, read and recorded
/// by the delivery worker.
public final class SQLiteOutbox: MailOutbox {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    /// Writes the message `kind` of the order's event `eventSequence`, in the caller's transaction; an order with no
    /// email (placed before emails were kept) gets none.
    static func enqueue(_ kind: OutboxKind, of orderNumber: String, eventSequence: Int, at: Date, in db: Database) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT email, email_name FROM orders WHERE number = ?", arguments: [orderNumber]),
            let email = row["email"] as String?, !email.isEmpty
        else { return }
        let sequence = (try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM outbox") ?? 0) + 1
        let id = OutboxEntry.id(sequence: sequence)
        let install = try String.fetchOne(db, sql: "SELECT id FROM shop_install") ?? "shop"
        try db.execute(
            sql: """
                INSERT INTO outbox (id, sequence, order_number, kind, event_sequence, recipient, recipient_name, message_id, created_at, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id, sequence, orderNumber, kind.rawValue, eventSequence, email, row["email_name"] as String? ?? "",
                OutboxEntry.messageID(id: id, orderNumber: orderNumber, installID: install), at.timeIntervalSince1970, at.timeIntervalSince1970,
            ])
    }

    public func due(at now: Date, limit: Int) async throws -> [OutboxEntry] {
        try await database.read { db in
            try StoredOutboxRow.fetchAll(
                db, sql: "SELECT \(StoredOutboxRow.columns) FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY sequence LIMIT ?",
                arguments: [now.timeIntervalSince1970, limit]
            ).map(\.entry)
        }
    }

    public func backlog() async throws -> OutboxBacklog {
        try await database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM outbox WHERE state = 'pending'")
            let oldest: Double? = row?["oldest"]
            return OutboxBacklog(pending: row?["pending"] ?? 0, oldest: oldest.map(Date.init(timeIntervalSince1970:)))
        }
    }

    public func record(_ attempt: OutboxAttempt, for id: String, at: Date) async throws {
        try await database.pool.write { db in
            switch attempt {
            case .sent:
                try db.execute(
                    sql:
                        "UPDATE outbox SET state = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL WHERE id = ? AND state = 'pending'",
                    arguments: [at.timeIntervalSince1970, id])
            case .retry(let next, let error):
                try db.execute(
                    sql: "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ? AND state = 'pending'",
                    arguments: [next.timeIntervalSince1970, error, id])
            case .gaveUp(let error):
                try db.execute(
                    sql: "UPDATE outbox SET state = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ? AND state = 'pending'",
                    arguments: [error, id])
            }
        }
    }

    public func entries(limit: Int) async throws -> [OutboxEntry] {
        try await database.read { db in
            try StoredOutboxRow.fetchAll(db, sql: "SELECT \(StoredOutboxRow.columns) FROM outbox ORDER BY sequence DESC LIMIT ?", arguments: [limit])
                .map(\.entry)
        }
    }

    public func entries(orderNumber: String) async throws -> [OutboxEntry] {
        try await database.read { db in
            try StoredOutboxRow.fetchAll(
                db, sql: "SELECT \(StoredOutboxRow.columns) FROM outbox WHERE order_number = ? ORDER BY sequence", arguments: [orderNumber]
            ).map(\.entry)
        }
    }

    public func entry(id: String) async throws -> OutboxEntry? {
        try await database.read { db in
            try StoredOutboxRow.fetchOne(db, sql: "SELECT \(StoredOutboxRow.columns) FROM outbox WHERE id = ?", arguments: [id])?.entry
        }
    }
}

extension StoredOutboxRow: FetchableRecord {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
}

extension SQLiteOutbox: LiveObject {}
