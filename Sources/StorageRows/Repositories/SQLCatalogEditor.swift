import Foundation
import ShopModels
import ShopPorts

/// The merchant's edits to the catalog (`catalog_product`, `catalog_edit`): each in one transaction under the catalog's
/// lock, with the version check and the shop's tables rebuilt from the published products, so shops on every host see
/// it at their next read, and two hosts' edits of one product give one "changed meanwhile".
public struct SQLCatalogEditor: CatalogEditing {
    private let database: any SQLDatabase
    private let shop: ShopProfile
    private let tables: any CatalogTables

    public init(database: any SQLDatabase, shop: ShopProfile, tables: any CatalogTables) {
        self.database = database
        self.shop = shop
        self.tables = tables
    }

    public func products() async throws -> [EditableProduct] {
        try await seedIfNeeded()
        return try await database.run(.read) { connection in try Self.rows(on: connection).map(\.editable) }
    }

    public func apply(_ edit: CatalogEdit, at date: Date) async throws(CatalogEditError) -> EditableProduct {
        do {
            try await seedIfNeeded()
        } catch {
            throw .storage("\(error)")
        }
        let (shop, tables) = (shop, tables)
        return try await database.run(.writeLong, failing: CatalogEditError.storage) { connection in
            try Self.lock(on: connection)
            let before = try Self.rows(on: connection)
            let outcome = try CatalogEditPlan.apply(edit, to: before, shop: shop, at: date)
            if let product = outcome.incoming, !product.pictureReferences.isEmpty {
                // What the product named before stands (an edit of its name does not answer for its pictures); what it
                // names anew must be held.
                let named = before.first { $0.id == edit.productID.rawValue }.map { CatalogEditPlan.pictureDigests(in: $0.document) } ?? []
                let held = named.union(try PicturesMigration.held(on: connection).keys)
                let missing = CatalogEditPlan.picturesNotHeld(by: product, held: held)
                guard missing.isEmpty else { throw CatalogEditError.invalid(missing) }
            }
            try Self.save(outcome.rows, outcome.entries, on: connection)
            try tables.rebuild(outcome.catalog, on: connection)
            return outcome.changed.editable
        }
    }

    public func history(of productID: ProductID?, limit: Int) async throws -> [CatalogHistoryEntry] {
        let id = productID?.rawValue
        return try await database.run(.read) { connection in
            try connection.rows(
                """
                SELECT product_id, version, action, actor, at FROM catalog_edit WHERE CAST(\(id) AS TEXT) IS NULL OR product_id = \(id)
                ORDER BY sequence DESC LIMIT \(max(0, limit))
                """
            ).map {
                CatalogHistoryEntry(
                    productID: ProductID(try $0["product_id"] as String), version: try $0["version"], action: try $0["action"],
                    actor: try $0["actor"], at: try $0["at"])
            }
        }
    }

    /// A catalog file imported in `connection`'s transaction: once the catalog has been edited, its rows follow the file.
    public static func followFile(_ catalog: Catalog, at date: Date, on connection: any SQLConnection) throws {
        let rows = try rows(on: connection)
        guard !rows.isEmpty else { return }
        let (followed, entries) = CatalogEditPlan.importing(catalog, rows: rows, actor: "import", at: date)
        try save(followed, entries, on: connection)
    }

    /// The catalog's lock on PostgreSQL, held to the transaction's end: edits and imports on every host take turns.
    /// SQLite's write transaction runs alone.
    public static func lock(on connection: any SQLConnection) throws {
        guard connection.dialect == .postgres else { return }
        try connection.execute("SELECT pg_advisory_xact_lock(\(catalogLock))")
    }

    /// The advisory lock's key: "STORECAT".
    public static let catalogLock: Int64 = 0x5354_4F52_4543_4154

    /// The first edit of a catalog never edited: its rows from the products as the shop sells them.
    private func seedIfNeeded() async throws {
        guard try await database.run(.read, { connection in try connection.value("SELECT count(*) FROM catalog_product") ?? 0 }) == 0 else {
            return
        }
        let rows = CatalogEditPlan.seed(try await tables.sold(), at: Date())
        try await database.run(.writeLong) { connection in
            try Self.lock(on: connection)
            // Another host may have seeded it meanwhile: the first one's rows stand.
            guard try connection.value("SELECT count(*) FROM catalog_product") ?? 0 == 0 else { return }
            try Self.save(rows, [], on: connection)
        }
    }

    static func rows(on connection: any SQLConnection) throws -> [CatalogProductRow] {
        try connection.rows(
            """
            SELECT id, position, status, version, document, updated_at, updated_by FROM catalog_product
            ORDER BY CASE WHEN position IS NULL THEN 1 ELSE 0 END, position, id
            """
        ).map {
            CatalogProductRow(
                id: try $0["id"], position: try $0["position"], status: ProductStatus(rawValue: try $0["status"]) ?? .unpublished,
                version: try $0["version"], document: try $0["document"], updatedAt: try $0["updated_at"], updatedBy: try $0["updated_by"])
        }
    }

    /// Writes every row (positions move when one leaves the shop) and appends `entries` with the documents they left,
    /// `rowsPerStatement` rows a statement.
    static func save(_ rows: [CatalogProductRow], _ entries: [CatalogHistoryEntry], on connection: any SQLConnection) throws {
        try connection.execute("DELETE FROM catalog_product")
        for first in stride(from: 0, to: rows.count, by: rowsPerStatement) {
            var insert: SQLStatement = "INSERT INTO catalog_product (id, position, status, version, document, updated_at, updated_by) VALUES "
            for (offset, row) in rows[first..<min(first + rowsPerStatement, rows.count)].enumerated() {
                insert.append(
                    """
                    \(raw: offset == 0 ? "" : ", ")(\(row.id), \(row.position), \(row.status.rawValue), \(row.version), \(row.document), \
                    \(row.updatedAt), \(row.updatedBy))
                    """)
            }
            try connection.execute(insert)
        }
        let documents = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.document) })
        for first in stride(from: 0, to: entries.count, by: rowsPerStatement) {
            var insert: SQLStatement = "INSERT INTO catalog_edit (product_id, version, action, actor, at, document) VALUES "
            for (offset, entry) in entries[first..<min(first + rowsPerStatement, entries.count)].enumerated() {
                insert.append(
                    """
                    \(raw: offset == 0 ? "" : ", ")(\(entry.productID.rawValue), \(entry.version), \(entry.action), \(entry.actor), \(entry.at), \
                    \(documents[entry.productID.rawValue] ?? ""))
                    """)
            }
            try connection.execute(insert)
        }
    }

    /// Seven values a row: well under the values one statement may bind on either database.
    static let rowsPerStatement = 1_000
}

/// Each database's own side of a catalog edit: the products the shop sells now, and the shop's tables rebuilt from a
/// catalog in the edit's transaction (search is each database's own).
public protocol CatalogTables: Sendable {
    /// The products as the shop sells them, to seed the editor's rows the first time.
    func sold() async throws -> [Product]
    /// Rebuilds the shop's tables from `catalog`, in the transaction `connection` is in.
    func rebuild(_ catalog: Catalog, on connection: any SQLConnection) throws
}
