import Foundation
import ShopModels
import ShopPorts

/// Subscriptions, in SQL both databases run. A claim takes the due rows and writes their leases in one transaction:
/// on SQLite it runs alone; on PostgreSQL it is one statement that passes over rows another claim has locked
/// (`FOR UPDATE SKIP LOCKED`). Either way, two workers never hold one subscription.
public struct SQLSubscriptions: SubscriptionRepository, SubscriptionMailbox {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    @discardableResult private func run<T: Sendable>(_ access: SQLAccess = .write, _ body: @escaping @Sendable (any SQLConnection) throws -> T)
        async throws(SubscriptionRepositoryError) -> T
    { try await database.run(access, failing: SubscriptionRepositoryError.init, body) }

    public func create(_ subscription: Subscription, event: SubscriptionEvent) async throws(SubscriptionRepositoryError) {
        try await run { connection in
            try connection.execute(
                """
                INSERT INTO subscription (id, customer, status, due_at, document, created_at)
                VALUES (\(subscription.id), \(subscription.customerID), \(subscription.status.rawValue), \(subscription.dueAt),
                    \(SubscriptionsMigration.document(subscription)), \(event.at))
                """)
            try Self.record(event, of: subscription.id, on: connection)
        }
    }

    public func subscription(id: String) async throws(SubscriptionRepositoryError) -> Subscription? {
        try await run(.read) { connection in try Self.documents(connection, "SELECT document FROM subscription WHERE id = \(id)").first }
    }

    public func subscriptions(customer: String) async throws(SubscriptionRepositoryError) -> [Subscription] {
        try await run(.read) { connection in
            try Self.documents(connection, "SELECT document FROM subscription WHERE customer = \(customer) ORDER BY created_at DESC, id DESC")
        }
    }

    public func subscriptions(status: SubscriptionStatus?, offset: Int, limit: Int) async throws(SubscriptionRepositoryError) -> [Subscription] {
        let wanted = status?.rawValue
        return try await run(.read) { connection in
            try Self.documents(
                connection,
                """
                SELECT document FROM subscription WHERE (CAST(\(wanted) AS TEXT) IS NULL OR status = \(wanted))
                ORDER BY due_at, id LIMIT \(max(0, limit)) OFFSET \(max(0, offset))
                """)
        }
    }

    public func history(of id: String) async throws(SubscriptionRepositoryError) -> [SubscriptionEvent] {
        try await run(.read) { connection in
            try connection.rows("SELECT at, actor, kind, detail FROM subscription_event WHERE subscription_id = \(id) ORDER BY sequence").map { row in
                SubscriptionEvent(at: try row["at"], actor: try row["actor"], kind: try row["kind"], detail: try row["detail"])
            }
        }
    }

    /// The claimed subscriptions, soonest due first.
    public func claimDue(at now: Date, limit: Int, worker: String, leaseUntil: Date) async throws(SubscriptionRepositoryError) -> [Subscription] {
        let claimed = try await run { connection in
            let due: SQLStatement = """
                SELECT id FROM subscription
                WHERE status IN ('active', 'past_due') AND due_at <= \(now) AND (lease_until IS NULL OR lease_until < \(now))
                ORDER BY due_at, id LIMIT \(max(0, limit))
                """
            switch connection.dialect {
            case .sqlite:
                return try Self.documents(
                    connection,
                    """
                    UPDATE subscription SET lease_worker = \(worker), lease_until = \(leaseUntil) WHERE id IN (\(due))
                    RETURNING document
                    """)
            case .postgres:
                return try Self.documents(
                    connection,
                    """
                    WITH due AS (\(due) FOR UPDATE SKIP LOCKED)
                    UPDATE subscription s SET lease_worker = \(worker), lease_until = \(leaseUntil) FROM due WHERE s.id = due.id
                    RETURNING s.document
                    """)
            }
        }
        // RETURNING answers in no set order.
        return claimed.sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
    }

    public func update(
        _ id: String, worker: String?, event: SubscriptionEvent, _ change: @escaping @Sendable (Subscription) -> Subscription?
    ) async throws(SubscriptionRepositoryError) -> Subscription? {
        try await run { connection in
            guard
                let row = try connection.row("SELECT document, lease_worker FROM subscription WHERE id = \(id)\(raw: connection.forUpdate)"),
                let current = SubscriptionsMigration.subscription(try row["document"])
            else { return nil }
            if let worker, try row["lease_worker"] as String? != worker { return nil }
            guard let next = change(current) else { return nil }
            let releases = worker != nil
            try connection.execute(
                """
                UPDATE subscription SET document = \(SubscriptionsMigration.document(next)), status = \(next.status.rawValue), due_at = \(next.dueAt),
                    lease_worker = CASE WHEN \(releases) THEN NULL ELSE lease_worker END,
                    lease_until = CASE WHEN \(releases) THEN NULL ELSE lease_until END
                WHERE id = \(id)
                """)
            try Self.record(event, of: id, on: connection)
            return next
        }
    }

    private static func documents(_ connection: any SQLConnection, _ statement: SQLStatement) throws -> [Subscription] {
        try connection.values(statement, as: String.self).compactMap(SubscriptionsMigration.subscription)
    }

    private static func record(_ event: SubscriptionEvent, of id: String, on connection: any SQLConnection) throws {
        let (state, next) = (event.tells == nil ? nil : "pending", event.tells == nil ? nil : event.at)
        try connection.execute(
            """
            INSERT INTO subscription_event (subscription_id, sequence, at, actor, kind, detail, mail_to, mail_to_name, mail_state, mail_next_at)
            SELECT \(id), coalesce(max(sequence), 0) + 1, \(event.at), \(event.actor), \(event.kind), \(event.detail), \(event.tells?.address),
                \(event.tells?.name), \(state), \(next)
            FROM subscription_event WHERE subscription_id = \(id)
            """)
    }

    public func dueMail(at now: Date, limit: Int) async throws(SubscriptionRepositoryError) -> [SubscriptionMailEntry] {
        try await run(.read) { connection in
            try connection.rows(
                """
                SELECT subscription_id, sequence, at, actor, kind, detail, mail_to, mail_to_name, mail_attempts FROM subscription_event
                WHERE mail_state = 'pending' AND mail_next_at <= \(now) ORDER BY mail_next_at, subscription_id, sequence LIMIT \(max(0, limit))
                """
            ).map { row in
                let recipient = MailAddress(name: try row["mail_to_name"] as String? ?? "", address: try row["mail_to"] as String? ?? "")
                let event = SubscriptionEvent(
                    at: try row["at"], actor: try row["actor"], kind: try row["kind"], detail: try row["detail"], tells: recipient)
                return SubscriptionMailEntry(
                    subscriptionID: try row["subscription_id"], sequence: try row["sequence"], event: event, recipient: recipient,
                    attempts: try row["mail_attempts"])
            }
        }
    }

    public func recordMail(_ attempt: OutboxAttempt, subscription id: String, sequence: Int, at: Date) async throws(SubscriptionRepositoryError) {
        let (state, next, error) = SubscriptionMailRows.columns(attempt)
        try await run { connection in
            try connection.execute(
                """
                UPDATE subscription_event SET mail_state = \(state), mail_next_at = coalesce(\(next), mail_next_at), mail_error = \(error),
                    mail_attempts = mail_attempts + 1
                WHERE subscription_id = \(id) AND sequence = \(sequence) AND mail_state = 'pending'
                """)
        }
    }
}
