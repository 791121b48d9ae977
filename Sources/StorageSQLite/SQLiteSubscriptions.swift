import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageRows

/// Subscriptions in SQLite. A claim reads the due rows and writes their leases in one write transaction, which SQLite
/// runs alone: two workers never hold one subscription.
public struct SQLiteSubscriptions: SubscriptionRepository, SubscriptionMailbox {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    private func run<T: Sendable>(writing: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws(SubscriptionRepositoryError)
        -> T
    {
        do {
            return try await writing ? database.write(body) : database.read(body)
        } catch {
            throw SubscriptionRepositoryError("\(error)")
        }
    }

    public func create(_ subscription: Subscription, event: SubscriptionEvent) async throws(SubscriptionRepositoryError) {
        try await run { db in
            try db.execute(
                sql: "INSERT INTO subscription (id, customer, status, due_at, document, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    subscription.id, subscription.customerID, subscription.status.rawValue, subscription.dueAt.timeIntervalSince1970,
                    SubscriptionsMigration.document(subscription), event.at.timeIntervalSince1970,
                ])
            try Self.record(event, of: subscription.id, in: db)
        }
    }

    public func subscription(id: String) async throws(SubscriptionRepositoryError) -> Subscription? {
        try await run(writing: false) { db in try Self.read(db, "SELECT document FROM subscription WHERE id = ?", [id]).first }
    }

    public func subscriptions(customer: String) async throws(SubscriptionRepositoryError) -> [Subscription] {
        try await run(writing: false) { db in
            try Self.read(db, "SELECT document FROM subscription WHERE customer = ? ORDER BY created_at DESC, id DESC", [customer])
        }
    }

    public func subscriptions(status: SubscriptionStatus?, offset: Int, limit: Int) async throws(SubscriptionRepositoryError) -> [Subscription] {
        try await run(writing: false) { db in
            try Self.read(
                db, "SELECT document FROM subscription WHERE (? IS NULL OR status = ?) ORDER BY due_at, id LIMIT ? OFFSET ?",
                [status?.rawValue, status?.rawValue, max(0, limit), max(0, offset)])
        }
    }

    public func history(of id: String) async throws(SubscriptionRepositoryError) -> [SubscriptionEvent] {
        try await run(writing: false) { db in
            try Row.fetchAll(
                db, sql: "SELECT at, actor, kind, detail FROM subscription_event WHERE subscription_id = ? ORDER BY sequence", arguments: [id]
            ).map { SubscriptionEvent(at: Date(timeIntervalSince1970: $0["at"]), actor: $0["actor"], kind: $0["kind"], detail: $0["detail"]) }
        }
    }

    public func claimDue(at now: Date, limit: Int, worker: String, leaseUntil: Date) async throws(SubscriptionRepositoryError) -> [Subscription] {
        let (stamp, until) = (now.timeIntervalSince1970, leaseUntil.timeIntervalSince1970)
        return try await run { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, document FROM subscription
                    WHERE status IN ('active', 'past_due') AND due_at <= ? AND (lease_until IS NULL OR lease_until < ?)
                    ORDER BY due_at, id LIMIT ?
                    """, arguments: [stamp, stamp, max(0, limit)])
            for row in rows {
                try db.execute(
                    sql: "UPDATE subscription SET lease_worker = ?, lease_until = ? WHERE id = ?", arguments: [worker, until, row["id"] as String])
            }
            return rows.compactMap { SubscriptionsMigration.subscription($0["document"]) }
        }
    }

    public func update(
        _ id: String, worker: String?, event: SubscriptionEvent, _ change: @escaping @Sendable (Subscription) -> Subscription?
    ) async throws(SubscriptionRepositoryError) -> Subscription? {
        try await run { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT document, lease_worker FROM subscription WHERE id = ?", arguments: [id]),
                let current = SubscriptionsMigration.subscription(row["document"])
            else { return nil }
            if let worker, (row["lease_worker"] as String?) != worker { return nil }
            guard let next = change(current) else { return nil }
            try db.execute(
                sql: """
                    UPDATE subscription SET document = ?, status = ?, due_at = ?,
                        lease_worker = CASE WHEN ? THEN NULL ELSE lease_worker END,
                        lease_until = CASE WHEN ? THEN NULL ELSE lease_until END
                    WHERE id = ?
                    """,
                arguments: [
                    SubscriptionsMigration.document(next), next.status.rawValue, next.dueAt.timeIntervalSince1970, worker != nil, worker != nil, id,
                ])
            try Self.record(event, of: id, in: db)
            return next
        }
    }

    private static func read(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [Subscription] {
        try String.fetchAll(db, sql: sql, arguments: arguments).compactMap(SubscriptionsMigration.subscription)
    }

    private static func record(_ event: SubscriptionEvent, of id: String, in db: Database) throws {
        let next = (try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM subscription_event WHERE subscription_id = ?", arguments: [id]) ?? 0) + 1
        try db.execute(
            sql: """
                INSERT INTO subscription_event (subscription_id, sequence, at, actor, kind, detail, mail_to, mail_to_name, mail_state, mail_next_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id, next, event.at.timeIntervalSince1970, event.actor, event.kind, event.detail, event.tells?.address, event.tells?.name,
                event.tells == nil ? nil : "pending", event.tells == nil ? nil : event.at.timeIntervalSince1970,
            ])
    }

    public func dueMail(at now: Date, limit: Int) async throws(SubscriptionRepositoryError) -> [SubscriptionMailEntry] {
        try await run(writing: false) { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT subscription_id, sequence, at, actor, kind, detail, mail_to, mail_to_name, mail_attempts FROM subscription_event
                    WHERE mail_state = 'pending' AND mail_next_at <= ? ORDER BY mail_next_at, subscription_id, sequence LIMIT ?
                    """, arguments: [now.timeIntervalSince1970, limit]
            ).map(SubscriptionMailRows.entry)
        }
    }

    public func recordMail(_ attempt: OutboxAttempt, subscription id: String, sequence: Int, at: Date) async throws(SubscriptionRepositoryError) {
        let (state, next, error) = SubscriptionMailRows.columns(attempt)
        try await run { db in
            try db.execute(
                sql: """
                    UPDATE subscription_event SET mail_state = ?, mail_next_at = COALESCE(?, mail_next_at), mail_error = ?,
                        mail_attempts = mail_attempts + 1
                    WHERE subscription_id = ? AND sequence = ? AND mail_state = 'pending'
                    """, arguments: [state, next?.timeIntervalSince1970, error, id, sequence])
        }
    }
}

extension SubscriptionMailRows {
    static func entry(_ row: Row) -> SubscriptionMailEntry {
        entry(
            subscription: row["subscription_id"], sequence: row["sequence"], at: row["at"], actor: row["actor"], kind: row["kind"],
            detail: row["detail"],
            to: row["mail_to"], name: row["mail_to_name"], attempts: row["mail_attempts"])
    }
}
