extension Schema {
    /// Steps v9–v19: refunds, the outbox, the provider's events, the API's tokens and replays, stock bounds, the open
    /// orders' index, shipping method ids and variants.
    static let historySteps: [Step] = [
        // Refunds, filed as pending before the payment provider is asked and settled after; at most one pending per
        // order, so a retried or recovered refund is the same refund.
        Step(
            "v9-refunds",
            [
                .postgres("CREATE SEQUENCE refund_sequence"),
                .both(
                    """
                    CREATE TABLE refund (
                        id TEXT PRIMARY KEY NOT NULL,
                        sequence {bigint} NOT NULL UNIQUE,
                        order_number TEXT NOT NULL REFERENCES orders(number),
                        kind TEXT NOT NULL CHECK (kind IN ('refund', 'cancel')),
                        amount {bigint} NOT NULL CHECK (amount > 0),
                        currency TEXT NOT NULL,
                        reason TEXT NOT NULL,
                        restock TEXT NOT NULL DEFAULT '[]',
                        actor TEXT NOT NULL,
                        filed_at {real} NOT NULL,
                        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'refunded', 'declined')),
                        provider_reference TEXT,
                        failure TEXT,
                        settled_at {real}
                    )
                    """),
                .both("CREATE UNIQUE INDEX refund_one_pending_per_order ON refund(order_number) WHERE state = 'pending'"),
            ]),
        // The shopper's email on each order, and the outbox the messages of its changes are written to in the same
        // transaction: one message per event at most.
        Step(
            "v10-outbox",
            [
                .both("ALTER TABLE orders ADD COLUMN email TEXT"),
                .both("ALTER TABLE orders ADD COLUMN email_name TEXT"),
                .postgres("CREATE SEQUENCE outbox_sequence"),
                .both(
                    """
                    CREATE TABLE outbox (
                        id TEXT PRIMARY KEY NOT NULL,
                        sequence {bigint} NOT NULL UNIQUE,
                        order_number TEXT NOT NULL REFERENCES orders(number),
                        kind TEXT NOT NULL CHECK (kind IN ('receipt', 'shipped', 'canceled', 'refunded')),
                        event_sequence INTEGER NOT NULL,
                        recipient TEXT NOT NULL,
                        recipient_name TEXT NOT NULL,
                        message_id TEXT NOT NULL UNIQUE,
                        created_at {real} NOT NULL,
                        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
                        attempts INTEGER NOT NULL DEFAULT 0,
                        next_attempt_at {real} NOT NULL,
                        last_error TEXT,
                        sent_at {real},
                        UNIQUE (order_number, event_sequence)
                    )
                    """),
                .both("CREATE INDEX outbox_due ON outbox(state, next_attempt_at)"),
            ]),
        // The payment provider's events the shop handled, each once (a redelivery is acknowledged and not applied
        // again), and one record per provider refund.
        Step(
            "v11-provider-events",
            both: [
                """
                CREATE TABLE provider_event (
                    provider TEXT NOT NULL,
                    id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    order_number TEXT,
                    outcome TEXT NOT NULL,
                    received_at {real} NOT NULL,
                    PRIMARY KEY (provider, id)
                )
                """,
                "CREATE UNIQUE INDEX refund_provider_reference ON refund(provider_reference) WHERE provider_reference IS NOT NULL",
            ]),
        // The API's personal access tokens (the SHA-256 of each secret, never the secret) and its idempotency keys.
        Step(
            "v12-api-tokens",
            both: [
                """
                CREATE TABLE api_token (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    scope TEXT NOT NULL CHECK (scope IN ('shop', 'merchant')),
                    secret_hash TEXT NOT NULL UNIQUE,
                    last_four TEXT NOT NULL,
                    created_at {real} NOT NULL,
                    last_used_at {real},
                    revoked_at {real}
                )
                """,
                "CREATE INDEX api_token_owner ON api_token(owner, created_at)",
                """
                CREATE TABLE api_idempotency (
                    owner TEXT NOT NULL,
                    key TEXT NOT NULL,
                    request_hash TEXT NOT NULL,
                    order_number TEXT,
                    created_at {real} NOT NULL,
                    PRIMARY KEY (owner, key)
                )
                """,
            ]),
        // Stock counts held to whole numbers from 0 to 2^31-1, as PostgreSQL's `integer` columns hold them: SQLite would
        // turn an overflowing `on_hand + n` into a REAL that no reader decodes. A column CHECK cannot be added to a table
        // in SQLite, so triggers refuse the write instead.
        Step(
            "v13-stock-bounds", sqliteOnly: true,
            [
                .sqlite(
                    """
                    CREATE TRIGGER stock_counts_bounded_on_insert BEFORE INSERT ON stock
                    WHEN typeof(NEW.on_hand) != 'integer' OR typeof(NEW.reserved) != 'integer' OR typeof(NEW.sold) != 'integer'
                        OR NEW.on_hand NOT BETWEEN 0 AND 2147483647 OR NEW.reserved NOT BETWEEN 0 AND 2147483647
                        OR NEW.sold NOT BETWEEN 0 AND 2147483647
                    BEGIN SELECT RAISE(ABORT, 'stock counts are whole numbers from 0 to 2147483647'); END;
                    CREATE TRIGGER stock_counts_bounded_on_update BEFORE UPDATE ON stock
                    WHEN typeof(NEW.on_hand) != 'integer' OR typeof(NEW.reserved) != 'integer' OR typeof(NEW.sold) != 'integer'
                        OR NEW.on_hand NOT BETWEEN 0 AND 2147483647 OR NEW.reserved NOT BETWEEN 0 AND 2147483647
                        OR NEW.sold NOT BETWEEN 0 AND 2147483647
                    BEGIN SELECT RAISE(ABORT, 'stock counts are whole numbers from 0 to 2147483647'); END;
                    """)
            ]),
        // Idempotency keys of every POST, not only orders: each request's fingerprint, when it started, and its answer
        // to send again. Keys filed before are dropped: a retry of an order of then finds its charge by its own key.
        Step(
            "v14-api-replay",
            both: [
                "DROP TABLE api_idempotency",
                """
                CREATE TABLE api_idempotency (
                    owner TEXT NOT NULL,
                    key TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    started_at {real} NOT NULL,
                    status INTEGER CHECK (status BETWEEN 100 AND 599),
                    content_type TEXT,
                    body {blob},
                    PRIMARY KEY (owner, key)
                )
                """,
            ]),
        // When a recovery last took a pending refund to ask the provider again.
        Step("v15-refund-claims", both: ["ALTER TABLE refund ADD COLUMN claimed_at {real}"]),
        // The provider's verified events waiting to be applied: the provider is answered once one is kept here.
        Step(
            "v16-provider-event-inbox",
            both: [
                """
                CREATE TABLE provider_event_inbox (
                    provider TEXT NOT NULL,
                    id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    payload {blob} NOT NULL,
                    received_at {real} NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at {real} NOT NULL,
                    last_error TEXT,
                    state TEXT NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'given-up')),
                    PRIMARY KEY (provider, id)
                )
                """,
                "CREATE INDEX provider_event_inbox_due ON provider_event_inbox(state, next_attempt_at)",
            ]),
        // An index of the open orders, for the settlement; the index on sequence alone repeated its UNIQUE one.
        // PostgreSQL has had it from its first step.
        Step(
            "v17-open-orders-index", postgres: "v1-shop",
            both: [
                "DROP INDEX orders_by_sequence",
                "CREATE INDEX orders_open ON orders(sequence) WHERE status IN ('charging', 'unknown')",
            ]),
        // Which of the catalog's shipping methods an order took, beside its label.
        Step("v18-shipping-method-id", both: ["ALTER TABLE orders ADD COLUMN shipping_method_id TEXT NOT NULL DEFAULT ''"]),
        // Options and variants: each variant's stock is kept in `stock` under its SKU.
        Step(
            "v19-variants",
            both: [
                "ALTER TABLE product ADD COLUMN options TEXT NOT NULL DEFAULT ''",  // JSON [{name, values}]; '' for none
                // Keyed by product, without a rowid in SQLite: a page's variants are read from one place in the tree each.
                """
                CREATE TABLE product_variant (
                    product_id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    sku TEXT NOT NULL UNIQUE,
                    option_values TEXT NOT NULL,      -- one value per option, joined by newlines
                    title TEXT NOT NULL,              -- the values as shown: "Whole bean · 1 kg"
                    price {bigint} NOT NULL CHECK (price >= 0),
                    grams INTEGER,
                    PRIMARY KEY (product_id, position)
                ){without_rowid}
                """,
                "ALTER TABLE order_line ADD COLUMN variant_sku TEXT",
                "ALTER TABLE order_line ADD COLUMN variant_title TEXT",
                "ALTER TABLE cart_line ADD COLUMN variant_sku TEXT",
                "ALTER TABLE cart_line ADD COLUMN variant_title TEXT",
            ]),
    ]
}
