import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageRows

/// SQLite's side of a catalog edit: the products its catalog sells, and its tables (FTS5 in the catalog's order)
/// rebuilt in the edit's GRDB transaction.
public struct SQLiteCatalogTables: CatalogTables {
    let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func sold() async throws -> [Product] {
        guard let catalog = try SQLiteCatalogImport.stored(database: database) else { return [] }
        return try await catalog.page(matching: "", offset: 0, limit: max(1, try await catalog.count(matching: "")))
    }

    public func rebuild(_ catalog: Catalog, on connection: any SQLConnection) throws {
        guard let grdb = connection as? GRDBConnection else { throw StorageError("a SQLite catalog rebuilt on another database's connection") }
        try SQLiteCatalogImport.write(catalog, contentHash: nil, grdb.db)
    }
}

extension SQLCatalogEditor {
    /// The editor of a SQLite shop's catalog.
    public init(database: SQLiteDatabase, shop: ShopProfile) {
        self.init(database: database, shop: shop, tables: SQLiteCatalogTables(database: database))
    }
}
