/// The shop's schema, every step in order, written once for SQLite and PostgreSQL.
///
/// A step, once shipped, is never edited: changes are new steps. Each database records a step under its own name
/// (`grdb_migrations`, `storefront_migrations`); PostgreSQL began at SQLite's v5, so its "v1-shop" holds SQLite's first
/// five steps and its v17, and SQLite's v13 (stock bounds by trigger) is SQLite's alone.
public enum Schema {
    public enum Dialect: Sendable { case sqlite, postgres }

    /// One statement: both databases', with the few words they spell differently in braces (`Dialect.spell`), or one
    /// database's own where they differ (search, sequences, triggers).
    public enum Statement: Sendable {
        case both(String)
        case sqlite(String)
        case postgres(String)
    }

    /// One step: the name each database records it under (nil where it is the other's alone), and its statements.
    public struct Step: Sendable {
        public var sqlite: String?
        public var postgres: String?
        public var statements: [Statement]

        init(_ name: String, postgres: String? = nil, sqliteOnly: Bool = false, _ statements: [Statement]) {
            sqlite = name
            self.postgres = sqliteOnly ? nil : postgres ?? name
            self.statements = statements
        }

        /// A step whose statements are the same on both.
        init(_ name: String, postgres: String? = nil, both statements: [String]) {
            self.init(name, postgres: postgres, statements.map(Statement.both))
        }

        /// The step's SQL as `dialect` runs it.
        public func sql(for dialect: Dialect) -> [String] {
            statements.compactMap { statement in
                switch (statement, dialect) {
                case (.both(let sql), _): dialect.spell(sql)
                case (.sqlite(let sql), .sqlite), (.postgres(let sql), .postgres): sql
                case (.sqlite, .postgres), (.postgres, .sqlite): nil
                }
            }
        }
    }

    /// The steps `dialect` records, in order, each with its SQL, worked out once a process: steps recorded under one
    /// name (PostgreSQL's "v1-shop") are one, in the order the steps come.
    public static func migrations(for dialect: Dialect) -> [(name: String, sql: [String])] {
        dialect == .sqlite ? sqliteMigrations : postgresMigrations
    }

    private static let sqliteMigrations = grouped(for: .sqlite)
    private static let postgresMigrations = grouped(for: .postgres)

    private static func grouped(for dialect: Dialect) -> [(name: String, sql: [String])] {
        var names: [String] = []
        var sql: [String: [String]] = [:]
        for step in steps {
            guard let name = dialect == .sqlite ? step.sqlite : step.postgres else { continue }
            if sql[name] == nil { names.append(name) }
            sql[name, default: []] += step.sql(for: dialect)
        }
        return names.map { ($0, sql[$0] ?? []) }
    }

    public static let steps: [Step] =
        earlySteps + [
            // Addresses of every country, orders' tax jurisdictions and carts' weights.
            Step("v20-regions", both: RegionsMigration.statements),
            Step("v21-catalog-editing", both: catalogEditing),
            // Accounts apart from their ways in, every customer kept so far one of them.
            Step("v22-accounts", both: AccountsMigration.schema + AccountsMigration.backfill + [AccountsMigration.sandboxEmails]),
            // Codes sent by email, as keyed hashes, and the requests counted for the hourly limits.
            Step("v23-sign-in-codes", both: SignInCodesMigration.statements),
            // The accounts' logins, as hashes of their secrets.
            Step("v24-account-sessions", both: LoginsMigration.statements),
            Step("v25-oidc-states", both: LoginsMigration.openIDStates),
            Step("v26-admins", both: AdminsMigration.statements),
            Step("v27-terminal-sign-ins", both: TerminalSignInsMigration.statements),
            Step("v28-discount-codes", both: DiscountCodesMigration.statements),
            Step("v29-order-discounts", both: OrderDiscountsMigration.statements),
            Step("v30-subscriptions", both: SubscriptionsMigration.statements),
            Step("v31-product-subscriptions", both: ProductSubscriptionMigration.statements),
            Step("v32-subscription-mail", both: SubscriptionMailMigration.statements),
            // The browser session a tab's token ends with.
            Step("v33-token-sessions", both: LoginsMigration.tokenSessions),
            // Several codes in flight per email, wrong guesses counted across them.
            Step("v34-code-guesses", both: SignInCodesMigration.guessesAcrossCodes),
            // How far the shop's clock runs ahead (`storefront clock`).
            Step("v35-shop-clock", both: ShopClockMigration.statements),
            // Whether an order is a subscription's renewal, for its receipt and the merchant's lists.
            Step("v36-order-renewal", both: ["ALTER TABLE orders ADD COLUMN renewal {bool} NOT NULL DEFAULT {false}"]),
            // An order sold in a market's currency keeps the rate, its day, and its total in the shop's own currency.
            Step(
                "v37-order-exchange",
                both: [
                    "ALTER TABLE orders ADD COLUMN exchange_rate TEXT", "ALTER TABLE orders ADD COLUMN rates_day TEXT",
                    "ALTER TABLE orders ADD COLUMN base_total {bigint}",
                ]),
            // The locale each order was bought in, for its mails (a subscription keeps its own in its document).
            Step("v38-order-language", both: ["ALTER TABLE orders ADD COLUMN language TEXT"]),
            // The language an account chose with the language key, which its sessions open in.
            Step("v39-account-language", both: ["ALTER TABLE account ADD COLUMN language TEXT"]),
            // The notes merchants write on customers' pages, numbered per customer.
            Step(
                "v40-customer-notes",
                both: [
                    """
                    CREATE TABLE customer_note (
                        customer TEXT NOT NULL,
                        sequence INTEGER NOT NULL,
                        at DOUBLE PRECISION NOT NULL,
                        author TEXT NOT NULL,
                        text TEXT NOT NULL,
                        PRIMARY KEY (customer, sequence)
                    )
                    """
                ]),
            Step("v41-pictures", both: PicturesMigration.statements),
        ]

    /// The merchant's record of every product, whatever its status, and the history of its changes (v21).
    static let catalogEditing = [
        """
        CREATE TABLE catalog_product (
            id TEXT PRIMARY KEY,
            position INTEGER UNIQUE,          -- the shop's order while published; NULL otherwise
            status TEXT NOT NULL CHECK (status IN ('published', 'unpublished', 'archived')),
            version INTEGER NOT NULL CHECK (version >= 1),
            document TEXT NOT NULL,           -- the catalog file's product object, without stock
            updated_at {real} NOT NULL,
            updated_by TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE catalog_edit (
            sequence {serial},
            product_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            action TEXT NOT NULL,             -- create, update, publish, unpublish, archive, import
            actor TEXT NOT NULL,
            at {real} NOT NULL,
            document TEXT NOT NULL            -- the product as this change left it
        )
        """,
        "CREATE INDEX catalog_edit_product ON catalog_edit (product_id, sequence)",
    ]
}

extension Schema.Dialect {
    /// The words the two spell differently: `{real}` (a double), `{bigint}`, `{bool}`, `{false}`, `{blob}`, `{serial}`
    /// (a primary key the database counts), `{json_object}` and `{without_rowid}` (SQLite's table kept in its key's order).
    private static let words: [String: (sqlite: String, postgres: String)] = [
        "{real}": ("REAL", "double precision"), "{bigint}": ("INTEGER", "bigint"), "{bool}": ("INTEGER", "boolean"), "{false}": ("0", "false"),
        "{blob}": ("BLOB", "bytea"), "{serial}": ("INTEGER PRIMARY KEY AUTOINCREMENT", "bigserial PRIMARY KEY"),
        "{json_object}": ("json_object", "json_build_object"), "{without_rowid}": (" WITHOUT ROWID", ""),
    ]

    /// `sql` with each word in braces written in this database's spelling, in one pass; other braces (`'{}'`) stay.
    func spell(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "{")) else { return sql }
        var spelled = ""
        var rest = sql[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            spelled += rest[..<open]
            let word = String(rest[open...close])
            spelled += Self.words[word].map { self == .sqlite ? $0.sqlite : $0.postgres } ?? word
            rest = rest[rest.index(after: close)...]
        }
        return spelled + rest
    }
}
