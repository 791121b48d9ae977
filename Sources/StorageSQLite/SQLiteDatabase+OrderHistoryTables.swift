/// The tables of the order history's later steps (migrations v9–v11): refunds, the outbox, the provider's events.
extension SQLiteDatabase {
    /// Refunds, filed as pending before the payment provider is asked and settled after; at most one pending per
    /// order, so a retried or recovered refund is the same refund. The same table in PostgreSQL's migration v9.
    static let refundTable = """
        CREATE TABLE refund (
            id TEXT PRIMARY KEY NOT NULL,
            sequence INTEGER NOT NULL UNIQUE,
            order_number TEXT NOT NULL REFERENCES orders(number),
            kind TEXT NOT NULL CHECK (kind IN ('refund', 'cancel')),
            amount INTEGER NOT NULL CHECK (amount > 0),
            currency TEXT NOT NULL,
            reason TEXT NOT NULL,
            restock TEXT NOT NULL DEFAULT '[]',
            actor TEXT NOT NULL,
            filed_at REAL NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'refunded', 'declined')),
            provider_reference TEXT,
            failure TEXT,
            settled_at REAL
        );
        CREATE UNIQUE INDEX refund_one_pending_per_order ON refund(order_number) WHERE state = 'pending';
        """

    /// The shopper's email on each order, and the outbox the messages of its changes are written to in the same
    /// transaction: one message per event at most. The same in PostgreSQL's migration v10.
    static let outboxTable = """
        ALTER TABLE orders ADD COLUMN email TEXT;
        ALTER TABLE orders ADD COLUMN email_name TEXT;
        CREATE TABLE outbox (
            id TEXT PRIMARY KEY NOT NULL,
            sequence INTEGER NOT NULL UNIQUE,
            order_number TEXT NOT NULL REFERENCES orders(number),
            kind TEXT NOT NULL CHECK (kind IN ('receipt', 'shipped', 'canceled', 'refunded')),
            event_sequence INTEGER NOT NULL,
            recipient TEXT NOT NULL,
            recipient_name TEXT NOT NULL,
            message_id TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL NOT NULL,
            last_error TEXT,
            sent_at REAL,
            UNIQUE (order_number, event_sequence)
        );
        CREATE INDEX outbox_due ON outbox(state, next_attempt_at);
        """

    /// The payment provider's events the shop handled, each once (a redelivery is acknowledged and not applied
    /// again), and one record per provider refund. The same in PostgreSQL's migration v11.
    static let providerEventTable = """
        CREATE TABLE provider_event (
            provider TEXT NOT NULL,
            id TEXT NOT NULL,
            type TEXT NOT NULL,
            order_number TEXT,
            outcome TEXT NOT NULL,
            received_at REAL NOT NULL,
            PRIMARY KEY (provider, id)
        );
        CREATE UNIQUE INDEX refund_provider_reference ON refund(provider_reference) WHERE provider_reference IS NOT NULL;
        """
}
