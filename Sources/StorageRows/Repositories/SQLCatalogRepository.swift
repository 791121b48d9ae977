import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// The catalog the shop serves, read from either database: a page by position, a search (SQLite's FTS5 or
/// PostgreSQL's tsvector, the one place the two differ), and one product, each with its variants and stock.
/// `SQLiteCatalogImport` and `PostgresCatalogImport` open it after importing the catalog file.
public final class SQLCatalogRepository: CatalogRepository {
    public let shop: ShopProfile
    private let database: any SQLDatabase
    private let activeCount: Int
    /// True when this start imported the catalog (its content changed since the last import).
    public let didImport: Bool
    /// Units of a product whose catalog entry names no stock.
    public static let defaultStock = 25
    /// On SQLite, rowids at and above this belong to products that left the catalog; below it, rowid = position + 1.
    public static let retiredRowidBase = 1_000_000_000
    private static let columns: SQLStatement = """
        SELECT product.id, product.name, product.summary, product.description, product.price, product.art, product.tags,
            stock.on_hand, product.options, product.subscription_weeks, product.pictures
        FROM product LEFT JOIN stock ON stock.product_id = product.id
        """

    public init(shop: ShopProfile, database: any SQLDatabase, activeCount: Int, didImport: Bool = false) {
        self.shop = shop
        self.database = database
        self.activeCount = activeCount
        self.didImport = didImport
    }

    public func count(matching query: String) async throws -> Int {
        let words = SearchWords.words(in: query)
        guard !words.isEmpty else {
            guard query.allSatisfy(\.isWhitespace) else { return 0 }
            // Read each time, not kept from the start: a merchant's edit in another session or host changes it.
            let stored = try await database.run(.read) { try $0.value("SELECT value FROM catalog_meta WHERE key = 'product-count'", as: String.self) }
            return stored.flatMap(Int.init) ?? activeCount
        }
        return try await database.run(.read) { connection in
            switch connection.dialect {
            case .sqlite:
                // Products in the catalog are exactly the rowids below the retired range: no join needed.
                try connection.value(
                    """
                    SELECT count(*) FROM product_search WHERE product_search MATCH \(Self.match(words)) AND rowid < \(raw: String(Self.retiredRowidBase))
                    """) ?? 0
            case .postgres:
                try connection.value("SELECT count(*) FROM product WHERE position IS NOT NULL AND search @@ \(Self.tsquery(words))::tsquery") ?? 0
            }
        }
    }

    public func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        guard offset >= 0, limit > 0 else { return [] }
        // The window's end is made from bounded numbers: no catalog holds Int.max products.
        let limit = min(limit, Int.max - offset)
        let words = SearchWords.words(in: query)
        let currency = shop.currency
        guard !words.isEmpty else {
            guard query.allSatisfy(\.isWhitespace) else { return [] }
            // Positions are dense from 0, so a page is a range: its cost does not depend on the offset.
            return try await database.run(.read) { connection in
                try Self.products(
                    "\(Self.columns) WHERE product.position >= \(offset) AND product.position < \(offset + limit) ORDER BY product.position",
                    currency, on: connection)
            }
        }
        return try await database.run(.read) { connection in
            switch connection.dialect {
            case .sqlite:
                // FTS5 yields matches in rowid order, which is catalog order: a page without sorting every match.
                try Self.products(
                    """
                    \(Self.columns) WHERE product.rowid IN (
                        SELECT rowid FROM product_search WHERE product_search MATCH \(Self.match(words))
                            AND rowid < \(raw: String(Self.retiredRowidBase)) ORDER BY rowid LIMIT \(limit) OFFSET \(offset)
                    ) ORDER BY product.rowid
                    """, currency, on: connection)
            case .postgres:
                try Self.products(
                    """
                    \(Self.columns) WHERE product.position IS NOT NULL AND product.search @@ \(Self.tsquery(words))::tsquery
                    ORDER BY product.position LIMIT \(limit) OFFSET \(offset)
                    """, currency, on: connection)
            }
        }
    }

    /// One product, as fresh as the database: stock is checked against it before a cart grows.
    public func product(id: ProductID) async throws -> Product? {
        let currency = shop.currency
        return try await database.run(.readFresh) { connection in
            try Self.products("\(Self.columns) WHERE product.id = \(id.rawValue) AND product.position IS NOT NULL", currency, on: connection).first
        }
    }

    /// The products `statement` reads, with their variants and each variant's stock, read in one more query for every
    /// product with options.
    private static func products(_ statement: SQLStatement, _ currency: Currency, on connection: any SQLConnection) throws -> [Product] {
        let products = try connection.rows(statement).map { row in
            Product(
                id: ProductID(try row["id"]), name: try row["name"], summary: try row["summary"], description: try row["description"],
                price: Money(minorUnits: try row["price"], currency: currency), art: Product.storedLines(try row["art"]),
                tags: Product.storedLines(try row["tags"]), stock: try row["on_hand"], options: StoredVariants.options(try row["options"]),
                subscriptionWeeks: ProductSubscriptionMigration.weeks(try row["subscription_weeks"]),
                pictures: PicturesMigration.references(try row["pictures"]))
        }
        let owners = products.filter { !$0.options.isEmpty }.map(\.id.rawValue)
        guard !owners.isEmpty else { return products }
        var variants: [String: [ProductVariant]] = [:]
        for row in try connection.rows(
            """
            SELECT product_variant.product_id, product_variant.sku, product_variant.option_values, product_variant.price,
                product_variant.grams, product_variant.pictures, stock.on_hand
            FROM product_variant LEFT JOIN stock ON stock.product_id = product_variant.sku
            WHERE product_variant.product_id IN \(list: owners) ORDER BY product_variant.product_id, product_variant.position
            """)
        {
            variants[try row["product_id"], default: []].append(
                ProductVariant(
                    sku: ProductID(try row["sku"]), values: Product.storedLines(try row["option_values"]),
                    price: Money(minorUnits: try row["price"], currency: currency), stock: try row["on_hand"], grams: try row["grams"],
                    pictures: PicturesMigration.references(try row["pictures"])))
        }
        return products.map { $0.options.isEmpty ? $0 : StoredVariants.attach(variants[$0.id.rawValue] ?? [], to: $0) }
    }

    /// FTS5's query: each word a quoted prefix term, all required (`"oak"* "mug"*`).
    static func match(_ words: [String]) -> String { words.map { "\"\($0)\"*" }.joined(separator: " ") }

    /// PostgreSQL's query: each word a prefix lexeme, all required (`'oak':* & 'mug':*`). Words are letters and digits
    /// only, so quoting them needs no escapes.
    static func tsquery(_ words: [String]) -> String { words.map { "'\($0)':*" }.joined(separator: " & ") }
}

extension SQLCatalogRepository: LiveObject {}
