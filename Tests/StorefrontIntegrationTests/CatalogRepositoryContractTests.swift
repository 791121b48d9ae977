import Foundation
import ShopBootstrap
import ShopBundledCatalog
import ShopModels
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Makes a fresh repository of one kind over a catalog, for the contract tests.
enum CatalogRepositoryKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, sqlite, postgres

    var testDescription: String { rawValue }

    /// The kinds that search: each database's own search (the in-memory double pages only).
    static let searching: [CatalogRepositoryKind] = [.sqlite, .postgres]

    func make(_ catalog: Catalog) async throws -> any CatalogRepository {
        switch self {
        case .inMemory:
            return InMemoryCatalog(catalog: catalog)
        case .sqlite:
            let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
            return try SQLiteCatalogImport.open(
                database: database, catalogData: try Fixtures.catalogJSON(catalog), source: "test", pictures: BundledPictures.catalogImport.resolving)
        case .postgres:
            return try await PostgresFixture().importing(catalog)
        }
    }
}

/// One behaviour, three implementations: the in-memory catalog (paging only), SQLite and PostgreSQL answer alike.
@Suite("CatalogRepository contract", .ownThreads)
struct CatalogRepositoryContractTests {
    static let catalog = Fixtures.generatedCatalog(count: 500)

    @Test(arguments: CatalogRepositoryKind.allCases)
    func countsAndPagesInCatalogOrder(kind: CatalogRepositoryKind) async throws {
        let repository = try await kind.make(Self.catalog)
        #expect(try await repository.count(matching: "") == 500)
        #expect(try await repository.page(matching: "", offset: 0, limit: 3).map(\.id) == ["p1", "p2", "p3"])
        #expect(try await repository.page(matching: "", offset: 498, limit: 5).map(\.id) == ["p499", "p500"])
        #expect(try await repository.page(matching: "", offset: 500, limit: 5).isEmpty)
        #expect(try await repository.page(matching: "", offset: 10, limit: 0).isEmpty)
    }

    @Test(arguments: CatalogRepositoryKind.allCases)
    func looksUpById(kind: CatalogRepositoryKind) async throws {
        let repository = try await kind.make(Self.catalog)
        let product = try await #require(try repository.product(id: "p42"))
        #expect(product == Self.catalog.products[41])
        #expect(try await repository.product(id: "nope") == nil)
    }

    @Test(arguments: CatalogRepositoryKind.searching)
    func searchesWordPrefixesCaseInsensitively(kind: CatalogRepositoryKind) async throws {
        let repository = try await kind.make(Self.catalog)
        let expected = Self.catalog.products.filter { $0.name.contains("Oak") && $0.name.contains("Mug") }.map(\.id)
        #expect(!expected.isEmpty)
        #expect(try await repository.count(matching: "oak mug") == expected.count)
        #expect(try await repository.page(matching: "OAK Mu", offset: 0, limit: 1_000).map(\.id) == expected)
        #expect(try await repository.page(matching: "oak mug", offset: 1, limit: 2).map(\.id) == Array(expected.dropFirst().prefix(2)))
        #expect(try await repository.count(matching: "zzzz") == 0)
    }

    @Test(arguments: CatalogRepositoryKind.allCases)
    func shopProfileComesWithTheCatalog(kind: CatalogRepositoryKind) async throws {
        #expect(try await kind.make(Self.catalog).shop.currency == .usd)
    }
}

@Suite("SQLite catalog repository", .ownThreads)
struct SQLiteDatabaseTests {
    @Test func importsOnlyWhenTheContentChanges() async throws {
        let directory = TemporaryDirectory.make()
        let first = try Fixtures.importBundledCatalog(into: try SQLiteDatabase.open(directory: directory))
        #expect(first.didImport)
        let again = try Fixtures.importBundledCatalog(into: try SQLiteDatabase.open(directory: directory))
        #expect(!again.didImport)
        #expect(try await again.count(matching: "") == 24)

        var changed = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        changed.products[0].price = Money(minorUnits: 1, currency: .usd)
        changed.products.removeLast()
        let reimported = try SQLiteCatalogImport.open(
            database: try SQLiteDatabase.open(directory: directory), catalogData: try Fixtures.catalogJSON(changed), source: "changed",
            pictures: BundledPictures.catalogImport.resolving)
        #expect(reimported.didImport)
        #expect(try await reimported.count(matching: "") == 23)
        #expect(try await reimported.page(matching: "", offset: 0, limit: 1).first?.price.minorUnits == 1)
        #expect(try await reimported.product(id: "tote-canvas") == nil, "a product gone from the catalog is not sold")
    }

    @Test("an import leaves its pages in the database file, read through the shared mapping, not in the write-ahead log")
    func anImportIsCheckpointedIntoTheFile() async throws {
        let directory = TemporaryDirectory.make()
        let database = try SQLiteDatabase.open(directory: directory)
        let repository = try Fixtures.importBundledCatalog(into: database)
        #expect(repository.didImport)
        let log = try FileManager.default.attributesOfItem(atPath: database.path + "-wal")[.size] as? Int
        #expect(log == 0)
        let file = try FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int ?? 0
        #expect(file > 64 * 1024, "the catalog's rows are in the file")
        #expect(try await repository.count(matching: "") == 24)
    }

    @Test func anInvalidCatalogIsRejectedAndTheOldOneKept() throws {
        let directory = TemporaryDirectory.make()
        let database = try SQLiteDatabase.open(directory: directory)
        _ = try Fixtures.importBundledCatalog(into: database)
        #expect(throws: CatalogError.self) {
            try SQLiteCatalogImport.open(database: database, catalogData: Data(#"[{"id": 1}]"#.utf8), source: "bad.json")
        }
        let count = try database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM product WHERE position IS NOT NULL") }
        #expect(count == 24)
    }

    @Test func aDamagedFileIsNamedAndNeverOverwritten() throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(SQLiteDatabase.fileName)
        let garbage = Data(repeating: 0x42, count: 8_192)
        try garbage.write(to: file)
        #expect {
            try SQLiteDatabase.open(directory: directory)
        } throws: { error in
            guard case .notADatabase(let path, _) = error as? SQLiteDatabaseError else { return false }
            return path == file.path
        }
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test func aNewerSchemaIsRefused() throws {
        let directory = TemporaryDirectory.make()
        let database = try SQLiteDatabase.open(directory: directory)
        try database.pool.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        #expect(throws: SQLiteDatabaseError.newerSchema(path: database.path, unknownMigrations: ["v99-from-the-future"])) {
            try SQLiteDatabase.open(directory: directory)
        }
    }

    @Test func runsInWALWithFullSynchronous() throws {
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        let (mode, synchronous) = try database.pool.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        #expect(mode == "wal")
        #expect(synchronous == 2, "FULL")
    }

    @Test func anUnsyncedWriteCommitsWithoutSyncAndLeavesTheWriterSyncingInFull() async throws {
        struct Refused: Error {}
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        let during = try await database.writeUnsynced { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(during == 1, "NORMAL while the write runs")
        let writerSetting = { try database.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } }
        #expect(try writerSetting() == 2, "the next write, an order perhaps, is synced in FULL")
        await #expect(throws: StorageError.self) { try await database.writeUnsynced { _ in throw Refused() } }
        #expect(try writerSetting() == 2, "FULL again after a write that failed")

        let carts = SQLCartRepository(database: database)
        let line = CartLine(productID: "mug", name: "Mug", unitPrice: Money(minorUnits: 1800, currency: .usd), quantity: 2)
        try await carts.save([line], forCustomer: "guest")
        #expect(try await carts.lines(forCustomer: "guest") == [line])
        #expect(try writerSetting() == 2)
    }
}
