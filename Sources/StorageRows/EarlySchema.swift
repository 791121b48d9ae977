extension Schema {
    /// Steps v1–v19: the first shop (v1–v8: catalog, stock, orders and payments, carts, wallets, accounts, the order
    /// history), then `historySteps`.
    static let earlySteps: [Step] = firstShopSteps + historySteps

    private static let firstShopSteps: [Step] = [
        Step(
            "v1-catalog", postgres: "v1-shop",
            [
                .both(
                    """
                    CREATE TABLE catalog_meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    )
                    """),
                // Search is each database's own: FTS5 over the rows, or a tsvector of the words FTS5 holds.
                .sqlite(
                    """
                    CREATE TABLE product (
                        rowid INTEGER PRIMARY KEY,
                        id TEXT NOT NULL UNIQUE,
                        position INTEGER UNIQUE,          -- catalog order; NULL once gone from the catalog
                        name TEXT NOT NULL,
                        summary TEXT NOT NULL,
                        description TEXT NOT NULL,
                        price INTEGER NOT NULL CHECK (price >= 0),
                        art TEXT NOT NULL,                -- lines joined by newlines
                        tags TEXT NOT NULL                -- joined by newlines
                    );
                    CREATE VIRTUAL TABLE product_search USING fts5(
                        name, summary, tags,
                        content='product', content_rowid='rowid',
                        tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'
                    );
                    """),
                .postgres(
                    """
                    CREATE TABLE product (
                        id text PRIMARY KEY,
                        position integer UNIQUE,
                        name text NOT NULL,
                        summary text NOT NULL,
                        description text NOT NULL,
                        price bigint NOT NULL CHECK (price >= 0),
                        art text NOT NULL,
                        tags text NOT NULL,
                        search tsvector NOT NULL          -- the folded words of name, summary and tags
                    )
                    """),
                .postgres("CREATE INDEX product_search ON product USING gin (search)"),
            ]),
        Step(
            "v2-stock-orders-payments", postgres: "v1-shop",
            [
                .both(
                    """
                    -- on_hand + reserved + sold is the stock the shop started with (plus restocks).
                    CREATE TABLE stock (
                        product_id TEXT PRIMARY KEY NOT NULL,
                        on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
                        reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
                        sold INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0)
                    )
                    """),
                // PostgreSQL numbers orders, refunds and messages from sequences; SQLite from the table's largest.
                .postgres("CREATE SEQUENCE order_sequence"),
                .both(
                    """
                    CREATE TABLE orders (
                        number TEXT PRIMARY KEY NOT NULL,
                        sequence {bigint} NOT NULL UNIQUE,
                        idempotency_key TEXT NOT NULL UNIQUE,
                        status TEXT NOT NULL,
                        placed_at {real} NOT NULL,
                        currency TEXT NOT NULL,
                        subtotal {bigint} NOT NULL,
                        shipping {bigint} NOT NULL,
                        tax {bigint} NOT NULL,
                        token_id TEXT NOT NULL,
                        payment_description TEXT NOT NULL,
                        shipping_method TEXT NOT NULL,
                        ship_to TEXT NOT NULL,
                        failure TEXT
                    )
                    """),
                .both("CREATE INDEX orders_by_sequence ON orders(sequence DESC)"),
                .both(
                    """
                    CREATE TABLE order_line (
                        order_number TEXT NOT NULL REFERENCES orders(number),
                        position INTEGER NOT NULL,
                        product_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        unit_price {bigint} NOT NULL,
                        quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                        PRIMARY KEY (order_number, position)
                    )
                    """),
                .both(
                    """
                    -- The sandbox provider's own records, standing in for a real provider's.
                    CREATE TABLE sandbox_charge (
                        idempotency_key TEXT PRIMARY KEY NOT NULL,
                        token_id TEXT NOT NULL,
                        amount {bigint} NOT NULL,
                        currency TEXT NOT NULL,
                        outcome TEXT NOT NULL
                    )
                    """),
            ]),
        Step(
            "v3-carts-wallets-addresses", postgres: "v1-shop",
            [
                .both(
                    """
                    CREATE TABLE cart_line (
                        customer TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        product_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        unit_price {bigint} NOT NULL,
                        currency TEXT NOT NULL,
                        quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                        PRIMARY KEY (customer, position)
                    )
                    """),
                .both(
                    """
                    -- Cards keep only what is needed to show and charge them: never a full number or a CVC.
                    CREATE TABLE wallet_card (
                        customer TEXT NOT NULL,
                        id TEXT NOT NULL,
                        token TEXT NOT NULL,
                        network TEXT NOT NULL,
                        last_four TEXT NOT NULL CHECK (length(last_four) = 4),
                        expiry_month INTEGER NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
                        expiry_year INTEGER NOT NULL,
                        is_default {bool} NOT NULL DEFAULT {false},
                        PRIMARY KEY (customer, id)
                    )
                    """),
                .both(
                    """
                    CREATE TABLE address (
                        customer TEXT NOT NULL,
                        id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        street TEXT NOT NULL,
                        city TEXT NOT NULL,
                        postal_code TEXT NOT NULL,
                        country TEXT NOT NULL,
                        email TEXT NOT NULL,
                        phone TEXT NOT NULL,
                        is_default {bool} NOT NULL DEFAULT {false},
                        PRIMARY KEY (customer, id)
                    )
                    """),
            ]),
        Step(
            "v4-accounts", postgres: "v1-shop",
            [
                // Orders placed before accounts existed belong to no one ('') and are listed only by `storefront orders`.
                .both("ALTER TABLE orders ADD COLUMN customer TEXT NOT NULL DEFAULT ''"),
                .both("CREATE INDEX orders_by_customer ON orders(customer, sequence DESC)"),
                .both("ALTER TABLE wallet_card ADD COLUMN added INTEGER NOT NULL DEFAULT 0"),
                .both("ALTER TABLE address ADD COLUMN added INTEGER NOT NULL DEFAULT 0"),
                .both(
                    """
                    -- The name and email an identity provider gave on the first sign-in.
                    CREATE TABLE account (
                        customer TEXT PRIMARY KEY NOT NULL,
                        name TEXT,
                        email TEXT
                    )
                    """),
                .both(
                    """
                    -- The sandbox identity provider's own records, standing in for a real provider's.
                    CREATE TABLE sandbox_id_user (
                        id TEXT PRIMARY KEY NOT NULL,
                        email TEXT NOT NULL UNIQUE,
                        revoked {bool} NOT NULL DEFAULT {false}
                    )
                    """),
                .both(
                    """
                    CREATE TABLE sandbox_id_refresh (
                        token_hash TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES sandbox_id_user(id),
                        expires_at {real} NOT NULL
                    )
                    """),
            ]),
        Step(
            "v5-provider-references", postgres: "v1-shop",
            [
                // A real provider's id for the order's payment (a Stripe PaymentIntent), written before it is confirmed;
                // 'void' when the start-up settlement claimed the order as never charged.
                .both("ALTER TABLE orders ADD COLUMN payment_reference TEXT"),
                .both(
                    """
                    -- A real provider's id for each shop customer, per provider account ('stripe:test', 'stripe:live').
                    CREATE TABLE provider_customer (
                        customer TEXT NOT NULL,
                        account TEXT NOT NULL,
                        reference TEXT NOT NULL,
                        PRIMARY KEY (customer, account)
                    )
                    """),
            ]),
        Step(
            "v6-shop-install",
            [
                .both(
                    """
                    -- This shop's own id, made once with its database; the keys it sends a payment provider carry it.
                    CREATE TABLE shop_install (
                        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                        id TEXT NOT NULL
                    )
                    """),
                .sqlite("INSERT INTO shop_install (singleton, id) VALUES (1, lower(hex(randomblob(16))))"),
                .postgres("INSERT INTO shop_install (singleton, id) VALUES (1, md5(random()::text || clock_timestamp()::text))"),
            ]),
        // "canceled" now means a paid order canceled (and refunded); an attempt settled as never charged is "voided".
        Step("v7-voided-attempts", both: ["UPDATE orders SET status = 'voided' WHERE status = 'canceled'"]),
        Step(
            "v8-order-events",
            [
                .both(
                    """
                    -- Each order's history: written in the same transaction as each change, never updated or deleted.
                    CREATE TABLE order_event (
                        order_number TEXT NOT NULL REFERENCES orders(number),
                        sequence INTEGER NOT NULL,
                        at {real} NOT NULL,
                        actor TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        details TEXT NOT NULL DEFAULT '{}',
                        PRIMARY KEY (order_number, sequence)
                    )
                    """),
                .sqlite(
                    """
                    CREATE TRIGGER order_event_no_update BEFORE UPDATE ON order_event
                    BEGIN SELECT RAISE(ABORT, 'order_event is append-only'); END;
                    CREATE TRIGGER order_event_no_delete BEFORE DELETE ON order_event
                    BEGIN SELECT RAISE(ABORT, 'order_event is append-only'); END;
                    """),
                .postgres(
                    """
                    CREATE FUNCTION order_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'order_event is append-only'; END $$
                    """),
                .postgres(
                    "CREATE TRIGGER order_event_append_only BEFORE UPDATE OR DELETE ON order_event FOR EACH ROW EXECUTE FUNCTION order_event_append_only()"
                ),
                // Orders placed before the history began get it from what their row says: placed, then settled.
                .both(
                    """
                    INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                    SELECT number, 1, placed_at, 'shopper:' || customer, 'placed',
                           CAST({json_object}('total', subtotal + shipping + tax, 'currency', currency) AS TEXT)
                    FROM orders
                    """),
                .both(
                    """
                    INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                    SELECT number, 2, placed_at, CASE status WHEN 'paid' THEN 'provider' WHEN 'declined' THEN 'provider' ELSE 'system' END,
                           CASE status WHEN 'paid' THEN 'charged' WHEN 'declined' THEN 'declined' WHEN 'voided' THEN 'voided' ELSE 'unanswered' END,
                           CASE status WHEN 'declined' THEN CAST({json_object}('reason', coalesce(failure, '')) AS TEXT) ELSE '{}' END
                    FROM orders WHERE status IN ('paid', 'declined', 'voided', 'unknown')
                    """),
            ]),
    ]
}
