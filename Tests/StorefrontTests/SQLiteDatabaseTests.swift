import Foundation
import ShopBootstrap
import ShopBundledCatalog
import ShopModels
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontTesting
import StorefrontUI
import Testing

@Suite("Stock")
struct StockTests {
    @Test func stockComesFromTheCatalogAndSurvivesAChangedCatalog() async throws {
        let directory = TemporaryDirectory.make()
        let database = try SQLiteDatabase.open(directory: directory)
        let first = try Fixtures.importBundledCatalog(into: database)
        #expect(try await first.product(id: "hoodie-root")?.stock == 3)
        // Two hoodies are sold; then the catalog changes.
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE stock SET on_hand = on_hand - 2, sold = sold + 2 WHERE product_id = 'hoodie-root'")
        }
        var changed = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        changed.products[0].name = "Dusk Keycap Set, second edition"
        var json = try JSONSerialization.jsonObject(with: Fixtures.catalogJSON(changed)) as! [String: Any]
        var products = json["products"] as! [[String: Any]]
        for index in products.indices where products[index]["options"] == nil { products[index]["stock"] = 99 }
        json["products"] = products
        let reopened = try SQLiteCatalogImport.open(
            database: database, catalogData: try JSONSerialization.data(withJSONObject: json), source: "changed",
            pictures: BundledPictures.catalogImport.resolving)
        #expect(reopened.didImport)
        #expect(try await reopened.product(id: "hoodie-root")?.stock == 1, "re-reading the catalog keeps the stock")
        #expect(try await reopened.page(matching: "", offset: 0, limit: 1).first?.name == "Dusk Keycap Set, second edition")
    }

    @Test func catalogsWithoutStockGetTheDefault() async throws {
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        let repository = try SQLiteCatalogImport.open(
            database: database, catalogData: Data(#"[{"id":1,"name":"A","price":100,"description":"d"}]"#.utf8), source: "bench")
        #expect(try await repository.product(id: "1")?.stock == SQLCatalogRepository.defaultStock)
    }

    @Test func stockMustBeAWholeNumber() {
        #expect(throws: CatalogError.self) {
            try CatalogLoader.load(data: Data(#"[{"id":1,"name":"A","price":100,"description":"d","stock":-1}]"#.utf8), source: "t")
        }
    }

    @MainActor
    @Test func addingMoreThanTheStockIsRefused() async throws {
        let driver = await ScriptedDriver()
        // Quiet Hours Headphones: 2 in stock.
        let position = try #require(
            try await Fixtures.bundledCatalog.page(matching: "", offset: 0, limit: 100).firstIndex { $0.id == "headphones-quiet" })
        for _ in 0..<position { await driver.press(.down) }
        try await driver.press("enter")
        #expect(driver.frameText.contains("Only 2 left"))
        try await driver.press("a,a,a")
        #expect(driver.state.cartBadge.itemCount == 2)
        #expect(driver.state.notice?.text == "Only 2 of Quiet Hours Headphones left, and your cart has 2.")
        try await driver.press("c,+")
        #expect(driver.state.cart.lines.first?.quantity == 2)
        #expect(driver.state.notice?.kind == .error)
    }

    @MainActor
    @Test func soldOutIsShownAndCannotBeAdded() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("/,p,o,s,t,e,r,enter")
        #expect(driver.frameText.contains("Sold out"))
        try await driver.press("a")
        #expect(driver.state.cartBadge.itemCount == 0)
        #expect(driver.state.notice?.text == "Terminal Poster is sold out.")
    }
}

@Suite("Catalog file stamp")
struct CatalogFileStampTests {
    @Test func anUnchangedFileIsNotReadAgainAndAChangedOneIs() async throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("catalog.json")
        try #"[{"id":1,"name":"A","price":100,"description":"d"}]"#.write(to: file, atomically: true, encoding: .utf8)
        let database = try SQLiteDatabase.open(directory: directory.appendingPathComponent("data"))
        #expect(try SQLiteCatalogImport.open(database: database, catalogFile: file).didImport)
        #expect(try !SQLiteCatalogImport.open(database: database, catalogFile: file).didImport)
        // Rewritten (a new inode and size): read, hashed, and imported.
        try #"[{"id":1,"name":"A","price":100,"description":"d"},{"id":2,"name":"B","price":5,"description":"e"}]"#.write(
            to: file, atomically: true, encoding: .utf8)
        let changed = try SQLiteCatalogImport.open(database: database, catalogFile: file)
        #expect(changed.didImport)
        #expect(try await changed.count(matching: "") == 2)
        // Same content written again: the stamp differs, the hash does not, so nothing is imported.
        try #"[{"id":1,"name":"A","price":100,"description":"d"},{"id":2,"name":"B","price":5,"description":"e"}]"#.write(
            to: file, atomically: true, encoding: .utf8)
        #expect(try !SQLiteCatalogImport.open(database: database, catalogFile: file).didImport)
    }

    @Test func searchKeepsCatalogOrderAfterAReorder() async throws {
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        _ = try SQLiteCatalogImport.open(
            database: database,
            catalogData: Data(
                #"[{"id":"a","name":"Oak Mug","price":1,"description":"d"},{"id":"b","name":"Oak Lamp","price":1,"description":"d"},{"id":"c","name":"Oak Desk","price":1,"description":"d"}]"#
                    .utf8), source: "first", pictures: BundledPictures.catalogImport.resolving)
        let reordered = try SQLiteCatalogImport.open(
            database: database,
            catalogData: Data(
                #"[{"id":"c","name":"Oak Desk","price":1,"description":"d"},{"id":"a","name":"Oak Mug","price":1,"description":"d"}]"#.utf8),
            source: "second", pictures: BundledPictures.catalogImport.resolving)
        #expect(try await reordered.page(matching: "oak", offset: 0, limit: 10).map(\.id) == ["c", "a"])
        #expect(try await reordered.count(matching: "oak") == 2, "the retired product is not counted")
        #expect(try await reordered.page(matching: "", offset: 0, limit: 10).map(\.id) == ["c", "a"])
    }
}

@Suite("SQLite in memory")
struct SQLiteInMemoryTests {
    @Test func eachCopyOfTheTestShopIsAShopOfItsOwn() async throws {
        let (first, second) = (Fixtures.bundledShop(), Fixtures.bundledShop())
        let (firstStock, secondStock) = (SQLStockRepository(database: first), SQLStockRepository(database: second))
        _ = try await firstStock.setStock(of: "hoodie-root", onHand: 0)
        #expect(try await firstStock.stockLevels().first { $0.productID == "hoodie-root" }?.onHand == 0)
        #expect(try await secondStock.stockLevels().first { $0.productID == "hoodie-root" }?.onHand == 3, "a write to one copy stays there")
        let installs = try await [first, second, try SQLiteDatabase.inMemory()].asyncMap {
            try await SQLProviderReferences(database: $0).installID()
        }
        #expect(Set(installs).count == 3, "each copy has its own install id, as a new database has: \(installs)")
        #expect(first.path == ":memory:")
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}

@Suite("Variants across imports")
struct VariantImportTests {
    @Test func aChangedCatalogReplacesVariantsAndKeepsTheStockOfThoseThatStay() async throws {
        let database = try SQLiteDatabase.inMemory()
        var catalog = VariantCatalogs.hoodieAndMug()
        _ = try SQLiteCatalogImport.open(
            database: database, catalogData: try Fixtures.catalogJSON(catalog), source: "first", pictures: BundledPictures.catalogImport.resolving)
        _ = try await SQLStockRepository(database: database).setStock(of: "hoodie-l", onHand: 1)
        // XL leaves, XXL arrives, L costs more.
        let usd = { (cents: Int64) in Money(minorUnits: cents, currency: .usd) }
        catalog.products[0].options = [ProductOption(name: "Size", values: ["S", "M", "L", "XXL"])]
        catalog.products[0].variants.removeLast()
        catalog.products[0].variants[2].price = usd(6_000)
        catalog.products[0].variants.append(ProductVariant(sku: "hoodie-xxl", values: ["XXL"], price: usd(6_400), stock: 2))
        let reopened = try SQLiteCatalogImport.open(
            database: database, catalogData: try Fixtures.catalogJSON(catalog), source: "second", pictures: BundledPictures.catalogImport.resolving)
        let hoodie = try #require(try await reopened.product(id: "hoodie"))
        #expect(hoodie.variants.map(\.sku) == ["hoodie-s", "hoodie-m", "hoodie-l", "hoodie-xxl"])
        #expect(hoodie.variants.map(\.stock) == [5, 1, 1, 2], "L keeps the count set by hand; XXL starts with its own")
        #expect(hoodie.variants[2].price == usd(6_000))
    }
}
