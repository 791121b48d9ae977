import Foundation
import ShopPorts

/// The provider's verified events waiting to be applied, in `provider_event_inbox`: the workers of every host claim
/// from it, and a claimed event is held from the others while one applies it.
extension SQLProviderEvents: ProviderEventInbox {
    public func keep(_ event: WaitingProviderEvent) async throws -> Bool {
        try await database.run(.writeOneStatement) { connection in
            // A redelivery of an event given up on waits again, its tries counted anew.
            try connection.execute(
                """
                INSERT INTO provider_event_inbox (provider, id, type, payload, received_at, next_attempt_at)
                VALUES (\(event.provider), \(event.header.id), \(event.header.type), \(Data(event.payload)), \(event.receivedAt), \(event.receivedAt))
                ON CONFLICT (provider, id) DO UPDATE SET state = 'waiting', attempts = 0, last_error = NULL, received_at = excluded.received_at,
                    payload = excluded.payload, next_attempt_at = excluded.next_attempt_at
                WHERE provider_event_inbox.state = 'given-up'
                """) > 0
        }
    }

    /// The claimed events, oldest first. On PostgreSQL, rows another host is claiming are skipped, not waited for.
    public func claimDue(at now: Date, hold: Duration, limit: Int) async throws -> [WaitingProviderEvent] {
        let until = now.addingTimeInterval(Double(hold.components.seconds))
        let due: SQLStatement = """
            SELECT provider, id FROM provider_event_inbox WHERE state = 'waiting' AND next_attempt_at <= \(now)
            ORDER BY received_at, id LIMIT \(max(0, limit))
            """
        let claimed = try await database.run(.writeOneStatement) { connection in
            switch connection.dialect {
            case .sqlite:
                try connection.rows(
                    """
                    UPDATE provider_event_inbox SET next_attempt_at = \(until) WHERE (provider, id) IN (\(due))
                    RETURNING \(raw: Self.inboxColumns)
                    """
                ).map(Self.event)
            case .postgres:
                try connection.rows(
                    """
                    WITH due AS (\(due) FOR UPDATE SKIP LOCKED)
                    UPDATE provider_event_inbox AS inbox SET next_attempt_at = \(until) FROM due
                    WHERE inbox.provider = due.provider AND inbox.id = due.id
                    RETURNING \(raw: Self.inboxColumns.split(separator: ", ").map { "inbox.\($0)" }.joined(separator: ", "))
                    """
                ).map(Self.event)
            }
        }
        // RETURNING answers in no set order.
        return claimed.sorted { ($0.receivedAt, $0.header.id) < ($1.receivedAt, $1.header.id) }
    }

    public func logged(_ id: String, provider: String) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("DELETE FROM provider_event_inbox WHERE provider = \(provider) AND id = \(id)")
        }
    }

    public func setBack(_ id: String, provider: String, _ setback: ProviderEventSetback) async throws {
        let (next, state, error): (Date?, String, String) =
            switch setback {
            case .retry(let next, let error): (next, "waiting", error)
            case .gaveUp(let error): (nil, "given-up", error)
            }
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                """
                UPDATE provider_event_inbox SET attempts = attempts + 1, next_attempt_at = coalesce(\(next), next_attempt_at), state = \(state),
                    last_error = \(error)
                WHERE provider = \(provider) AND id = \(id) AND state = 'waiting'
                """)
        }
    }

    public func waiting(limit: Int) async throws -> [WaitingProviderEvent] {
        try await database.run(.read) { connection in
            try connection.rows("SELECT \(raw: Self.inboxColumns) FROM provider_event_inbox ORDER BY received_at, id LIMIT \(max(0, limit))")
                .map(Self.event)
        }
    }

    static let inboxColumns = "provider, id, type, payload, received_at, attempts, last_error, state"

    private static func event(_ row: SQLRow) throws -> WaitingProviderEvent {
        WaitingProviderEvent(
            provider: try row["provider"], header: ProviderEventHeader(id: try row["id"], type: try row["type"]),
            payload: [UInt8](try row["payload"] as Data? ?? Data()), receivedAt: try row["received_at"], attempts: try row["attempts"],
            lastError: try row["last_error"], givenUp: try row["state"] as String == "given-up")
    }
}
