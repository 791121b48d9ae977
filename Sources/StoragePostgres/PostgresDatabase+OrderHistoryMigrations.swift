import PostgresNIO
import StorageRows

extension PostgresDatabase {
    /// The steps from the order history on (v8–v11): SQLite's in PostgreSQL's types.
    static let orderHistoryMigrations: [Migration] = [
        Migration(
            identifier: "v8-order-events",
            sql: [
                """
                -- Each order's history: written in the same transaction as each change, never updated or deleted.
                CREATE TABLE order_event (
                    order_number text NOT NULL REFERENCES orders(number),
                    sequence integer NOT NULL,
                    at double precision NOT NULL,
                    actor text NOT NULL,
                    kind text NOT NULL,
                    details text NOT NULL DEFAULT '{}',
                    PRIMARY KEY (order_number, sequence)
                )
                """,
                """
                CREATE FUNCTION order_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'order_event is append-only'; END $$
                """,
                "CREATE TRIGGER order_event_append_only BEFORE UPDATE OR DELETE ON order_event FOR EACH ROW EXECUTE FUNCTION order_event_append_only()",
                // Orders placed before the history began get it from what their row says: placed, then settled.
                """
                INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                SELECT number, 1, placed_at, 'shopper:' || customer, 'placed',
                       json_build_object('total', subtotal + shipping + tax, 'currency', currency)::text
                FROM orders
                """,
                """
                INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                SELECT number, 2, placed_at, CASE status WHEN 'paid' THEN 'provider' WHEN 'declined' THEN 'provider' ELSE 'system' END,
                       CASE status WHEN 'paid' THEN 'charged' WHEN 'declined' THEN 'declined' WHEN 'voided' THEN 'voided' ELSE 'unanswered' END,
                       CASE status WHEN 'declined' THEN json_build_object('reason', coalesce(failure, ''))::text ELSE '{}' END
                FROM orders WHERE status IN ('paid', 'declined', 'voided', 'unknown')
                """,
            ]),
        // Refunds, filed as pending before the payment provider is asked and settled after; at most one pending per
        // order, so a retried or recovered refund is the same refund. SQLite's migration v9 in PostgreSQL's types.
        Migration(
            identifier: "v9-refunds",
            sql: [
                "CREATE SEQUENCE refund_sequence",
                """
                CREATE TABLE refund (
                    id text PRIMARY KEY,
                    sequence bigint NOT NULL UNIQUE,
                    order_number text NOT NULL REFERENCES orders(number),
                    kind text NOT NULL CHECK (kind IN ('refund', 'cancel')),
                    amount bigint NOT NULL CHECK (amount > 0),
                    currency text NOT NULL,
                    reason text NOT NULL,
                    restock text NOT NULL DEFAULT '[]',
                    actor text NOT NULL,
                    filed_at double precision NOT NULL,
                    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'refunded', 'declined')),
                    provider_reference text,
                    failure text,
                    settled_at double precision
                )
                """,
                "CREATE UNIQUE INDEX refund_one_pending_per_order ON refund(order_number) WHERE state = 'pending'",
            ]),
        // The shopper's email on each order, and the outbox the messages of its changes are written to in the same
        // transaction. SQLite's migration v10 in PostgreSQL's types.
        Migration(
            identifier: "v10-outbox",
            sql: [
                "ALTER TABLE orders ADD COLUMN email text",
                "ALTER TABLE orders ADD COLUMN email_name text",
                "CREATE SEQUENCE outbox_sequence",
                """
                CREATE TABLE outbox (
                    id text PRIMARY KEY,
                    sequence bigint NOT NULL UNIQUE,
                    order_number text NOT NULL REFERENCES orders(number),
                    kind text NOT NULL CHECK (kind IN ('receipt', 'shipped', 'canceled', 'refunded')),
                    event_sequence integer NOT NULL,
                    recipient text NOT NULL,
                    recipient_name text NOT NULL,
                    message_id text NOT NULL UNIQUE,
                    created_at double precision NOT NULL,
                    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
                    attempts integer NOT NULL DEFAULT 0,
                    next_attempt_at double precision NOT NULL,
                    last_error text,
                    sent_at double precision,
                    UNIQUE (order_number, event_sequence)
                )
                """,
                "CREATE INDEX outbox_due ON outbox(state, next_attempt_at)",
            ]),
        // The payment provider's events the shop handled, each once, and one record per provider refund. SQLite's
        // migration v11 in PostgreSQL's types.
        Migration(
            identifier: "v11-provider-events",
            sql: [
                """
                CREATE TABLE provider_event (
                    provider text NOT NULL,
                    id text NOT NULL,
                    type text NOT NULL,
                    order_number text,
                    outcome text NOT NULL,
                    received_at double precision NOT NULL,
                    PRIMARY KEY (provider, id)
                )
                """,
                "CREATE UNIQUE INDEX refund_provider_reference ON refund(provider_reference) WHERE provider_reference IS NOT NULL",
            ]),
        // The API's personal access tokens (the SHA-256 of each secret, never the secret) and its idempotency keys.
        // SQLite's migration v12.
        Migration(
            identifier: "v12-api-tokens",
            sql: [
                """
                CREATE TABLE api_token (
                    id text PRIMARY KEY,
                    name text NOT NULL,
                    owner text NOT NULL,
                    scope text NOT NULL CHECK (scope IN ('shop', 'merchant')),
                    secret_hash text NOT NULL UNIQUE,
                    last_four text NOT NULL,
                    created_at double precision NOT NULL,
                    last_used_at double precision,
                    revoked_at double precision
                )
                """,
                "CREATE INDEX api_token_owner ON api_token(owner, created_at)",
                """
                CREATE TABLE api_idempotency (
                    owner text NOT NULL,
                    key text NOT NULL,
                    request_hash text NOT NULL,
                    order_number text,
                    created_at double precision NOT NULL,
                    PRIMARY KEY (owner, key)
                )
                """,
            ]),
        // Idempotency keys of every POST, not only orders: each request's fingerprint, when it started, and its answer
        // to send again. Keys filed before are dropped: a retry of an order of then finds its charge by its own key.
        // SQLite's migration v14.
        Migration(
            identifier: "v14-api-replay",
            sql: [
                "DROP TABLE api_idempotency",
                """
                CREATE TABLE api_idempotency (
                    owner text NOT NULL,
                    key text NOT NULL,
                    fingerprint text NOT NULL,
                    started_at double precision NOT NULL,
                    status integer CHECK (status BETWEEN 100 AND 599),
                    content_type text,
                    body bytea,
                    PRIMARY KEY (owner, key)
                )
                """,
            ]),
        // When a recovery last took a pending refund to ask the provider again. SQLite's v15.
        Migration(identifier: "v15-refund-claims", sql: ["ALTER TABLE refund ADD COLUMN claimed_at double precision"]),
        // The provider's verified events waiting to be applied. SQLite's v16.
        Migration(
            identifier: "v16-provider-event-inbox",
            sql: [
                """
                CREATE TABLE provider_event_inbox (
                    provider text NOT NULL,
                    id text NOT NULL,
                    type text NOT NULL,
                    payload bytea NOT NULL,
                    received_at double precision NOT NULL,
                    attempts integer NOT NULL DEFAULT 0,
                    next_attempt_at double precision NOT NULL,
                    last_error text,
                    state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'given-up')),
                    PRIMARY KEY (provider, id)
                )
                """,
                "CREATE INDEX provider_event_inbox_due ON provider_event_inbox(state, next_attempt_at)",
            ]),
        // Which of the catalog's shipping methods an order took, beside its label. SQLite's v18.
        Migration(identifier: "v18-shipping-method-id", sql: ["ALTER TABLE orders ADD COLUMN shipping_method_id text NOT NULL DEFAULT ''"]),
        // Options and variants: each variant's stock is kept in `stock` under its SKU. SQLite's v19.
        Migration(
            identifier: "v19-variants",
            sql: [
                "ALTER TABLE product ADD COLUMN options text NOT NULL DEFAULT ''",
                """
                CREATE TABLE product_variant (
                    product_id text NOT NULL,
                    position integer NOT NULL,
                    sku text NOT NULL UNIQUE,
                    option_values text NOT NULL,
                    title text NOT NULL,
                    price bigint NOT NULL CHECK (price >= 0),
                    grams integer,
                    PRIMARY KEY (product_id, position)
                )
                """,
                "ALTER TABLE order_line ADD COLUMN variant_sku text",
                "ALTER TABLE order_line ADD COLUMN variant_title text",
                "ALTER TABLE cart_line ADD COLUMN variant_sku text",
                "ALTER TABLE cart_line ADD COLUMN variant_title text",
            ]),
        // Addresses of every country, orders' tax jurisdictions and carts' weights. SQLite's v20.
        Migration(identifier: "v20-regions", sql: RegionsMigration.statements),
        // The merchant's record of every product, whatever its status, and the history of its changes. SQLite's v21.
        Migration(
            identifier: "v21-catalog-editing",
            sql: [
                """
                CREATE TABLE catalog_product (
                    id text PRIMARY KEY,
                    position integer UNIQUE,
                    status text NOT NULL CHECK (status IN ('published', 'unpublished', 'archived')),
                    version integer NOT NULL CHECK (version >= 1),
                    document text NOT NULL,
                    updated_at double precision NOT NULL,
                    updated_by text NOT NULL
                )
                """,
                """
                CREATE TABLE catalog_edit (
                    sequence bigserial PRIMARY KEY,
                    product_id text NOT NULL,
                    version integer NOT NULL,
                    action text NOT NULL,
                    actor text NOT NULL,
                    at double precision NOT NULL,
                    document text NOT NULL
                )
                """,
                "CREATE INDEX catalog_edit_product ON catalog_edit (product_id, sequence)",
            ]),
        // Accounts apart from their ways in, every customer kept so far one of them. SQLite's v22.
        Migration(
            identifier: "v22-accounts", sql: AccountsMigration.schema + AccountsMigration.backfill + [AccountsMigration.sandboxEmails]),
        // Codes sent by email, as keyed hashes, and the requests counted for the hourly limits. SQLite's v23.
        Migration(identifier: "v23-sign-in-codes", sql: SignInCodesMigration.statements),
        // The accounts' signed-in sessions, as hashes of their secrets. SQLite's v24.
        Migration(identifier: "v24-account-sessions", sql: AccountSessionsMigration.statements),
        Migration(identifier: "v25-oidc-states", sql: AccountSessionsMigration.openIDStates),
        Migration(identifier: "v26-admins", sql: AdminsMigration.statements),
        Migration(identifier: "v27-terminal-sign-ins", sql: TerminalSignInsMigration.statements),
        Migration(identifier: "v28-discount-codes", sql: DiscountCodesMigration.statements),
        Migration(identifier: "v29-order-discounts", sql: OrderDiscountsMigration.statements),
        Migration(identifier: "v30-subscriptions", sql: SubscriptionsMigration.statements),
        Migration(identifier: "v31-product-subscriptions", sql: ProductSubscriptionMigration.statements),
        Migration(identifier: "v32-subscription-mail", sql: SubscriptionMailMigration.statements),
        // The browser session a tab's token ends with. SQLite's v33.
        Migration(identifier: "v33-token-sessions", sql: AccountSessionsMigration.tokenSessions),
        // Several codes in flight per email, wrong guesses counted across them. SQLite's v34.
        Migration(identifier: "v34-code-guesses", sql: SignInCodesMigration.guessesAcrossCodes),
        // How far the shop's clock runs ahead (`storefront clock`). SQLite's v35.
        Migration(identifier: "v35-shop-clock", sql: ShopClockMigration.statements),
    ]
}
