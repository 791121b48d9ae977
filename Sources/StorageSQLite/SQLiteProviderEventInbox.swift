import Foundation
import GRDB
import ShopPorts

/// The provider's verified events waiting to be applied, in SQLite's `provider_event_inbox`.
extension SQLiteProviderEvents: ProviderEventInbox {
    static let inboxColumns = "provider, id, type, payload, received_at, attempts, last_error, state"

    public func keep(_ event: WaitingProviderEvent) async throws -> Bool {
        try await database.pool.write { db in
            // A redelivery of an event given up on waits again, its tries counted anew.
            try db.execute(
                sql: """
                    INSERT INTO provider_event_inbox (provider, id, type, payload, received_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (provider, id) DO UPDATE SET state = 'waiting', attempts = 0, last_error = NULL, received_at = excluded.received_at,
                        payload = excluded.payload, next_attempt_at = excluded.next_attempt_at
                    WHERE provider_event_inbox.state = 'given-up'
                    """,
                arguments: [
                    event.provider, event.header.id, event.header.type, Data(event.payload), event.receivedAt.timeIntervalSince1970,
                    event.receivedAt.timeIntervalSince1970,
                ])
            return db.changesCount > 0
        }
    }

    public func claimDue(at now: Date, hold: Duration, limit: Int) async throws -> [WaitingProviderEvent] {
        try await database.pool.write { db in
            let due = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.inboxColumns) FROM provider_event_inbox WHERE state = 'waiting' AND next_attempt_at <= ?
                    ORDER BY received_at, id LIMIT ?
                    """, arguments: [now.timeIntervalSince1970, max(0, limit)]
            ).map(Self.event)
            let until = now.addingTimeInterval(Double(hold.components.seconds)).timeIntervalSince1970
            for event in due {
                try db.execute(
                    sql: "UPDATE provider_event_inbox SET next_attempt_at = ? WHERE provider = ? AND id = ?",
                    arguments: [until, event.provider, event.header.id])
            }
            return due
        }
    }

    public func logged(_ id: String, provider: String) async throws {
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM provider_event_inbox WHERE provider = ? AND id = ?", arguments: [provider, id])
        }
    }

    public func setBack(_ id: String, provider: String, _ setback: ProviderEventSetback) async throws {
        try await database.pool.write { db in
            switch setback {
            case .retry(let next, let error):
                try db.execute(
                    sql: """
                        UPDATE provider_event_inbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE provider = ? AND id = ? AND state = 'waiting'
                        """, arguments: [next.timeIntervalSince1970, error, provider, id])
            case .gaveUp(let error):
                try db.execute(
                    sql: """
                        UPDATE provider_event_inbox SET attempts = attempts + 1, state = 'given-up', last_error = ? WHERE provider = ? AND id = ? AND state = 'waiting'
                        """, arguments: [error, provider, id])
            }
        }
    }

    public func waiting(limit: Int) async throws -> [WaitingProviderEvent] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.inboxColumns) FROM provider_event_inbox ORDER BY received_at, id LIMIT ?", arguments: [max(0, limit)]
            ).map(Self.event)
        }
    }

    private static func event(_ row: Row) -> WaitingProviderEvent {
        WaitingProviderEvent(
            provider: row["provider"], header: ProviderEventHeader(id: row["id"], type: row["type"]),
            payload: [UInt8]((row["payload"] as Data?) ?? Data()),
            receivedAt: Date(timeIntervalSince1970: row["received_at"]), attempts: row["attempts"], lastError: row["last_error"],
            givenUp: (row["state"] as String) == "given-up"
        )
    }
}
