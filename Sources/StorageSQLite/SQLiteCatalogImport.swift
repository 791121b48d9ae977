import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageRows

/// The catalog on SQLite: imported from the catalog file when its content hash changes, then paged and searched
/// (FTS5) from the database by `SQLCatalogRepository`, so start-up cost does not grow with the catalog.
public enum SQLiteCatalogImport {
    /// Opens the catalog from a file, reading and hashing it only when its size, modification
    /// time or inode differ from the last import (the same shortcut git's index takes).
    /// The pictures it names are read by `pictures` (files beside it), and their files' stamps join the catalog's, so a
    /// picture changed alone is imported too.
    public static func open(database: SQLiteDatabase, catalogFile url: URL, pictures: @escaping CatalogPictureResolving = CatalogPictures.held) throws
        -> SQLCatalogRepository
    {
        let folder = url.deletingLastPathComponent()
        let pictureFiles =
            (try? database.pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM catalog_meta WHERE key = 'picture-files'") })
            .flatMap { $0 }.map(Product.storedLines) ?? []
        let stamping = { (files: [String]) in
            fileStamp(url).map { own in ([own] + files.map { fileStamp(folder.appending(path: $0)) ?? "-" }).joined(separator: "\n") }
        }
        if let stamp = stamping(pictureFiles), let repository = try unchanged(database: database, where: "file-stamp", equals: stamp) {
            return repository
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CatalogError(source: url.path, issues: [CatalogIssue(path: "$", message: "cannot read file: \(error.localizedDescription)")])
        }
        return try open(database: database, catalogData: data, source: url.path, stamping: stamping, pictures: pictures)
    }

    /// Path, size, modification time and inode: what says a file changed without reading it.
    private static func fileStamp(_ url: URL) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let inode = (attributes[.systemFileNumber] as? NSNumber)?.int64Value ?? -1
        return "\(url.standardizedFileURL.path)|\(size)|\(modified)|\(inode)"
    }

    /// Opens the catalog, importing `data` first if its content differs from what was imported last.
    ///
    /// Throws `CatalogError` for an invalid catalog and `SQLiteDatabaseError` for storage problems.
    public static func open(
        database: SQLiteDatabase, catalogData data: Data, source: String, pictures: @escaping CatalogPictureResolving = CatalogPictures.held
    ) throws -> SQLCatalogRepository {
        try open(database: database, catalogData: data, source: source, stamping: { _ in nil }, pictures: pictures)
    }

    private static func open(
        database: SQLiteDatabase, catalogData data: Data, source: String, stamping: ([String]) -> String?, pictures: CatalogPictureResolving
    ) throws -> SQLCatalogRepository {
        let loaded = try CatalogLoader.load(data: data, source: source)
        let held: [String: PictureSize]
        do {
            held = try database.pool.read { db in try PicturesMigration.held(on: GRDBConnection(db: db)) }
        } catch {
            throw SQLiteDatabaseError.from(error, path: database.path)
        }
        let resolved: ResolvedCatalog
        do {
            resolved = try pictures(loaded, held)
        } catch {
            throw CatalogError(source: source, issues: error.issues)
        }
        // The pictures' digests are part of what was imported: a picture changed under the same name imports again.
        let references = resolved.catalog.pictureReferences
        let hash = ContentHash.fnv1a64(data + Data(references.map(\.digest).joined().utf8))
        let files = Set(references.map(\.file)).sorted()
        // Stamped with the picture files this catalog names, read after the import: the next start compares the same.
        let stamp = stamping(files)
        if let repository = try unchanged(database: database, where: "content-hash", equals: hash) {
            if let stamp { try write(["file-stamp": stamp, "picture-files": files.joined(separator: "\n")], to: database) }
            return repository
        }
        let catalog = resolved.catalog
        do {
            try importCatalog(catalog, pictures: resolved.pictures, hash: hash, into: database)
            try write(["file-stamp": stamp ?? "", "picture-files": files.joined(separator: "\n")], to: database)
        } catch {
            throw SQLiteDatabaseError.from(error, path: database.path)
        }
        // The imported pages move from the write-ahead log into the file, where every connection of every process reads
        // them through one shared mapping (mmap_size); a page left in the log is copied into each connection's cache.
        // Only an optimisation: a reader that holds the log keeps it there, and the next automatic checkpoint moves it.
        _ = try? database.pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        return SQLCatalogRepository(shop: catalog.shop, database: database, activeCount: catalog.products.count, didImport: true)
    }

    /// The catalog as last imported, for commands that read a shop's data without a catalog file; nil before the first
    /// import.
    public static func stored(database: SQLiteDatabase) throws -> SQLCatalogRepository? {
        try unchanged(database: database, where: "product-count", equals: nil)
    }

    /// The repository as last imported, when the meta value `key` equals `value` (or always, for nil); nil otherwise.
    private static func unchanged(database: SQLiteDatabase, where key: String, equals value: String?) throws -> SQLCatalogRepository? {
        let meta: [String: String]
        do {
            meta = try database.pool.read { db in
                Dictionary(
                    uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT key, value FROM catalog_meta").map {
                        ($0["key"] as String, $0["value"] as String)
                    })
            }
        } catch {
            throw SQLiteDatabaseError.from(error, path: database.path)
        }
        guard value == nil || meta[key] == value, let storeJSON = meta["store"],
            let shop = ShopProfile(storedJSON: storeJSON),
            let count = meta["product-count"].flatMap(Int.init)
        else { return nil }
        return SQLCatalogRepository(shop: shop, database: database, activeCount: count)
    }

    private static func write(_ values: [String: String], to database: SQLiteDatabase) throws {
        do {
            try database.pool.write { db in
                for (key, value) in values {
                    try db.execute(sql: "INSERT OR REPLACE INTO catalog_meta (key, value) VALUES (?, ?)", arguments: [key, value])
                }
            }
        } catch {
            throw SQLiteDatabaseError.from(error, path: database.path)
        }
    }

    /// Replaces the catalog's names, texts and prices in one transaction; rows of products that left
    /// the catalog stay (with no position) so nothing that refers to them breaks.
    private static func importCatalog(_ catalog: Catalog, pictures: [StoredPicture], hash: String, into database: SQLiteDatabase) throws {
        try database.pool.write { db in
            try PicturesMigration.insert(pictures, on: GRDBConnection(db: db))
            try SQLCatalogEditor.followFile(catalog, at: Date(), on: GRDBConnection(db: db))
            try write(catalog, contentHash: hash, db)
        }
    }

    /// Writes `catalog` as the shop's catalog in the transaction of `db`: the file's hash kept when it came from one.
    static func write(_ catalog: Catalog, contentHash hash: String?, _ db: Database) throws {
        let defaultStock = SQLCatalogRepository.defaultStock
        let storeJSON = catalog.shop.storedJSON
        do {
            // Rowids follow catalog order (rowid = position + 1), so FTS5, which yields matches in
            // rowid order, hands back a search page without sorting every match. Rows first move
            // out of the way; products gone from the catalog keep a rowid above that range, past every rowid there,
            // so a product retired, listed again and retired again never lands on another's.
            try db.execute(
                sql: """
                    UPDATE product SET position = NULL,
                        rowid = rowid + (SELECT max(max(rowid), \(SQLCatalogRepository.retiredRowidBase)) FROM product)
                    WHERE rowid < \(SQLCatalogRepository.retiredRowidBase)
                    """)
            let upsert = try db.makeStatement(
                sql: """
                    INSERT INTO product (rowid, id, position, name, summary, description, price, art, tags, options, subscription_weeks, pictures)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET rowid = excluded.rowid, position = excluded.position, name = excluded.name,
                        summary = excluded.summary, description = excluded.description, price = excluded.price,
                        art = excluded.art, tags = excluded.tags, options = excluded.options,
                        subscription_weeks = excluded.subscription_weeks, pictures = excluded.pictures
                    """)
            for (position, product) in catalog.products.enumerated() {
                try upsert.execute(arguments: [
                    position + 1, product.id.rawValue, position, product.name, product.summary, product.description,
                    product.price.minorUnits, product.art.joined(separator: "\n"), product.tags.joined(separator: "\n"),
                    try StoredVariants.options(product.options), ProductSubscriptionMigration.stored(product.subscriptionWeeks),
                    PicturesMigration.stored(product.pictures),
                ])
            }
            // Variants are replaced whole (a product that left the catalog is never shown, so it needs none); their
            // stock, like a product's, is kept.
            try db.execute(sql: "DELETE FROM product_variant")
            let variant = try db.makeStatement(
                sql: """
                    INSERT INTO product_variant (sku, product_id, position, option_values, title, price, grams, pictures)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for product in catalog.products {
                for (position, each) in product.variants.enumerated() {
                    try variant.execute(arguments: [
                        each.sku.rawValue, product.id.rawValue, position, each.values.joined(separator: "\n"), each.title,
                        each.price.minorUnits, each.grams, PicturesMigration.stored(each.pictures),
                    ])
                }
            }
            // Stock is set once, when a product or variant first appears: a changed catalog keeps what was sold.
            let stock = try db.makeStatement(sql: "INSERT INTO stock (product_id, on_hand) VALUES (?, ?) ON CONFLICT(product_id) DO NOTHING")
            for product in catalog.products {
                for (key, units) in StoredVariants.stockKeys(of: product) {
                    try stock.execute(arguments: [key.rawValue, units ?? defaultStock])
                }
            }
            try db.execute(sql: "INSERT INTO product_search(product_search) VALUES('rebuild')")
            let meta = try db.makeStatement(sql: "INSERT OR REPLACE INTO catalog_meta (key, value) VALUES (?, ?)")
            if let hash { try meta.execute(arguments: ["content-hash", hash]) }
            try meta.execute(arguments: ["store", storeJSON])
            try meta.execute(arguments: ["product-count", String(catalog.products.count)])
        }
    }
}
