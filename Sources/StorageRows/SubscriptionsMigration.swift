import Foundation
import ShopModels
import ShopPorts

/// Schema step v30, the same on SQLite and PostgreSQL: subscriptions (each a JSON document of `Subscription`, with the
/// columns the worker's claim reads beside it) and their histories.
public enum SubscriptionsMigration {
    public static let statements: [String] = [
        """
        CREATE TABLE subscription (
            id TEXT PRIMARY KEY,
            customer TEXT NOT NULL,
            status TEXT NOT NULL,
            due_at DOUBLE PRECISION NOT NULL,
            document TEXT NOT NULL,
            lease_worker TEXT,
            lease_until DOUBLE PRECISION,
            created_at DOUBLE PRECISION NOT NULL
        )
        """,
        "CREATE INDEX subscription_due ON subscription (due_at) WHERE status IN ('active', 'past_due')",
        "CREATE INDEX subscription_customer ON subscription (customer, created_at)",
        """
        CREATE TABLE subscription_event (
            subscription_id TEXT NOT NULL REFERENCES subscription (id),
            sequence INTEGER NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL,
            PRIMARY KEY (subscription_id, sequence)
        )
        """,
    ]

    /// The document a row keeps of `subscription`.
    public static func document(_ subscription: Subscription) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return (try? String(decoding: encoder.encode(subscription), as: UTF8.self)) ?? "{}"
    }

    /// The subscription a row's document is; nil for one that is not.
    public static func subscription(_ document: String) -> Subscription? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Subscription.self, from: Data(document.utf8))
    }
}

/// Schema step v31, the same on SQLite and PostgreSQL: the intervals each product is sold as a subscription at, in
/// weeks joined by commas; empty for none.
public enum ProductSubscriptionMigration {
    public static let statements = ["ALTER TABLE product ADD COLUMN subscription_weeks TEXT NOT NULL DEFAULT ''"]

    /// The column's text for `weeks`.
    public static func stored(_ weeks: [Int]) -> String { weeks.map(String.init).joined(separator: ",") }

    /// The weeks a column's text names; what is not a number is left out.
    public static func weeks(_ stored: String) -> [Int] { stored.split(separator: ",").compactMap { Int($0) } }
}

/// Schema step v32, the same on SQLite and PostgreSQL: an event that tells its subscriber (a renewal that failed, a
/// cancel) is its own outbox entry, written in the event's transaction: to whom, and where its sending stands.
public enum SubscriptionMailMigration {
    public static let statements = [
        "ALTER TABLE subscription_event ADD COLUMN mail_to TEXT",
        "ALTER TABLE subscription_event ADD COLUMN mail_to_name TEXT",
        "ALTER TABLE subscription_event ADD COLUMN mail_state TEXT CHECK (mail_state IN ('pending', 'sent', 'failed'))",
        "ALTER TABLE subscription_event ADD COLUMN mail_attempts INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE subscription_event ADD COLUMN mail_next_at DOUBLE PRECISION",
        "ALTER TABLE subscription_event ADD COLUMN mail_error TEXT",
        "CREATE INDEX subscription_mail_due ON subscription_event (mail_next_at) WHERE mail_state = 'pending'",
    ]
}

/// The subscription mail columns, read and written the same way by both databases' stores.
public enum SubscriptionMailRows {
    /// The state, next time and error an attempt leaves.
    public static func columns(_ attempt: OutboxAttempt) -> (state: String, next: Date?, error: String?) {
        switch attempt {
        case .sent: ("sent", nil, nil)
        case .retry(let next, let error): ("pending", next, error)
        case .gaveUp(let error): ("failed", nil, error)
        }
    }
}
