import Foundation
import NIOCore
import ShopModels
import ShopPorts
import StorageRows

/// PostgreSQL's side of a catalog edit: the products its catalog sells, and its tables (`tsvector` search, batched
/// upserts) rebuilt in the edit's transaction, on the connection the editor's body holds.
public struct PostgresCatalogTables: CatalogTables {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func sold() async throws -> [Product] {
        let catalog = try await PostgresCatalogImport.open(database: database)
        return try await catalog.page(matching: "", offset: 0, limit: max(1, try await catalog.count(matching: "")))
    }

    /// The rebuild is the import's, asynchronous; the editor's body waits for it on its own thread.
    public func rebuild(_ catalog: Catalog, on connection: any SQLConnection) throws {
        guard let blocking = connection as? BlockingPostgresConnection else {
            throw StorageError("a PostgreSQL catalog rebuilt on another database's connection")
        }
        let pooled = blocking.connection
        _ = try pooled.eventLoop.makeFutureWithTask { try await PostgresCatalogImport.write(catalog, contentHash: nil, on: pooled) }.wait()
    }
}

extension SQLCatalogEditor {
    /// The editor of a PostgreSQL shop's catalog.
    public init(database: PostgresDatabase, shop: ShopProfile) {
        self.init(database: database, shop: shop, tables: PostgresCatalogTables(database: database))
    }
}
