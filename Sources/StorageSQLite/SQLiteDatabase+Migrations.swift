import GRDB
import ShopModels
import StorageRows

extension SQLiteDatabase {
    /// Every schema step, in order. A step, once shipped, is never edited: changes are new steps.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-catalog") { db in
            try db.execute(
                sql: """
                    CREATE TABLE catalog_meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    );
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
                    """)
        }
        migrator.registerMigration("v2-stock-orders-payments") { db in
            try db.execute(
                sql: """
                    -- on_hand + reserved + sold is the stock the shop started with (plus restocks).
                    CREATE TABLE stock (
                        product_id TEXT PRIMARY KEY NOT NULL,
                        on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
                        reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
                        sold INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0)
                    );
                    CREATE TABLE orders (
                        number TEXT PRIMARY KEY NOT NULL,
                        sequence INTEGER NOT NULL UNIQUE,
                        idempotency_key TEXT NOT NULL UNIQUE,
                        status TEXT NOT NULL,
                        placed_at REAL NOT NULL,
                        currency TEXT NOT NULL,
                        subtotal INTEGER NOT NULL,
                        shipping INTEGER NOT NULL,
                        tax INTEGER NOT NULL,
                        token_id TEXT NOT NULL,
                        payment_description TEXT NOT NULL,
                        shipping_method TEXT NOT NULL,
                        ship_to TEXT NOT NULL,
                        failure TEXT
                    );
                    CREATE INDEX orders_by_sequence ON orders(sequence DESC);
                    CREATE TABLE order_line (
                        order_number TEXT NOT NULL REFERENCES orders(number),
                        position INTEGER NOT NULL,
                        product_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        unit_price INTEGER NOT NULL,
                        quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                        PRIMARY KEY (order_number, position)
                    );
                    -- The sandbox provider's own records, standing in for a real provider's.
                    CREATE TABLE sandbox_charge (
                        idempotency_key TEXT PRIMARY KEY NOT NULL,
                        token_id TEXT NOT NULL,
                        amount INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        outcome TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v3-carts-wallets-addresses") { db in
            try db.execute(
                sql: """
                    CREATE TABLE cart_line (
                        customer TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        product_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        unit_price INTEGER NOT NULL,
                        currency TEXT NOT NULL,
                        quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                        PRIMARY KEY (customer, position)
                    );
                    -- Cards keep only what is needed to show and charge them: never a full number or a CVC.
                    CREATE TABLE wallet_card (
                        customer TEXT NOT NULL,
                        id TEXT NOT NULL,
                        token TEXT NOT NULL,
                        network TEXT NOT NULL,
                        last_four TEXT NOT NULL CHECK (length(last_four) = 4),
                        expiry_month INTEGER NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
                        expiry_year INTEGER NOT NULL,
                        is_default INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (customer, id)
                    );
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
                        is_default INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (customer, id)
                    );
                    """)
        }
        migrator.registerMigration("v4-accounts") { db in
            try db.execute(
                sql: """
                    -- Orders placed before accounts existed belong to no one ('') and are listed only by `storefront orders`.
                    ALTER TABLE orders ADD COLUMN customer TEXT NOT NULL DEFAULT '';
                    CREATE INDEX orders_by_customer ON orders(customer, sequence DESC);
                    ALTER TABLE wallet_card ADD COLUMN added INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE address ADD COLUMN added INTEGER NOT NULL DEFAULT 0;
                    -- The name and email an identity provider gave on the first sign-in.
                    CREATE TABLE account (
                        customer TEXT PRIMARY KEY NOT NULL,
                        name TEXT,
                        email TEXT
                    );
                    -- The sandbox identity provider's own records, standing in for a real provider's.
                    CREATE TABLE sandbox_id_user (
                        id TEXT PRIMARY KEY NOT NULL,
                        email TEXT NOT NULL UNIQUE,
                        revoked INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE sandbox_id_refresh (
                        token_hash TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES sandbox_id_user(id),
                        expires_at REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v5-provider-references") { db in
            try db.execute(
                sql: """
                    -- A real provider's id for the order's payment (a Stripe PaymentIntent), written before it is
                    -- confirmed; 'void' when the start-up settlement claimed the order as never charged.
                    ALTER TABLE orders ADD COLUMN payment_reference TEXT;
                    -- A real provider's id for each shop customer, per provider account ('stripe:test', 'stripe:live').
                    CREATE TABLE provider_customer (
                        customer TEXT NOT NULL,
                        account TEXT NOT NULL,
                        reference TEXT NOT NULL,
                        PRIMARY KEY (customer, account)
                    );
                    """)
        }
        migrator.registerMigration("v6-shop-install") { db in
            try db.execute(
                sql: """
                    -- This shop's own id, made once with its database; the keys it sends a payment provider carry it.
                    CREATE TABLE shop_install (
                        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                        id TEXT NOT NULL
                    );
                    INSERT INTO shop_install (singleton, id) VALUES (1, lower(hex(randomblob(16))));
                    """)
        }
        migrator.registerMigration("v7-voided-attempts") { db in
            // "canceled" now means a paid order canceled (and refunded); an attempt settled as never charged is "voided".
            try db.execute(sql: "UPDATE orders SET status = 'voided' WHERE status = 'canceled'")
        }
        migrator.registerMigration("v8-order-events") { db in
            try db.execute(
                sql: """
                    -- Each order's history: written in the same transaction as each change, never updated or deleted.
                    CREATE TABLE order_event (
                        order_number TEXT NOT NULL REFERENCES orders(number),
                        sequence INTEGER NOT NULL,
                        at REAL NOT NULL,
                        actor TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        details TEXT NOT NULL DEFAULT '{}',
                        PRIMARY KEY (order_number, sequence)
                    );
                    CREATE TRIGGER order_event_no_update BEFORE UPDATE ON order_event
                    BEGIN SELECT RAISE(ABORT, 'order_event is append-only'); END;
                    CREATE TRIGGER order_event_no_delete BEFORE DELETE ON order_event
                    BEGIN SELECT RAISE(ABORT, 'order_event is append-only'); END;
                    -- Orders placed before the history began get it from what their row says: placed, then settled.
                    INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                    SELECT number, 1, placed_at, 'shopper:' || customer, 'placed',
                           json_object('total', subtotal + shipping + tax, 'currency', currency)
                    FROM orders;
                    INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                    SELECT number, 2, placed_at, CASE status WHEN 'paid' THEN 'provider' WHEN 'declined' THEN 'provider' ELSE 'system' END,
                           CASE status WHEN 'paid' THEN 'charged' WHEN 'declined' THEN 'declined' WHEN 'voided' THEN 'voided' ELSE 'unanswered' END,
                           CASE status WHEN 'declined' THEN json_object('reason', coalesce(failure, '')) ELSE '{}' END
                    FROM orders WHERE status IN ('paid', 'declined', 'voided', 'unknown');
                    """)
        }
        migrator.registerMigration("v9-refunds") { db in
            try db.execute(sql: Self.refundTable)
        }
        migrator.registerMigration("v10-outbox") { db in
            try db.execute(sql: Self.outboxTable)
        }
        migrator.registerMigration("v11-provider-events") { db in
            try db.execute(sql: Self.providerEventTable)
        }
        migrator.registerMigration("v12-api-tokens") { db in
            try db.execute(sql: Self.apiTokenTable)
        }
        migrator.registerMigration("v13-stock-bounds") { db in
            try db.execute(sql: Self.stockBounds)
        }
        migrator.registerMigration("v14-api-replay") { db in
            try db.execute(sql: Self.replayTable)
        }
        migrator.registerMigration("v15-refund-claims") { db in
            // When a recovery last took a pending refund to ask the provider again; PostgreSQL's v15 the same.
            try db.execute(sql: "ALTER TABLE refund ADD COLUMN claimed_at REAL")
        }
        migrator.registerMigration("v16-provider-event-inbox") { db in
            try db.execute(sql: Self.providerEventInboxTable)
        }
        migrator.registerMigration("v17-open-orders-index") { db in
            // PostgreSQL's index of open orders since its v1; the index on sequence alone repeated its UNIQUE one.
            try db.execute(
                sql: """
                    DROP INDEX orders_by_sequence;
                    CREATE INDEX orders_open ON orders(sequence) WHERE status IN ('charging', 'unknown');
                    """)
        }
        migrator.registerMigration("v18-shipping-method-id") { db in
            // Which of the catalog's shipping methods an order took, beside its label; PostgreSQL's v18.
            try db.execute(sql: "ALTER TABLE orders ADD COLUMN shipping_method_id TEXT NOT NULL DEFAULT ''")
        }
        migrator.registerMigration("v19-variants") { db in
            // Options and variants: each variant's stock is kept in `stock` under its SKU. PostgreSQL's v19.
            try db.execute(
                sql: """
                    ALTER TABLE product ADD COLUMN options TEXT NOT NULL DEFAULT '';  -- JSON [{name, values}]; '' for none
                    -- Keyed by product, without a rowid: a page's variants are read from one place in the tree each.
                    CREATE TABLE product_variant (
                        product_id TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        sku TEXT NOT NULL UNIQUE,
                        option_values TEXT NOT NULL,      -- one value per option, joined by newlines
                        title TEXT NOT NULL,              -- the values as shown: "Whole bean · 1 kg"
                        price INTEGER NOT NULL CHECK (price >= 0),
                        grams INTEGER,
                        PRIMARY KEY (product_id, position)
                    ) WITHOUT ROWID;
                    ALTER TABLE order_line ADD COLUMN variant_sku TEXT;
                    ALTER TABLE order_line ADD COLUMN variant_title TEXT;
                    ALTER TABLE cart_line ADD COLUMN variant_sku TEXT;
                    ALTER TABLE cart_line ADD COLUMN variant_title TEXT;
                    """)
        }
        migrator.registerMigration("v20-regions") { db in
            // Addresses of every country, orders' tax jurisdictions and carts' weights. PostgreSQL's v20.
            for statement in RegionsMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v21-catalog-editing") { db in
            // The merchant's record of every product, whatever its status, and the history of its changes. PostgreSQL's v21.
            try db.execute(sql: Self.catalogEditingTables)
        }
        migrator.registerMigration("v22-accounts") { db in
            // Accounts apart from their ways in, every customer kept so far one of them. PostgreSQL's v22.
            for statement in AccountsMigration.schema + AccountsMigration.backfill + [AccountsMigration.sandboxEmails] {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v23-sign-in-codes") { db in
            for statement in SignInCodesMigration.statements { try db.execute(sql: statement) }
        }
        migrator.registerMigration("v24-account-sessions") { db in
            // The accounts' signed-in sessions, as hashes of their secrets. PostgreSQL's v24.
            for statement in AccountSessionsMigration.statements { try db.execute(sql: statement) }
        }
        registerLaterMigrations(&migrator)
        return migrator
    }
}
