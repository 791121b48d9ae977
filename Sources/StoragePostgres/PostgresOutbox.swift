import Foundation
import LiveObjects
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// The outbox in PostgreSQL: written by the order repository with each event that sends a message
/// (`PostgresOrderRepository.record`), read and recorded by the delivery workers of every host.
public final class PostgresOutbox: MailOutbox {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func due(at now: Date, limit: Int) async throws -> [OutboxEntry] {
        try await entries(
            "SELECT \(unescaped: StoredOutboxRow.columns) FROM outbox WHERE state = 'pending' AND next_attempt_at <= \(now.timeIntervalSince1970) ORDER BY sequence LIMIT \(limit)"
        )
    }

    public func record(_ attempt: OutboxAttempt, for id: String, at: Date) async throws {
        let instant = at.timeIntervalSince1970
        _ = try await database.write { connection in
            switch attempt {
            case .sent:
                try await connection.query(
                    "UPDATE outbox SET state = 'sent', attempts = attempts + 1, sent_at = \(instant), last_error = NULL WHERE id = \(id) AND state = 'pending'",
                    logger: PostgresDatabase.quiet)
            case .retry(let next, let error):
                try await connection.query(
                    "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = \(next.timeIntervalSince1970), last_error = \(error) WHERE id = \(id) AND state = 'pending'",
                    logger: PostgresDatabase.quiet)
            case .gaveUp(let error):
                try await connection.query(
                    "UPDATE outbox SET state = 'failed', attempts = attempts + 1, last_error = \(error) WHERE id = \(id) AND state = 'pending'",
                    logger: PostgresDatabase.quiet)
            }
        }
    }

    public func entries(limit: Int) async throws -> [OutboxEntry] {
        try await entries("SELECT \(unescaped: StoredOutboxRow.columns) FROM outbox ORDER BY sequence DESC LIMIT \(limit)")
    }

    public func entries(orderNumber: String) async throws -> [OutboxEntry] {
        try await entries("SELECT \(unescaped: StoredOutboxRow.columns) FROM outbox WHERE order_number = \(orderNumber) ORDER BY sequence")
    }

    public func entry(id: String) async throws -> OutboxEntry? {
        try await entries("SELECT \(unescaped: StoredOutboxRow.columns) FROM outbox WHERE id = \(id)").first
    }

    public func backlog() async throws -> OutboxBacklog {
        try await database.read { connection in
            let rows = try await connection.query(
                "SELECT COUNT(*)::BIGINT, MIN(created_at) FROM outbox WHERE state = 'pending'", logger: PostgresDatabase.quiet)
            for try await (pending, oldest) in rows.decode((Int64, Double?).self) {
                return OutboxBacklog(pending: Int(pending), oldest: oldest.map(Date.init(timeIntervalSince1970:)))
            }
            return OutboxBacklog(pending: 0, oldest: nil)
        }
    }

    /// The rows `query` selects, its columns `StoredOutboxRow.columns`.
    private func entries(_ query: PostgresQuery) async throws -> [OutboxEntry] {
        try await database.read { connection in
            var entries: [OutboxEntry] = []
            let rows = try await connection.query(query, logger: PostgresDatabase.quiet)
            for try await row in rows.decode(
                (String, String, String, Int, String, String, String, Double, String, Int, Double, String?, Double?).self)
            {
                entries.append(
                    StoredOutboxRow(
                        id: row.0, orderNumber: row.1, kind: row.2, eventSequence: row.3, recipient: row.4, recipientName: row.5, messageId: row.6,
                        createdAt: row.7, state: row.8, attempts: row.9, nextAttemptAt: row.10, lastError: row.11, sentAt: row.12
                    ).entry)
            }
            return entries
        }
    }
}

extension PostgresOutbox: LiveObject {}
