import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageRows

/// The merchant's edits to the catalog in SQLite (`catalog_product`, `catalog_edit`): each in one transaction with the
/// version check and the shop's tables rebuilt from the published products, so a shop open on the same file sees it
/// at its next read.
public struct SQLiteCatalogEditor: CatalogEditing {
    private let database: SQLiteDatabase
    private let shop: ShopProfile

    public init(database: SQLiteDatabase, shop: ShopProfile) {
        self.database = database
        self.shop = shop
    }

    public func products() async throws -> [EditableProduct] {
        try await seedIfNeeded()
        return try await database.read { db in try Self.rows(db).map(\.editable) }
    }

    public func apply(_ edit: CatalogEdit, at date: Date) async throws(CatalogEditError) -> EditableProduct {
        do {
            try await seedIfNeeded()
        } catch {
            throw .storage("\(error)")
        }
        let shop = self.shop
        do {
            // The plan's refusal comes back as a value: the database layer words every error it sees as its own.
            return try await database.write { db -> Result<EditableProduct, CatalogEditError> in
                let outcome: CatalogEditPlan.Outcome
                do {
                    outcome = try CatalogEditPlan.apply(edit, to: try Self.rows(db), shop: shop, at: date)
                } catch let refusal as CatalogEditError {
                    return .failure(refusal)
                }
                try Self.save(outcome.rows, outcome.entries, db)
                try SQLiteCatalogRepository.write(outcome.catalog, contentHash: nil, db)
                return .success(outcome.changed.editable)
            }.get()
        } catch let error as CatalogEditError {
            throw error
        } catch {
            throw .storage(SQLiteDatabaseError.from(error, path: database.path).description)
        }
    }

    public func history(of productID: ProductID?, limit: Int) async throws -> [CatalogHistoryEntry] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT product_id, version, action, actor, at FROM catalog_edit WHERE ? IS NULL OR product_id = ?
                    ORDER BY sequence DESC LIMIT ?
                    """, arguments: [productID?.rawValue, productID?.rawValue, max(0, limit)]
            ).map {
                CatalogHistoryEntry(
                    productID: ProductID($0["product_id"] as String), version: $0["version"], action: $0["action"], actor: $0["actor"],
                    at: Date(timeIntervalSince1970: $0["at"]))
            }
        }
    }

    /// A catalog file imported in `db`'s transaction: once the catalog has been edited, its rows follow the file.
    static func followFile(_ catalog: Catalog, at date: Date, _ db: Database) throws {
        let rows = try rows(db)
        guard !rows.isEmpty else { return }
        let (followed, entries) = CatalogEditPlan.importing(catalog, rows: rows, actor: "import", at: date)
        try save(followed, entries, db)
    }

    /// The first edit of a catalog never edited: its rows from the products as the shop sells them.
    private func seedIfNeeded() async throws {
        let empty = try await database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM catalog_product") == 0 }
        guard empty, let catalog = try SQLiteCatalogRepository.stored(database: database) else { return }
        let count = try await catalog.count(matching: "")
        let products = try await catalog.page(matching: "", offset: 0, limit: max(1, count))
        let rows = CatalogEditPlan.seed(products, at: Date())
        try await database.write { db in
            // Another session may have seeded it meanwhile: the first one's rows stand.
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM catalog_product") == 0 else { return }
            try Self.save(rows, [], db)
        }
    }

    static func rows(_ db: Database) throws -> [CatalogProductRow] {
        try Row.fetchAll(db, sql: "SELECT * FROM catalog_product ORDER BY position IS NULL, position, id").map {
            CatalogProductRow(
                id: $0["id"], position: $0["position"], status: ProductStatus(rawValue: $0["status"]) ?? .unpublished, version: $0["version"],
                document: $0["document"], updatedAt: $0["updated_at"], updatedBy: $0["updated_by"])
        }
    }

    /// Writes every row (positions move when one leaves the shop) and appends `entries` with the documents they left.
    static func save(_ rows: [CatalogProductRow], _ entries: [CatalogHistoryEntry], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM catalog_product")
        let insert = try db.makeStatement(
            sql: """
                INSERT INTO catalog_product (id, position, status, version, document, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        for row in rows {
            try insert.execute(arguments: [row.id, row.position, row.status.rawValue, row.version, row.document, row.updatedAt, row.updatedBy])
        }
        let documents = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.document) })
        let history = try db.makeStatement(
            sql: "INSERT INTO catalog_edit (product_id, version, action, actor, at, document) VALUES (?, ?, ?, ?, ?, ?)")
        for entry in entries {
            try history.execute(arguments: [
                entry.productID.rawValue, entry.version, entry.action, entry.actor, entry.at.timeIntervalSince1970,
                documents[entry.productID.rawValue] ?? "",
            ])
        }
    }
}
