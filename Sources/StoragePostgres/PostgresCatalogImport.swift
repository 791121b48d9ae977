import Foundation
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// The catalog on PostgreSQL, read by `SQLCatalogRepository`. Front ends only read it; `importCatalog` (the
/// `storefront catalog import` command) is the one writer, so two hosts never fight over it.
public enum PostgresCatalogImport {
    /// The catalog as last imported; `.noCatalog` before the first import.
    public static func open(database: PostgresDatabase) async throws(PostgresDatabaseError) -> SQLCatalogRepository {
        let meta: [String: String]
        do {
            meta = try await database.call { client in
                var meta: [String: String] = [:]
                for try await (key, value) in try await client.query("SELECT key, value FROM catalog_meta WHERE key IN ('store', 'product-count')")
                    .decode((String, String).self)
                {
                    meta[key] = value
                }
                return meta
            }
        } catch {
            throw error as? PostgresDatabaseError ?? .server(state: "", message: "\(error)")
        }
        guard let storeJSON = meta["store"], let shop = ShopProfile(storedJSON: storeJSON),
            let count = meta["product-count"].flatMap(Int.init)
        else { throw .noCatalog(location: database.location.description) }
        return SQLCatalogRepository(shop: shop, database: database, activeCount: count)
    }

    /// What an import did.
    public struct ImportSummary: Equatable, Sendable {
        /// Products in the file.
        public var products: Int
        /// Products that were not in the database before (their stock was set from the file).
        public var added: Int
        /// Products in the database that the file no longer lists (kept, out of the catalog).
        public var retired: Int
        /// False when the database already held this exact file.
        public var changed: Bool

        public init(products: Int, added: Int, retired: Int, changed: Bool) {
            self.products = products
            self.added = added
            self.retired = retired
            self.changed = changed
        }
    }

    /// Imports or updates the catalog in one transaction: names, texts and prices replaced, stock
    /// set only for products that first appear, products no longer listed kept out of the catalog.
    public static func importCatalog(
        _ catalog: Catalog, pictures: [StoredPicture] = [], contentHash: String, into database: PostgresDatabase
    ) async throws(PostgresDatabaseError) -> ImportSummary {
        let products = catalog.products
        do {
            return try await database.transaction(timeout: .seconds(600)) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(SQLCatalogEditor.catalogLock))", logger: PostgresDatabase.quiet)
                let previous = try await connection.query("SELECT value FROM catalog_meta WHERE key = 'content-hash'", logger: PostgresDatabase.quiet)
                    .collect().first?.decode(String.self)
                if previous == contentHash {
                    return ImportSummary(products: products.count, added: 0, retired: 0, changed: false)
                }
                try await database.blockingThreads.runIfActive {
                    try PicturesMigration.insert(pictures, on: BlockingPostgresConnection(connection: connection))
                    try SQLCatalogEditor.followFile(catalog, at: Date(), on: BlockingPostgresConnection(connection: connection))
                }
                return try await write(catalog, contentHash: contentHash, on: connection)
            }
        } catch {
            throw error as? PostgresDatabaseError ?? .server(state: "", message: "\(error)")
        }
    }

    /// Writes `catalog` as the shop's catalog on `connection`, in its transaction, which holds the catalog's lock: the
    /// file's hash kept when it came from one.
    static func write(_ catalog: Catalog, contentHash: String?, on connection: PostgresConnection) async throws -> ImportSummary {
        let storeJSON = catalog.shop.storedJSON
        let products = catalog.products
        let before =
            try await connection.query("SELECT count(*) FROM product", logger: PostgresDatabase.quiet).collect().first?.decode(Int.self) ?? 0
        try await connection.query("UPDATE product SET position = NULL WHERE position IS NOT NULL", logger: PostgresDatabase.quiet)
        // Variants are replaced whole (a product that left the catalog is never shown, so it needs none); their
        // stock, like a product's, is kept.
        try await connection.query("DELETE FROM product_variant", logger: PostgresDatabase.quiet)
        var position = 0
        for chunk in products.chunks(of: 1_000) {
            try await upsert(chunk, firstPosition: position, on: connection)
            position += chunk.count
        }
        let after = try await connection.query("SELECT count(*) FROM product", logger: PostgresDatabase.quiet).collect().first?.decode(Int.self) ?? 0
        let retired =
            try await connection.query("SELECT count(*) FROM product WHERE position IS NULL", logger: PostgresDatabase.quiet).collect().first?
            .decode(Int.self) ?? 0
        var meta = [("store", storeJSON), ("product-count", String(products.count))]
        if let contentHash { meta.append(("content-hash", contentHash)) }
        for (key, value) in meta {
            try await connection.query(
                """
                INSERT INTO catalog_meta (key, value) VALUES (\(key), \(value))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, logger: PostgresDatabase.quiet)
        }
        // Fresh statistics before any front end reads: without them the planner guessed a
        // hash join over all of stock for a 20-row window (14 ms at 100,000 products, not 0.1).
        try await connection.query("ANALYZE product, stock", logger: PostgresDatabase.quiet)
        return ImportSummary(products: products.count, added: after - before, retired: retired, changed: true)
    }

    /// One statement per thousand products: the rows travel as arrays and `unnest` turns them back into rows.
    private static func upsert(_ products: ArraySlice<Product>, firstPosition: Int, on connection: PostgresConnection) async throws {
        let ids = products.map(\.id.rawValue)
        let positions = products.indices.map { $0 - products.startIndex + firstPosition }
        let names = products.map(\.name)
        let summaries = products.map(\.summary)
        let descriptions = products.map(\.description)
        let prices = products.map(\.price.minorUnits)
        let art = products.map { $0.art.joined(separator: "\n") }
        let tags = products.map { $0.tags.joined(separator: "\n") }
        let words = products.map { product in
            var seen: Set<String> = []
            return SearchWords.words(in: ([product.name, product.summary] + product.tags).joined(separator: " "))
                .filter { seen.insert($0).inserted }.joined(separator: " ")
        }
        let options = try products.map { try StoredVariants.options($0.options) }
        let weeks = products.map { ProductSubscriptionMigration.stored($0.subscriptionWeeks) }
        let pictures = products.map { PicturesMigration.stored($0.pictures) }
        try await connection.query(
            """
            INSERT INTO product (id, position, name, summary, description, price, art, tags, search, options, subscription_weeks, pictures)
            SELECT id, position, name, summary, description, price, art, tags,
                   array_to_tsvector(coalesce(string_to_array(nullif(words, ''), ' '), '{}')), options, weeks, pictures
            FROM unnest(\(ids)::text[], \(positions)::int8[], \(names)::text[], \(summaries)::text[], \(descriptions)::text[],
                        \(prices)::int8[], \(art)::text[], \(tags)::text[], \(words)::text[], \(options)::text[], \(weeks)::text[],
                        \(pictures)::text[])
                 AS t (id, position, name, summary, description, price, art, tags, words, options, weeks, pictures)
            ON CONFLICT (id) DO UPDATE SET position = excluded.position, name = excluded.name, summary = excluded.summary,
                description = excluded.description, price = excluded.price, art = excluded.art, tags = excluded.tags,
                search = excluded.search, options = excluded.options, subscription_weeks = excluded.subscription_weeks,
                pictures = excluded.pictures
            """, logger: PostgresDatabase.quiet)
        let variants = products.flatMap { product in product.variants.enumerated().map { (product.id.rawValue, $0, $1) } }
        if !variants.isEmpty {
            try await connection.query(
                """
                INSERT INTO product_variant (sku, product_id, position, option_values, title, price, grams, pictures)
                SELECT sku, product_id, position, option_values, title, price, nullif(grams, 0), pictures  -- 0: no weight given
                FROM unnest(\(variants.map(\.2.sku.rawValue))::text[], \(variants.map(\.0))::text[], \(variants.map(\.1))::int8[],
                    \(variants.map { $0.2.values.joined(separator: "\n") })::text[], \(variants.map(\.2.title))::text[],
                    \(variants.map(\.2.price.minorUnits))::int8[], \(variants.map { $0.2.grams ?? 0 })::int8[],
                    \(variants.map { PicturesMigration.stored($0.2.pictures) })::text[])
                    AS t (sku, product_id, position, option_values, title, price, grams, pictures)
                """, logger: PostgresDatabase.quiet)
        }
        // Stock is set once, when a product or variant first appears: a changed catalog keeps what was sold.
        let stock = products.flatMap(StoredVariants.stockKeys(of:))
        try await connection.query(
            """
            INSERT INTO stock (product_id, on_hand)
            SELECT * FROM unnest(\(stock.map(\.0.rawValue))::text[], \(stock.map { $0.1 ?? SQLCatalogRepository.defaultStock })::int8[])
            ON CONFLICT (product_id) DO NOTHING
            """, logger: PostgresDatabase.quiet)
    }
}

extension Array {
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
