import Logging
import PostgresNIO

extension PostgresDatabase {
    /// One schema step: its name, recorded in `storefront_migrations`, and its SQL.
    struct Migration: Sendable {
        var identifier: String
        var sql: [String]
    }

    /// Every schema step, in order. A step, once shipped, is never edited: changes are new steps.
    ///
    /// The tables are SQLite's (migrations v1–v10 of `SQLiteDatabase`) in PostgreSQL's types, with
    /// one difference: search is a `tsvector` of the words SQLite's FTS5 index holds, under a GIN index.
    static let migrations: [Migration] =
        [
            Migration(
                identifier: "v1-shop",
                sql: [
                    """
                    CREATE TABLE catalog_meta (
                        key text PRIMARY KEY,
                        value text NOT NULL
                    )
                    """,
                    """
                    CREATE TABLE product (
                        id text PRIMARY KEY,
                        position integer UNIQUE,          -- catalog order; NULL once gone from the catalog
                        name text NOT NULL,
                        summary text NOT NULL,
                        description text NOT NULL,
                        price bigint NOT NULL CHECK (price >= 0),
                        art text NOT NULL,                -- lines joined by newlines
                        tags text NOT NULL,               -- joined by newlines
                        search tsvector NOT NULL          -- the folded words of name, summary and tags
                    )
                    """,
                    "CREATE INDEX product_search ON product USING gin (search)",
                    """
                    -- on_hand + reserved + sold is the stock the shop started with (plus restocks).
                    CREATE TABLE stock (
                        product_id text PRIMARY KEY,
                        on_hand integer NOT NULL CHECK (on_hand >= 0),
                        reserved integer NOT NULL DEFAULT 0 CHECK (reserved >= 0),
                        sold integer NOT NULL DEFAULT 0 CHECK (sold >= 0)
                    )
                    """,
                    "CREATE SEQUENCE order_sequence",
                    """
                    CREATE TABLE orders (
                        number text PRIMARY KEY,
                        sequence bigint NOT NULL UNIQUE,
                        idempotency_key text NOT NULL UNIQUE,
                        status text NOT NULL,
                        placed_at double precision NOT NULL,
                        currency text NOT NULL,
                        subtotal bigint NOT NULL,
                        shipping bigint NOT NULL,
                        tax bigint NOT NULL,
                        token_id text NOT NULL,
                        payment_description text NOT NULL,
                        shipping_method text NOT NULL,
                        ship_to text NOT NULL,
                        failure text,
                        customer text NOT NULL DEFAULT '',
                        -- A real provider's id for the payment, written before it is confirmed; 'void' once the settlement claimed it.
                        payment_reference text
                    )
                    """,
                    "CREATE INDEX orders_by_customer ON orders (customer, sequence DESC)",
                    "CREATE INDEX orders_open ON orders (sequence) WHERE status IN ('charging', 'unknown')",
                    """
                    CREATE TABLE order_line (
                        order_number text NOT NULL REFERENCES orders (number),
                        position integer NOT NULL,
                        product_id text NOT NULL,
                        name text NOT NULL,
                        unit_price bigint NOT NULL,
                        quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                        PRIMARY KEY (order_number, position)
                    )
                    """,
                    """
                    -- The sandbox provider's own records, standing in for a real provider's.
                    CREATE TABLE sandbox_charge (
                        idempotency_key text PRIMARY KEY,
                        token_id text NOT NULL,
                        amount bigint NOT NULL,
                        currency text NOT NULL,
                        outcome text NOT NULL
                    )
                    """,
                    """
                    CREATE TABLE cart_line (
                        customer text NOT NULL,
                        position integer NOT NULL,
                        product_id text NOT NULL,
                        name text NOT NULL,
                        unit_price bigint NOT NULL,
                        currency text NOT NULL,
                        quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                        PRIMARY KEY (customer, position)
                    )
                    """,
                    """
                    -- Cards keep only what is needed to show and charge them: never a full number or a CVC.
                    CREATE TABLE wallet_card (
                        customer text NOT NULL,
                        id text NOT NULL,
                        token text NOT NULL,
                        network text NOT NULL,
                        last_four text NOT NULL CHECK (length(last_four) = 4),
                        expiry_month integer NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
                        expiry_year integer NOT NULL,
                        is_default boolean NOT NULL DEFAULT false,
                        added integer NOT NULL DEFAULT 0,
                        PRIMARY KEY (customer, id)
                    )
                    """,
                    """
                    CREATE TABLE address (
                        customer text NOT NULL,
                        id text NOT NULL,
                        name text NOT NULL,
                        street text NOT NULL,
                        city text NOT NULL,
                        postal_code text NOT NULL,
                        country text NOT NULL,
                        email text NOT NULL,
                        phone text NOT NULL,
                        is_default boolean NOT NULL DEFAULT false,
                        added integer NOT NULL DEFAULT 0,
                        PRIMARY KEY (customer, id)
                    )
                    """,
                    """
                    -- The name and email an identity provider gave on the first sign-in.
                    CREATE TABLE account (
                        customer text PRIMARY KEY,
                        name text,
                        email text
                    )
                    """,
                    """
                    -- The sandbox identity provider's own records, standing in for a real provider's.
                    CREATE TABLE sandbox_id_user (
                        id text PRIMARY KEY,
                        email text NOT NULL UNIQUE,
                        revoked boolean NOT NULL DEFAULT false
                    )
                    """,
                    """
                    CREATE TABLE sandbox_id_refresh (
                        token_hash text PRIMARY KEY,
                        user_id text NOT NULL REFERENCES sandbox_id_user (id),
                        expires_at double precision NOT NULL
                    )
                    """,
                    """
                    -- A real provider's id for each shop customer, per provider account ('stripe:test', 'stripe:live').
                    CREATE TABLE provider_customer (
                        customer text NOT NULL,
                        account text NOT NULL,
                        reference text NOT NULL,
                        PRIMARY KEY (customer, account)
                    )
                    """,
                ]),
            Migration(
                identifier: "v6-shop-install",
                sql: [
                    """
                    -- This shop's own id, made once with its database; the keys it sends a payment provider carry it.
                    CREATE TABLE shop_install (
                        singleton integer PRIMARY KEY CHECK (singleton = 1),
                        id text NOT NULL
                    )
                    """,
                    "INSERT INTO shop_install (singleton, id) VALUES (1, md5(random()::text || clock_timestamp()::text))",
                ]),
            // "canceled" now means a paid order canceled (and refunded); an attempt settled as never charged is "voided".
            Migration(identifier: "v7-voided-attempts", sql: ["UPDATE orders SET status = 'voided' WHERE status = 'canceled'"]),
        ] + orderHistoryMigrations

    /// A constant for `pg_advisory_xact_lock`, so two hosts starting at once migrate one after the other.
    static let migrationLock: Int64 = 0x5354_4F52_4546_524E

    /// Applies the steps this database lacks, all in one transaction; refuses a database a
    /// newer storefront wrote. Returns the steps it applied.
    @discardableResult
    public func migrate() async throws(PostgresDatabaseError) -> [String] {
        let migrations = Self.migrations
        let location = location.description
        do {
            return try await call(timeout: .seconds(120)) { client in
                try await client.withTransaction(logger: Self.quiet) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: Self.quiet)
                    try await connection.query(
                        "CREATE TABLE IF NOT EXISTS storefront_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                        logger: Self.quiet)
                    let applied = try await Self.appliedMigrations(connection)
                    let unknown = applied.subtracting(migrations.map(\.identifier))
                    guard unknown.isEmpty else { throw PostgresDatabaseError.newerSchema(location: location, unknownMigrations: unknown.sorted()) }
                    var done: [String] = []
                    for migration in migrations where !applied.contains(migration.identifier) {
                        for statement in migration.sql { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.quiet) }
                        try await connection.query(
                            "INSERT INTO storefront_migrations (identifier) VALUES (\(migration.identifier))", logger: Self.quiet)
                        done.append(migration.identifier)
                    }
                    return done
                }
            }
        } catch {
            throw error as? PostgresDatabaseError ?? .server(state: "", message: "\(error)")
        }
    }

    /// Refuses a database this version cannot use: a newer schema, or one not migrated yet. Writes nothing.
    public func checkSchema() async throws(PostgresDatabaseError) {
        let migrations = Self.migrations.map(\.identifier)
        let location = location.description
        let applied: Set<String>
        do {
            applied = try await call { client in
                try await client.withConnection { connection in
                    let exists =
                        try await connection.query("SELECT to_regclass('storefront_migrations') IS NOT NULL", logger: Self.quiet).collect().first?
                        .decode(Bool.self) ?? false
                    return exists ? try await Self.appliedMigrations(connection) : []
                }
            }
        } catch {
            throw error as? PostgresDatabaseError ?? .server(state: "", message: "\(error)")
        }
        let unknown = applied.subtracting(migrations)
        guard unknown.isEmpty else { throw .newerSchema(location: location, unknownMigrations: unknown.sorted()) }
        let missing = migrations.filter { !applied.contains($0) }
        guard missing.isEmpty else { throw .notMigrated(location: location, missing: missing) }
    }

    private static func appliedMigrations(_ connection: PostgresConnection) async throws -> Set<String> {
        var applied: Set<String> = []
        for try await identifier in try await connection.query("SELECT identifier FROM storefront_migrations", logger: quiet).decode(String.self) {
            applied.insert(identifier)
        }
        return applied
    }

    /// A logger that drops everything: the driver's per-query lines would only repeat what the database's errors say.
    public static let quiet = Logger(label: "storefront.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}
