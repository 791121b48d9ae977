import Foundation
import ShopModels
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// The merchant edits the catalog on both databases: a product made with two options reaches a shop reading the same
/// database through another connection (another session, another host), every change is in the history with who made
/// it, two edits of one version give one "changed meanwhile", and a product out of the shop keeps its orders' lines.
@Suite("Catalog editing in a database", .ownThreads)
struct CatalogEditingTests {
    static let tee = """
        {"id": "tee-pipes", "name": "Pipes Tee", "summary": "A tee with a pipe on it.", "description": "Cotton.", "price": 2400,
         "tags": ["tee"], "art": ["|>"],
         "options": [{"name": "Size", "values": ["S", "M"]}, {"name": "Colour", "values": ["Black", "White"]}],
         "variants": [{"sku": "tee-pipes-s-black", "options": ["S", "Black"]}, {"sku": "tee-pipes-m-black", "options": ["M", "Black"], "stock": 2},
                      {"sku": "tee-pipes-m-white", "options": ["M", "White"], "price": 2600}]}
        """
    let now = Date(timeIntervalSince1970: 1_795_339_800)

    /// An editor and a catalog reader each on their own connections to the fixture's database.
    func editors(_ kind: StockedRepositoryKind, _ fixture: any StockedOrderRepository) throws -> (any CatalogEditing, any CatalogEditing) {
        let shop = fixture.catalog.shop
        switch fixture {
        case let sqlite as SQLiteFixture:
            return (
                SQLCatalogEditor(database: sqlite.database, shop: shop),
                SQLCatalogEditor(database: try SQLiteDatabase.open(directory: sqlite.directory), shop: shop)
            )
        case let postgres as PostgresStockFixture:
            return (
                SQLCatalogEditor(database: postgres.server.database, shop: shop),
                SQLCatalogEditor(database: try postgres.server.anotherClient(), shop: shop)
            )
        default: throw StorageError("no editor for \(kind)")
        }
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func aProductWithTwoOptionsIsMadeAndAShopOnAnotherConnectionSellsIt(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let (editor, _) = try editors(kind, fixture)
        let before = try await fixture.catalog.count(matching: "")
        let listed = try await editor.products()
        #expect(listed.count == before && listed.allSatisfy { $0.status == .published && $0.version == 1 }, "seeded from the shop's catalog")
        let made = try await editor.apply(
            CatalogEdit(productID: "tee-pipes", change: .create(document: Self.tee), expectedVersion: nil, actor: "local:ada"), at: now)
        #expect(made.version == 1 && made.status == .published && made.name == "Pipes Tee")
        #expect(try await fixture.catalog.count(matching: "") == before + 1, "the count is read afresh")
        let tee = try #require(try await fixture.catalog.product(id: "tee-pipes"))
        #expect(
            tee.options.map(\.name) == ["Size", "Colour"]
                && tee.variants.map(\.sku.rawValue) == [
                    "tee-pipes-s-black", "tee-pipes-m-black", "tee-pipes-m-white",
                ])
        #expect(tee.variants.map(\.stock) == [25, 2, 25], "a variant's stock as its document gives it, else the shop's default")
        let page = try await fixture.catalog.page(matching: "", offset: before, limit: 5)
        #expect(page.map(\.id) == ["tee-pipes"], "a new product comes last")
        #expect(try await fixture.catalog.page(matching: "pipes tee", offset: 0, limit: 5).map(\.id) == ["tee-pipes"], "and is found")
        let history = try await editor.history(of: "tee-pipes", limit: 10)
        #expect(history == [CatalogHistoryEntry(productID: "tee-pipes", version: 1, action: "create", actor: "local:ada", at: now)])
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func twoEditsOfOneVersionGiveOneChangedMeanwhile(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let (here, there) = try editors(kind, fixture)
        let mug = try #require(try await here.products().first { $0.id == "mug-stdout" })
        func renamed(_ name: String) -> String { mug.document.replacingOccurrences(of: "\"stdout Mug\"", with: "\"\(name)\"") }
        async let first = Result { () async throws(CatalogEditError) -> EditableProduct in
            try await here.apply(
                CatalogEdit(productID: "mug-stdout", change: .update(document: renamed("Mug A")), expectedVersion: mug.version, actor: "ssh:a"),
                at: now)
        }
        async let second = Result { () async throws(CatalogEditError) -> EditableProduct in
            try await there.apply(
                CatalogEdit(productID: "mug-stdout", change: .update(document: renamed("Mug B")), expectedVersion: mug.version, actor: "ssh:b"),
                at: now)
        }
        let results = await [first, second]
        let saved = results.compactMap { try? $0.get() }
        let refused = results.compactMap { result -> CatalogEditError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(saved.count == 1 && saved.first?.version == mug.version + 1)
        guard case .changedMeanwhile("mug-stdout", let now, let by)? = refused.first, refused.count == 1 else {
            Issue.record("expected one changed meanwhile: \(refused)")
            return
        }
        #expect(now == mug.version + 1 && by == saved.first?.updatedBy)
        #expect(try await fixture.catalog.product(id: "mug-stdout")?.name == saved.first?.name, "the one saved is what the shop sells")
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func unpublishedAndArchivedProductsLeaveTheShopAndTheirOrdersKeepTheirLines(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let (editor, _) = try editors(kind, fixture)
        let order = try await fixture.orders.begin(
            Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: now)
        let before = try await fixture.catalog.count(matching: "")
        var mug = try #require(try await editor.products().first { $0.id == "mug-stdout" })
        mug = try await editor.apply(
            CatalogEdit(productID: "mug-stdout", change: .setStatus(.unpublished), expectedVersion: mug.version, actor: "local:ada"), at: now)
        #expect(try await fixture.catalog.product(id: "mug-stdout") == nil)
        #expect(try await fixture.catalog.count(matching: "") == before - 1)
        #expect(try await fixture.catalog.page(matching: "mug", offset: 0, limit: 10).allSatisfy { $0.id != "mug-stdout" })
        mug = try await editor.apply(
            CatalogEdit(productID: "mug-stdout", change: .setStatus(.published), expectedVersion: mug.version, actor: "local:ada"), at: now)
        let last = try await fixture.catalog.page(matching: "", offset: before - 1, limit: 1)
        #expect(last.map(\.id) == ["mug-stdout"], "published again, it comes last")
        mug = try await editor.apply(
            CatalogEdit(productID: "mug-stdout", change: .setStatus(.archived), expectedVersion: mug.version, actor: "local:bo"), at: now)
        #expect(mug.status == .archived && mug.version == 4)
        #expect(try await fixture.catalog.product(id: "mug-stdout") == nil)
        #expect(try await fixture.orders.order(number: order.number)?.lines.map(\.name) == ["stdout Mug"], "the order keeps its line")
        #expect(try await editor.history(of: "mug-stdout", limit: 10).map(\.action) == ["archive", "publish", "unpublish"])
        #expect(try await editor.products().last?.id == "mug-stdout", "out of the shop, listed after the published")
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func aProductWithProblemsIsRefusedFieldByFieldAndNothingIsWritten(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let (editor, _) = try editors(kind, fixture)
        let bad = Self.tee.replacingOccurrences(of: "\"price\": 2400", with: "\"price\": -1")
            .replacingOccurrences(of: "\"Black\", \"White\"", with: "\"Black\", \"Black\"")
        await #expect(
            throws: CatalogEditError.invalid([
                "price: must not be negative, got -1", "options[1].values[1]: repeats the value \"Black\"",
                "variants[2].options[1]: must be one of Colour's values: Black, Black",
            ])
        ) {
            try await editor.apply(CatalogEdit(productID: "tee-pipes", change: .create(document: bad), expectedVersion: nil, actor: "a"), at: now)
        }
        let clash = Self.tee.replacingOccurrences(of: "tee-pipes-s-black", with: "coffee-beans-espresso-1kg")
        await #expect(throws: CatalogEditError.invalid(["variants[0].sku: coffee-beans-espresso-1kg is already a SKU of coffee-beans"])) {
            try await editor.apply(CatalogEdit(productID: "tee-pipes", change: .create(document: clash), expectedVersion: nil, actor: "a"), at: now)
        }
        await #expect(throws: CatalogEditError.alreadyExists("mug-stdout")) {
            try await editor.apply(
                CatalogEdit(
                    productID: "mug-stdout", change: .create(document: Self.tee.replacingOccurrences(of: "\"tee-pipes\"", with: "\"mug-stdout\"")),
                    expectedVersion: nil, actor: "a"), at: now)
        }
        #expect(try await fixture.catalog.product(id: "tee-pipes") == nil)
        #expect(try await editor.history(of: nil, limit: 10).isEmpty)
    }
}
