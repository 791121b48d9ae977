import Foundation
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// The merchant's edits to the catalog in PostgreSQL (`catalog_product`, `catalog_edit`): each in one transaction under
/// the catalog's lock, with the version check and the shop's tables rebuilt from the published products, so shops on
/// every host see it at their next read, and two hosts' edits of one product give one "changed meanwhile".
public struct PostgresCatalogEditor: CatalogEditing {
    private let database: PostgresDatabase
    private let shop: ShopProfile

    public init(database: PostgresDatabase, shop: ShopProfile) {
        self.database = database
        self.shop = shop
    }

    public func products() async throws -> [EditableProduct] {
        try await seedIfNeeded()
        return try await database.read { connection in try await Self.rows(on: connection).map(\.editable) }
    }

    public func apply(_ edit: CatalogEdit, at date: Date) async throws(CatalogEditError) -> EditableProduct {
        do {
            try await seedIfNeeded()
        } catch {
            throw .storage("\(error)")
        }
        let shop = self.shop
        do {
            return try await database.transaction(timeout: .seconds(600)) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresDatabase.catalogLock))", logger: PostgresDatabase.quiet)
                let outcome = try CatalogEditPlan.apply(edit, to: try await Self.rows(on: connection), shop: shop, at: date)
                try await Self.save(outcome.rows, outcome.entries, on: connection)
                _ = try await PostgresCatalogRepository.write(outcome.catalog, contentHash: nil, on: connection)
                return outcome.changed.editable
            }
        } catch let error as CatalogEditError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    public func history(of productID: ProductID?, limit: Int) async throws -> [CatalogHistoryEntry] {
        let id = productID?.rawValue
        return try await database.read { connection in
            var entries: [CatalogHistoryEntry] = []
            let rows = try await connection.query(
                """
                SELECT product_id, version, action, actor, at FROM catalog_edit WHERE \(id)::text IS NULL OR product_id = \(id)
                ORDER BY sequence DESC LIMIT \(max(0, limit))
                """, logger: PostgresDatabase.quiet)
            for try await (product, version, action, actor, at) in rows.decode((String, Int, String, String, Double).self) {
                entries.append(
                    CatalogHistoryEntry(
                        productID: ProductID(product), version: version, action: action, actor: actor, at: Date(timeIntervalSince1970: at)))
            }
            return entries
        }
    }

    /// A catalog file imported in `connection`'s transaction: once the catalog has been edited, its rows follow the file.
    static func followFile(_ catalog: Catalog, at date: Date, on connection: PostgresConnection) async throws {
        let rows = try await rows(on: connection)
        guard !rows.isEmpty else { return }
        let (followed, entries) = CatalogEditPlan.importing(catalog, rows: rows, actor: "import", at: date)
        try await save(followed, entries, on: connection)
    }

    /// The first edit of a catalog never edited: its rows from the products as the shop sells them.
    private func seedIfNeeded() async throws {
        let count = try await database.read { connection in
            try await connection.query("SELECT count(*) FROM catalog_product", logger: PostgresDatabase.quiet).collect().first?.decode(Int.self)
        }
        guard count == 0 else { return }
        let catalog = try await PostgresCatalogRepository.open(database: database)
        let total = try await catalog.count(matching: "")
        let rows = CatalogEditPlan.seed(try await catalog.page(matching: "", offset: 0, limit: max(1, total)), at: Date())
        try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresDatabase.catalogLock))", logger: PostgresDatabase.quiet)
            // Another host may have seeded it meanwhile: the first one's rows stand.
            let now = try await connection.query("SELECT count(*) FROM catalog_product", logger: PostgresDatabase.quiet).collect().first?
                .decode(Int.self)
            guard now == 0 else { return }
            try await Self.save(rows, [], on: connection)
        }
    }

    static func rows(on connection: PostgresConnection) async throws -> [CatalogProductRow] {
        var rows: [CatalogProductRow] = []
        let result = try await connection.query(
            "SELECT id, position, status, version, document, updated_at, updated_by FROM catalog_product ORDER BY position NULLS LAST, id",
            logger: PostgresDatabase.quiet)
        for try await (id, position, status, version, document, at, by) in result.decode((String, Int?, String, Int, String, Double, String).self) {
            rows.append(
                CatalogProductRow(
                    id: id, position: position, status: ProductStatus(rawValue: status) ?? .unpublished, version: version, document: document,
                    updatedAt: at, updatedBy: by))
        }
        return rows
    }

    /// Writes every row (positions move when one leaves the shop) and appends `entries` with the documents they left.
    static func save(_ rows: [CatalogProductRow], _ entries: [CatalogHistoryEntry], on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM catalog_product", logger: PostgresDatabase.quiet)
        try await connection.query(
            """
            INSERT INTO catalog_product (id, position, status, version, document, updated_at, updated_by)
            SELECT id, nullif(position, -1), status, version, document, updated_at, updated_by  -- -1: not published
            FROM unnest(\(rows.map(\.id))::text[], \(rows.map { $0.position ?? -1 })::int8[], \(rows.map(\.status.rawValue))::text[],
                        \(rows.map(\.version))::int8[], \(rows.map(\.document))::text[], \(rows.map(\.updatedAt))::float8[],
                        \(rows.map(\.updatedBy))::text[])
                 AS t (id, position, status, version, document, updated_at, updated_by)
            """, logger: PostgresDatabase.quiet)
        let documents = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.document) })
        guard !entries.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO catalog_edit (product_id, version, action, actor, at, document)
            SELECT * FROM unnest(\(entries.map(\.productID.rawValue))::text[], \(entries.map(\.version))::int8[], \(entries.map(\.action))::text[],
                                 \(entries.map(\.actor))::text[], \(entries.map(\.at.timeIntervalSince1970))::float8[],
                                 \(entries.map { documents[$0.productID.rawValue] ?? "" })::text[])
            """, logger: PostgresDatabase.quiet)
    }
}
