import Foundation
import PostgresNIO
import ShopPorts

/// The provider's verified events waiting to be applied, in PostgreSQL's `provider_event_inbox`: the workers of every
/// host claim from it, and a claimed event is held from the others while one applies it.
extension PostgresProviderEvents: ProviderEventInbox {
    public func keep(_ event: WaitingProviderEvent) async throws -> Bool {
        let received = event.receivedAt.timeIntervalSince1970
        return try await database.writeInOneStatement { connection in
            // A redelivery of an event given up on waits again, its tries counted anew.
            try await !connection.query(
                """
                INSERT INTO provider_event_inbox (provider, id, type, payload, received_at, next_attempt_at)
                VALUES (\(event.provider), \(event.header.id), \(event.header.type), \(ByteBuffer(bytes: event.payload)), \(received), \(received))
                ON CONFLICT (provider, id) DO UPDATE SET state = 'waiting', attempts = 0, last_error = NULL, received_at = excluded.received_at,
                    payload = excluded.payload, next_attempt_at = excluded.next_attempt_at
                WHERE provider_event_inbox.state = 'given-up'
                RETURNING true
                """, logger: PostgresDatabase.quiet
            ).collect().isEmpty
        }
    }

    public func claimDue(at now: Date, hold: Duration, limit: Int) async throws -> [WaitingProviderEvent] {
        let until = now.addingTimeInterval(Double(hold.components.seconds)).timeIntervalSince1970
        return try await database.writeInOneStatement { connection in
            // Rows another host is claiming are skipped, not waited for; the outer ORDER BY keeps the oldest first.
            try await Self.events(
                connection.query(
                    """
                    WITH due AS (
                        SELECT provider, id FROM provider_event_inbox WHERE state = 'waiting' AND next_attempt_at <= \(now.timeIntervalSince1970)
                        ORDER BY received_at, id LIMIT \(max(0, limit)) FOR UPDATE SKIP LOCKED
                    ), claimed AS (
                        UPDATE provider_event_inbox AS inbox SET next_attempt_at = \(until) FROM due
                        WHERE inbox.provider = due.provider AND inbox.id = due.id
                        RETURNING inbox.provider, inbox.id, inbox.type, inbox.payload, inbox.received_at, inbox.attempts, inbox.last_error, inbox.state
                    )
                    SELECT * FROM claimed ORDER BY received_at, id
                    """, logger: PostgresDatabase.quiet))
        }
    }

    public func logged(_ id: String, provider: String) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query("DELETE FROM provider_event_inbox WHERE provider = \(provider) AND id = \(id)", logger: PostgresDatabase.quiet)
        }
    }

    public func setBack(_ id: String, provider: String, _ setback: ProviderEventSetback) async throws {
        _ = try await database.writeInOneStatement { connection in
            switch setback {
            case .retry(let next, let error):
                try await connection.query(
                    """
                    UPDATE provider_event_inbox SET attempts = attempts + 1, next_attempt_at = \(next.timeIntervalSince1970), last_error = \(error)
                    WHERE provider = \(provider) AND id = \(id) AND state = 'waiting'
                    """, logger: PostgresDatabase.quiet)
            case .gaveUp(let error):
                try await connection.query(
                    """
                    UPDATE provider_event_inbox SET attempts = attempts + 1, state = 'given-up', last_error = \(error)
                    WHERE provider = \(provider) AND id = \(id) AND state = 'waiting'
                    """, logger: PostgresDatabase.quiet)
            }
        }
    }

    public func waiting(limit: Int) async throws -> [WaitingProviderEvent] {
        try await database.read { connection in
            try await Self.events(
                connection.query(
                    """
                    SELECT provider, id, type, payload, received_at, attempts, last_error, state FROM provider_event_inbox
                    ORDER BY received_at, id LIMIT \(max(0, limit))
                    """, logger: PostgresDatabase.quiet))
        }
    }

    private static func events(_ rows: PostgresRowSequence) async throws -> [WaitingProviderEvent] {
        var events: [WaitingProviderEvent] = []
        for try await (provider, id, type, payload, received, attempts, error, state) in rows.decode(
            (String, String, String, ByteBuffer, Double, Int, String?, String).self)
        {
            events.append(
                WaitingProviderEvent(
                    provider: provider, header: ProviderEventHeader(id: id, type: type), payload: Array(payload.readableBytesView),
                    receivedAt: Date(timeIntervalSince1970: received), attempts: attempts, lastError: error, givenUp: state == "given-up"
                ))
        }
        return events
    }
}
