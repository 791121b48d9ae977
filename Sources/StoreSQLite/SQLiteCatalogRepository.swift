import Foundation
import GRDB
import StoreClients
import StoreModels

/// The catalog served from SQLite: imported from the catalog file when its content hash changes,
/// then paged and searched (FTS5) from the database, so start-up cost does not grow with the catalog.
public final class SQLiteCatalogRepository: CatalogRepository {
    public let store: StoreProfile
    private let database: StoreDatabase
    private let activeCount: Int
    /// True when this start imported the catalog (its content changed since the last import).
    public let didImport: Bool
    /// Units of a product whose catalog entry names no stock.
    public static let defaultStock = 25
    private static let columns = "product.*, stock.on_hand AS on_hand"
    private static let stockJoin = "LEFT JOIN stock ON stock.product_id = product.id"

    /// Opens the catalog, importing `data` first if its content differs from what was imported last.
    ///
    /// Throws `CatalogError` for an invalid catalog and `StoreDatabaseError` for storage problems.
    public static func open(database: StoreDatabase, catalogData data: Data, source: String) throws -> SQLiteCatalogRepository {
        let hash = ContentHash.fnv1a64(data)
        let stored: (hash: String?, store: String?, count: String?)
        do {
            stored = try database.pool.read { db in
                (try String.fetchOne(db, sql: "SELECT value FROM catalog_meta WHERE key = 'content-hash'"),
                 try String.fetchOne(db, sql: "SELECT value FROM catalog_meta WHERE key = 'store'"),
                 try String.fetchOne(db, sql: "SELECT value FROM catalog_meta WHERE key = 'product-count'"))
            }
        } catch {
            throw StoreDatabaseError.from(error, path: database.path)
        }
        if stored.hash == hash, let storeJSON = stored.store, let store = try? JSONDecoder().decode(StoreProfile.self, from: Data(storeJSON.utf8)), let count = stored.count.flatMap(Int.init) {
            return SQLiteCatalogRepository(store: store, database: database, activeCount: count, didImport: false)
        }
        let catalog = try CatalogLoader.load(data: data, source: source)
        do {
            try importCatalog(catalog, hash: hash, into: database)
        } catch {
            throw StoreDatabaseError.from(error, path: database.path)
        }
        return SQLiteCatalogRepository(store: catalog.store, database: database, activeCount: catalog.products.count, didImport: true)
    }

    private init(store: StoreProfile, database: StoreDatabase, activeCount: Int, didImport: Bool) {
        self.store = store
        self.database = database
        self.activeCount = activeCount
        self.didImport = didImport
    }

    /// Replaces the catalog's names, texts and prices in one transaction; rows of products that left
    /// the catalog stay (with no position) so nothing that refers to them breaks.
    private static func importCatalog(_ catalog: Catalog, hash: String, into database: StoreDatabase) throws {
        let defaultStock = Self.defaultStock
        let storeJSON = String(decoding: try JSONEncoder().encode(catalog.store), as: UTF8.self)
        try database.pool.write { db in
            try db.execute(sql: "UPDATE product SET position = NULL")
            let upsert = try db.makeStatement(sql: """
                INSERT INTO product (id, position, name, summary, description, price, art, tags)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET position = excluded.position, name = excluded.name,
                    summary = excluded.summary, description = excluded.description, price = excluded.price,
                    art = excluded.art, tags = excluded.tags
                """)
            for (position, product) in catalog.products.enumerated() {
                try upsert.execute(arguments: [
                    product.id.rawValue, position, product.name, product.summary, product.description,
                    product.price.minorUnits, product.art.joined(separator: "\n"), product.tags.joined(separator: "\n"),
                ])
            }
            // Stock is set once, when a product first appears: a changed catalog keeps what was sold.
            let stock = try db.makeStatement(sql: "INSERT INTO stock (product_id, on_hand) VALUES (?, ?) ON CONFLICT(product_id) DO NOTHING")
            for product in catalog.products {
                try stock.execute(arguments: [product.id.rawValue, product.stock ?? defaultStock])
            }
            try db.execute(sql: "INSERT INTO product_search(product_search) VALUES('rebuild')")
            let meta = try db.makeStatement(sql: "INSERT OR REPLACE INTO catalog_meta (key, value) VALUES (?, ?)")
            try meta.execute(arguments: ["content-hash", hash])
            try meta.execute(arguments: ["store", storeJSON])
            try meta.execute(arguments: ["product-count", String(catalog.products.count)])
        }
    }

    public func count(matching query: String) throws -> Int {
        guard let pattern = Self.matchExpression(query) else { return query.allSatisfy(\.isWhitespace) ? activeCount : 0 }
        return try read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM product_search JOIN product ON product.rowid = product_search.rowid
                WHERE product_search MATCH ? AND product.position IS NOT NULL
                """, arguments: [pattern]) ?? 0
        }
    }

    public func page(matching query: String, offset: Int, limit: Int) throws -> [Product] {
        guard offset >= 0, limit > 0 else { return [] }
        guard let pattern = Self.matchExpression(query) else {
            guard query.allSatisfy(\.isWhitespace) else { return [] }
            // Positions are dense from 0, so a page is a range: its cost does not depend on the offset.
            return try read { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM product \(Self.stockJoin) WHERE position >= ? AND position < ? ORDER BY position", arguments: [offset, offset + limit])
                    .map(product(from:))
            }
        }
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM product_search JOIN product ON product.rowid = product_search.rowid \(Self.stockJoin)
                WHERE product_search MATCH ? AND product.position IS NOT NULL
                ORDER BY product.position LIMIT ? OFFSET ?
                """, arguments: [pattern, limit, offset]).map(product(from:))
        }
    }

    public func product(id: ProductID) throws -> Product? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM product \(Self.stockJoin) WHERE id = ? AND position IS NOT NULL", arguments: [id.rawValue]).map(product(from:))
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.pool.read(body)
        } catch {
            throw StorageError(StoreDatabaseError.from(error, path: database.path).description)
        }
    }

    private func product(from row: Row) -> Product {
        let art: String = row["art"]
        let tags: String = row["tags"]
        return Product(
            id: ProductID(row["id"] as String), name: row["name"], summary: row["summary"], description: row["description"],
            price: Money(minorUnits: row["price"], currency: store.currency),
            art: art.isEmpty ? [] : art.components(separatedBy: "\n"),
            tags: tags.isEmpty ? [] : tags.components(separatedBy: "\n"),
            stock: row["on_hand"]
        )
    }

    /// Each word of the query as a quoted prefix term, all required: `"oak"* "mug"*`; nil when no word is left.
    static func matchExpression(_ query: String) -> String? {
        let words = query.lowercased().split { !($0.isLetter || $0.isNumber) }
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0)\"*" }.joined(separator: " ")
    }
}

/// A fast content fingerprint for change detection (not for security).
enum ContentHash {
    static func fnv1a64(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        return String(hash, radix: 16) + "-" + String(data.count)
    }
}
