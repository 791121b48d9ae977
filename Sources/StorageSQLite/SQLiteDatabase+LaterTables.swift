import GRDB
import StorageRows

/// Tables and rules added after the first API release (migrations v12 on), kept apart from the first eleven.
extension SQLiteDatabase {
    /// The API's personal access tokens (the SHA-256 of each secret, never the secret) and its idempotency keys. The
    /// same in PostgreSQL's v12.
    static let apiTokenTable = """
        CREATE TABLE api_token (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            owner TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN ('shop', 'merchant')),
            secret_hash TEXT NOT NULL UNIQUE,
            last_four TEXT NOT NULL,
            created_at REAL NOT NULL,
            last_used_at REAL,
            revoked_at REAL
        );
        CREATE INDEX api_token_owner ON api_token(owner, created_at);
        CREATE TABLE api_idempotency (
            owner TEXT NOT NULL,
            key TEXT NOT NULL,
            request_hash TEXT NOT NULL,
            order_number TEXT,
            created_at REAL NOT NULL,
            PRIMARY KEY (owner, key)
        );
        """

    /// Stock counts held to whole numbers from 0 to 2^31-1, as PostgreSQL's `integer` columns hold them: SQLite would
    /// turn an overflowing `on_hand + n` into a REAL that no reader decodes. A column CHECK cannot be added to a table
    /// in SQLite, so triggers refuse the write instead.
    static let stockBounds = """
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
        """

    /// Idempotency keys of every POST, not only orders: each request's fingerprint, when it started, and its answer to
    /// send again. Keys filed before are dropped. The same in PostgreSQL's v14.
    static let replayTable = """
        DROP TABLE api_idempotency;
        CREATE TABLE api_idempotency (
            owner TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            started_at REAL NOT NULL,
            status INTEGER CHECK (status BETWEEN 100 AND 599),
            content_type TEXT,
            body BLOB,
            PRIMARY KEY (owner, key)
        );
        """

    /// The provider's verified events waiting to be applied: the provider is answered once one is kept here. The same
    /// in PostgreSQL's v16.
    static let providerEventInboxTable = """
        CREATE TABLE provider_event_inbox (
            provider TEXT NOT NULL,
            id TEXT NOT NULL,
            type TEXT NOT NULL,
            payload BLOB NOT NULL,
            received_at REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL NOT NULL,
            last_error TEXT,
            state TEXT NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'given-up')),
            PRIMARY KEY (provider, id)
        );
        CREATE INDEX provider_event_inbox_due ON provider_event_inbox(state, next_attempt_at);
        """

    /// The merchant's record of every product, whatever its status, and the history of its changes (v21).
    static let catalogEditingTables = """
        CREATE TABLE catalog_product (
            id TEXT PRIMARY KEY,
            position INTEGER UNIQUE,          -- the shop's order while published; NULL otherwise
            status TEXT NOT NULL CHECK (status IN ('published', 'unpublished', 'archived')),
            version INTEGER NOT NULL CHECK (version >= 1),
            document TEXT NOT NULL,           -- the catalog file's product object, without stock
            updated_at REAL NOT NULL,
            updated_by TEXT NOT NULL
        );
        CREATE TABLE catalog_edit (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            product_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            action TEXT NOT NULL,             -- create, update, publish, unpublish, archive, import
            actor TEXT NOT NULL,
            at REAL NOT NULL,
            document TEXT NOT NULL            -- the product as this change left it
        );
        CREATE INDEX catalog_edit_product ON catalog_edit (product_id, sequence);
        """
}

extension SQLiteDatabase {
    /// Schema steps v25 on, each the same statements as PostgreSQL's step of its name.
    static func registerLaterMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v25-oidc-states") { db in
            for statement in AccountSessionsMigration.openIDStates { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v26-admins") { db in try db.execute(sql: AdminsMigration.statements[0]) }
        migrator.registerMigration("v27-terminal-sign-ins") { db in
            for statement in TerminalSignInsMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v28-discount-codes") { db in
            for statement in DiscountCodesMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v29-order-discounts") { db in
            for statement in OrderDiscountsMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v30-subscriptions") { db in
            for statement in SubscriptionsMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v31-product-subscriptions") { db in
            for statement in ProductSubscriptionMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v32-subscription-mail") { db in
            for statement in SubscriptionMailMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v33-token-sessions") { db in
            for statement in AccountSessionsMigration.tokenSessions { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v34-code-guesses") { db in
            for statement in SignInCodesMigration.guessesAcrossCodes { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v35-shop-clock") { db in
            for statement in ShopClockMigration.statements { try db.execute(sql: statement) }
        }
    }
}
