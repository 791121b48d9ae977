import Foundation
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// Subscriptions in PostgreSQL, shared by every host. A claim is one statement: the due rows are chosen
/// `FOR UPDATE SKIP LOCKED`, so a second worker's claim at the same moment passes over the rows the first is taking
/// and takes others, and each row's lease is written before either commits.
public struct PostgresSubscriptions: SubscriptionRepository, SubscriptionMailbox {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    private func run<T: Sendable>(writing: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws(SubscriptionRepositoryError) -> T
    {
        do {
            return try await writing ? database.write(body) : database.read(body)
        } catch {
            throw SubscriptionRepositoryError("\(error)")
        }
    }

    public func create(_ subscription: Subscription, event: SubscriptionEvent) async throws(SubscriptionRepositoryError) {
        let (id, customer, status) = (subscription.id, subscription.customerID, subscription.status.rawValue)
        let (due, document, created) = (
            subscription.dueAt.timeIntervalSince1970, SubscriptionsMigration.document(subscription), event.at.timeIntervalSince1970
        )
        try await run { connection in
            try await connection.query(
                """
                INSERT INTO subscription (id, customer, status, due_at, document, created_at)
                VALUES (\(id), \(customer), \(status), \(due), \(document), \(created))
                """, logger: PostgresDatabase.quiet)
            try await Self.record(event, of: id, on: connection)
        }
    }

    public func subscription(id: String) async throws(SubscriptionRepositoryError) -> Subscription? {
        try await run(writing: false) { connection in
            try await Self.documents(connection.query("SELECT document FROM subscription WHERE id = \(id)", logger: PostgresDatabase.quiet)).first
        }
    }

    public func subscriptions(customer: String) async throws(SubscriptionRepositoryError) -> [Subscription] {
        try await run(writing: false) { connection in
            try await Self.documents(
                connection.query(
                    "SELECT document FROM subscription WHERE customer = \(customer) ORDER BY created_at DESC, id DESC", logger: PostgresDatabase.quiet
                ))
        }
    }

    public func subscriptions(status: SubscriptionStatus?, offset: Int, limit: Int) async throws(SubscriptionRepositoryError) -> [Subscription] {
        let (wanted, offset, limit) = (status?.rawValue, max(0, offset), max(0, limit))
        return try await run(writing: false) { connection in
            try await Self.documents(
                connection.query(
                    """
                    SELECT document FROM subscription WHERE (\(wanted)::text IS NULL OR status = \(wanted))
                    ORDER BY due_at, id LIMIT \(limit) OFFSET \(offset)
                    """, logger: PostgresDatabase.quiet))
        }
    }

    public func history(of id: String) async throws(SubscriptionRepositoryError) -> [SubscriptionEvent] {
        try await run(writing: false) { connection in
            var events: [SubscriptionEvent] = []
            let rows = try await connection.query(
                "SELECT at, actor, kind, detail FROM subscription_event WHERE subscription_id = \(id) ORDER BY sequence",
                logger: PostgresDatabase.quiet)
            for try await (at, actor, kind, detail) in rows.decode((Double, String, String, String).self) {
                events.append(SubscriptionEvent(at: Date(timeIntervalSince1970: at), actor: actor, kind: kind, detail: detail))
            }
            return events
        }
    }

    public func claimDue(at now: Date, limit: Int, worker: String, leaseUntil: Date) async throws(SubscriptionRepositoryError) -> [Subscription] {
        let (stamp, until, limit) = (now.timeIntervalSince1970, leaseUntil.timeIntervalSince1970, max(0, limit))
        return try await run { connection in
            try await Self.documents(
                connection.query(
                    """
                    WITH due AS (
                        SELECT id FROM subscription
                        WHERE status IN ('active', 'past_due') AND due_at <= \(stamp) AND (lease_until IS NULL OR lease_until < \(stamp))
                        ORDER BY due_at, id LIMIT \(limit)
                        FOR UPDATE SKIP LOCKED
                    )
                    UPDATE subscription s SET lease_worker = \(worker), lease_until = \(until) FROM due WHERE s.id = due.id
                    RETURNING s.document
                    """, logger: PostgresDatabase.quiet))
        }
    }

    public func update(
        _ id: String, worker: String?, event: SubscriptionEvent, _ change: @escaping @Sendable (Subscription) -> Subscription?
    ) async throws(SubscriptionRepositoryError) -> Subscription? {
        try await run { connection in
            let rows = try await connection.query(
                "SELECT document, lease_worker FROM subscription WHERE id = \(id) FOR UPDATE", logger: PostgresDatabase.quiet)
            var found: (String, String?)?
            for try await row in rows.decode((String, String?).self) { found = row }
            guard let (document, holder) = found, let current = SubscriptionsMigration.subscription(document) else { return nil }
            if let worker, holder != worker { return nil }
            guard let next = change(current) else { return nil }
            let (written, status, due, releases) = (
                SubscriptionsMigration.document(next), next.status.rawValue, next.dueAt.timeIntervalSince1970, worker != nil
            )
            try await connection.query(
                """
                UPDATE subscription SET document = \(written), status = \(status), due_at = \(due),
                    lease_worker = CASE WHEN \(releases) THEN NULL ELSE lease_worker END,
                    lease_until = CASE WHEN \(releases) THEN NULL ELSE lease_until END
                WHERE id = \(id)
                """, logger: PostgresDatabase.quiet)
            try await Self.record(event, of: id, on: connection)
            return next
        }
    }

    private static func documents(_ rows: PostgresRowSequence) async throws -> [Subscription] {
        var found: [Subscription] = []
        for try await document in rows.decode(String.self) {
            if let subscription = SubscriptionsMigration.subscription(document) { found.append(subscription) }
        }
        return found
    }

    private static func record(_ event: SubscriptionEvent, of id: String, on connection: PostgresConnection) async throws {
        let (at, actor, kind, detail) = (event.at.timeIntervalSince1970, event.actor, event.kind, event.detail)
        let (to, name, state, next) = (event.tells?.address, event.tells?.name, event.tells == nil ? nil : "pending", event.tells == nil ? nil : at)
        try await connection.query(
            """
            INSERT INTO subscription_event (subscription_id, sequence, at, actor, kind, detail, mail_to, mail_to_name, mail_state, mail_next_at)
            SELECT \(id), coalesce(max(sequence), 0) + 1, \(at), \(actor), \(kind), \(detail), \(to), \(name), \(state), \(next)
            FROM subscription_event WHERE subscription_id = \(id)
            """, logger: PostgresDatabase.quiet)
    }

    public func dueMail(at now: Date, limit: Int) async throws(SubscriptionRepositoryError) -> [SubscriptionMailEntry] {
        let (time, limit) = (now.timeIntervalSince1970, max(0, limit))
        return try await run(writing: false) { connection in
            let rows = try await connection.query(
                """
                SELECT subscription_id, sequence, at, actor, kind, detail, mail_to, mail_to_name, mail_attempts FROM subscription_event
                WHERE mail_state = 'pending' AND mail_next_at <= \(time) ORDER BY mail_next_at, subscription_id, sequence LIMIT \(limit)
                """, logger: PostgresDatabase.quiet)
            var entries: [SubscriptionMailEntry] = []
            for try await (id, sequence, at, actor, kind, detail, to, name, attempts) in rows.decode(
                (String, Int, Double, String, String, String, String?, String?, Int).self)
            {
                entries.append(
                    SubscriptionMailRows.entry(
                        subscription: id, sequence: sequence, at: at, actor: actor, kind: kind, detail: detail, to: to, name: name, attempts: attempts
                    ))
            }
            return entries
        }
    }

    public func recordMail(_ attempt: OutboxAttempt, subscription id: String, sequence: Int, at: Date) async throws(SubscriptionRepositoryError) {
        let (state, next, error) = SubscriptionMailRows.columns(attempt)
        let nextAt = next?.timeIntervalSince1970
        try await run { connection in
            _ = try await connection.query(
                """
                UPDATE subscription_event SET mail_state = \(state), mail_next_at = coalesce(\(nextAt), mail_next_at), mail_error = \(error),
                    mail_attempts = mail_attempts + 1
                WHERE subscription_id = \(id) AND sequence = \(sequence) AND mail_state = 'pending'
                """, logger: PostgresDatabase.quiet)
        }
    }
}
