import Foundation
import LiveObjects
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// The catalog served from PostgreSQL. Front ends only read it; `importCatalog` (the
/// `storefront catalog import` command) is the one writer, so two hosts never fight over it.
public final class PostgresCatalogRepository: CatalogRepository {
    public let shop: ShopProfile
    private let database: PostgresDatabase
    private let activeCount: Int
    /// Units of a product whose catalog entry names no stock (as on SQLite).
    public static let defaultStock = 25
    private static let columns = "p.id, p.name, p.summary, p.description, p.price, p.art, p.tags, s.on_hand, p.options, p.subscription_weeks"
    private static let stockJoin = "LEFT JOIN stock s ON s.product_id = p.id"

    private init(shop: ShopProfile, database: PostgresDatabase, activeCount: Int) {
        self.shop = shop
        self.database = database
        self.activeCount = activeCount
    }

    /// The catalog as last imported; `.noCatalog` before the first import.
    public static func open(database: PostgresDatabase) async throws(PostgresDatabaseError) -> PostgresCatalogRepository {
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
        return PostgresCatalogRepository(shop: shop, database: database, activeCount: count)
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
    public static func importCatalog(_ catalog: Catalog, contentHash: String, into database: PostgresDatabase) async throws(PostgresDatabaseError)
        -> ImportSummary
    {
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
        try await connection.query(
            """
            INSERT INTO product (id, position, name, summary, description, price, art, tags, search, options, subscription_weeks)
            SELECT id, position, name, summary, description, price, art, tags,
                   array_to_tsvector(coalesce(string_to_array(nullif(words, ''), ' '), '{}')), options, weeks
            FROM unnest(\(ids)::text[], \(positions)::int8[], \(names)::text[], \(summaries)::text[], \(descriptions)::text[],
                        \(prices)::int8[], \(art)::text[], \(tags)::text[], \(words)::text[], \(options)::text[], \(weeks)::text[])
                 AS t (id, position, name, summary, description, price, art, tags, words, options, weeks)
            ON CONFLICT (id) DO UPDATE SET position = excluded.position, name = excluded.name, summary = excluded.summary,
                description = excluded.description, price = excluded.price, art = excluded.art, tags = excluded.tags,
                search = excluded.search, options = excluded.options, subscription_weeks = excluded.subscription_weeks
            """, logger: PostgresDatabase.quiet)
        let variants = products.flatMap { product in product.variants.enumerated().map { (product.id.rawValue, $0, $1) } }
        if !variants.isEmpty {
            try await connection.query(
                """
                INSERT INTO product_variant (sku, product_id, position, option_values, title, price, grams)
                SELECT sku, product_id, position, option_values, title, price, nullif(grams, 0)  -- 0: no weight given
                FROM unnest(\(variants.map(\.2.sku.rawValue))::text[], \(variants.map(\.0))::text[], \(variants.map(\.1))::int8[],
                    \(variants.map { $0.2.values.joined(separator: "\n") })::text[], \(variants.map(\.2.title))::text[],
                    \(variants.map(\.2.price.minorUnits))::int8[], \(variants.map { $0.2.grams ?? 0 })::int8[])
                    AS t (sku, product_id, position, option_values, title, price, grams)
                """, logger: PostgresDatabase.quiet)
        }
        // Stock is set once, when a product or variant first appears: a changed catalog keeps what was sold.
        let stock = products.flatMap(StoredVariants.stockKeys(of:))
        try await connection.query(
            """
            INSERT INTO stock (product_id, on_hand)
            SELECT * FROM unnest(\(stock.map(\.0.rawValue))::text[], \(stock.map { $0.1 ?? defaultStock })::int8[])
            ON CONFLICT (product_id) DO NOTHING
            """, logger: PostgresDatabase.quiet)
    }

    public func count(matching query: String) async throws -> Int {
        guard let pattern = Self.searchQuery(query) else {
            guard query.allSatisfy(\.isWhitespace) else { return 0 }
            // Read each time, not kept from the start: a merchant's edit on any host changes it.
            return try await database.read { connection in
                try await connection.query("SELECT value FROM catalog_meta WHERE key = 'product-count'", logger: PostgresDatabase.quiet)
                    .collect().first.flatMap { Int(try $0.decode(String.self)) }
            } ?? activeCount
        }
        return try await database.read { connection in
            try await connection.query(
                "SELECT count(*) FROM product WHERE position IS NOT NULL AND search @@ \(pattern)::tsquery", logger: PostgresDatabase.quiet
            )
            .collect().first?.decode(Int.self) ?? 0
        }
    }

    public func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        guard offset >= 0, limit > 0 else { return [] }
        // The window's end is made from bounded numbers: no catalog holds Int.max products.
        let limit = min(limit, Int.max - offset)
        let currency = shop.currency
        guard let pattern = Self.searchQuery(query) else {
            guard query.allSatisfy(\.isWhitespace) else { return [] }
            // Positions are dense from 0, so a page is a range: its cost does not depend on the offset.
            return try await database.read { connection in
                try await Self.products(
                    connection.query(
                        """
                        SELECT \(unescaped: Self.columns) FROM product p \(unescaped: Self.stockJoin)
                        WHERE p.position >= \(offset) AND p.position < \(offset + limit) ORDER BY p.position
                        """, logger: PostgresDatabase.quiet), currency: currency
                ).withVariants(on: connection)
            }
        }
        return try await database.read { connection in
            try await Self.products(
                connection.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM product p \(unescaped: Self.stockJoin)
                    WHERE p.position IS NOT NULL AND p.search @@ \(pattern)::tsquery
                    ORDER BY p.position LIMIT \(limit) OFFSET \(offset)
                    """, logger: PostgresDatabase.quiet), currency: currency
            ).withVariants(on: connection)
        }
    }

    public func product(id: ProductID) async throws -> Product? {
        let currency = shop.currency
        return try await database.read { connection in
            try await Self.products(
                connection.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM product p \(unescaped: Self.stockJoin)
                    WHERE p.id = \(id.rawValue) AND p.position IS NOT NULL
                    """, logger: PostgresDatabase.quiet), currency: currency
            ).withVariants(on: connection).first
        }
    }

    private static func products(_ rows: PostgresRowSequence, currency: Currency) async throws -> [Product] {
        var products: [Product] = []
        for try await (id, name, summary, description, price, art, tags, onHand, options, weeks) in rows.decode(
            (String, String, String, String, Int64, String, String, Int?, String, String).self)
        {
            products.append(
                Product(
                    id: ProductID(id), name: name, summary: summary, description: description,
                    price: Money(minorUnits: price, currency: currency),
                    art: Product.storedLines(art),
                    tags: Product.storedLines(tags),
                    stock: onHand,
                    options: StoredVariants.options(options), subscriptionWeeks: ProductSubscriptionMigration.weeks(weeks)
                ))
        }
        return products
    }

    /// Each word of the query as a prefix lexeme, all required: `'oak':* & 'mug':*`; nil when no word is left.
    /// Words are letters and digits only, so quoting them needs no escapes.
    static func searchQuery(_ query: String) -> String? {
        let words = SearchWords.words(in: query)
        guard !words.isEmpty else { return nil }
        return words.map { "'\($0)':*" }.joined(separator: " & ")
    }
}

extension Array {
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension [Product] {
    /// The products with their variants and each variant's stock, read in one query for every product with options.
    fileprivate func withVariants(on connection: PostgresConnection) async throws -> [Product] {
        let owners = filter { !$0.options.isEmpty }.map(\.id.rawValue)
        guard let currency = first?.price.currency, !owners.isEmpty else { return self }
        let rows = try await connection.query(
            """
            SELECT v.product_id, v.sku, v.option_values, v.price, v.grams, s.on_hand
            FROM product_variant v LEFT JOIN stock s ON s.product_id = v.sku
            WHERE v.product_id = ANY(\(owners)::text[]) ORDER BY v.product_id, v.position
            """, logger: PostgresDatabase.quiet)
        var variants: [String: [ProductVariant]] = [:]
        for try await (product, sku, values, price, grams, onHand) in rows.decode((String, String, String, Int64, Int?, Int?).self) {
            variants[product, default: []].append(
                ProductVariant(
                    sku: ProductID(sku), values: Product.storedLines(values), price: Money(minorUnits: price, currency: currency), stock: onHand,
                    grams: grams))
        }
        return map { product in
            product.options.isEmpty ? product : StoredVariants.attach(variants[product.id.rawValue] ?? [], to: product)
        }
    }
}

extension PostgresCatalogRepository: LiveObject {}
