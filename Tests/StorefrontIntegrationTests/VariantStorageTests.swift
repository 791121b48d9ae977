import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Variants on both databases: the bundled coffee (by grind and weight) read back, each variant's stock reserved, sold,
/// released and restocked under its SKU, and cart and order lines that keep the variant.
@Suite("Variants in a database", .ownThreads)
struct VariantStorageTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)
    static let espressoKilo: ProductID = "coffee-beans-espresso-1kg"

    /// A draft for `quantity` of the coffee as the variant with `sku`, as the product page makes it.
    func draft(_ fixture: any StockedOrderRepository, sku: ProductID, quantity: Int) async throws -> OrderDraft {
        let coffee = try #require(try await fixture.catalog.product(id: "coffee-beans"))
        let variant = try #require(coffee.variants.first { $0.sku == sku })
        let line = CartLine(product: coffee, variant: variant, quantity: quantity)
        var draft = Drafts.draft("coffee-beans", name: "Compile-Time Coffee", quantity: quantity, unitPrice: variant.price.minorUnits)
        draft.lines = [line]
        return draft
    }

    func stockLevels(_ kind: StockedRepositoryKind, _ fixture: any StockedOrderRepository) async throws -> [StockLevel] {
        switch fixture {
        case let sqlite as SQLiteFixture: try await SQLStockRepository(database: sqlite.database).stockLevels()
        case let postgres as PostgresStockFixture: try await SQLStockRepository(database: postgres.server.database).stockLevels()
        default: throw StorageError("no stock repository for \(kind)")
        }
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func theCoffeeIsReadWithEachVariantAndItsStock(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let coffee = try #require(try await fixture.catalog.product(id: "coffee-beans"))
        #expect(coffee.options.map(\.name) == ["Grind", "Weight"])
        #expect(coffee.variants.count == 6)
        #expect(coffee.variants.map(\.title).prefix(2) == ["Whole bean · 250 g", "Filter · 250 g"])
        #expect(coffee.price.minorUnits == 1_700 && coffee.highestPrice?.minorUnits == 5_400)
        #expect(coffee.variants.first { $0.sku == Self.espressoKilo }?.stock == 1)
        #expect(coffee.stock == 15, "the product's stock is its variants' added up")
        let listed = try await fixture.catalog.page(matching: "coffee", offset: 0, limit: 5)
        #expect(listed.first { $0.id == "coffee-beans" }?.variants.count == 6, "a search's page carries the variants too")
        let levels = try await stockLevels(kind, fixture)
        #expect(levels.first { $0.productID == Self.espressoKilo }?.name == "Compile-Time Coffee — Espresso · 1 kg")
        #expect(!levels.contains { $0.productID == "coffee-beans" }, "a product with variants has no stock of its own")
        #expect(!levels.contains { $0.name.hasSuffix("(withdrawn)") || $0.name.hasSuffix("(no longer in the catalog)") })
    }

    /// Stock that no longer sells stays in the merchant's list, named as such: a withdrawn product's, its variants', and
    /// a row whose variant was edited out of the catalog.
    @Test(arguments: StockedRepositoryKind.allCases)
    func stockThatNoLongerSellsIsListedAsSuch(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        try fixture.execute("UPDATE product SET position = NULL WHERE id IN ('mug-stdout', 'coffee-beans')")
        try fixture.execute("INSERT INTO stock (product_id, on_hand, reserved, sold) VALUES ('tee-dropped-xl', 3, 0, 2)")
        let levels = try await stockLevels(kind, fixture)
        #expect(levels.first { $0.productID == "mug-stdout" }?.name.hasSuffix("(withdrawn)") == true, "\(levels.map(\.name))")
        #expect(levels.first { $0.productID == Self.espressoKilo }?.name == "Compile-Time Coffee — Espresso · 1 kg (withdrawn)")
        let dropped = try #require(levels.first { $0.productID == "tee-dropped-xl" })
        #expect(dropped.name == "tee-dropped-xl (no longer in the catalog)" && dropped.onHand == 3 && dropped.sold == 2)
        #expect(levels.filter { $0.productID == "keycap-dusk" }.count == 1, "a product on sale is listed once")
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func aVariantsStockIsReservedSoldAndNeverOversold(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let order = try await fixture.orders.begin(
            try await draft(fixture, sku: Self.espressoKilo, quantity: 1), idempotencyKey: "k1", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        #expect(try fixture.stock(Self.espressoKilo.rawValue) == (0, 1, 0))
        try await fixture.orders.finish(orderNumber: order.number, status: .paid, failure: nil)
        #expect(try fixture.stock(Self.espressoKilo.rawValue) == (0, 0, 1), "paying moves the variant's unit to sold")
        #expect(
            try await fixture.orders.order(number: order.number)?.lines.map(\.variant) == [
                ChosenVariant(sku: Self.espressoKilo, title: "Espresso · 1 kg")
            ])
        await #expect(throws: OrderRepositoryError.soldOut(productName: "Compile-Time Coffee — Espresso · 1 kg", available: 0)) {
            _ = try await fixture.orders.begin(
                try await draft(fixture, sku: Self.espressoKilo, quantity: 1), idempotencyKey: "k2", tokenID: "t", paymentDescription: "Visa",
                placedAt: placedAt)
        }
        // Another variant of the same product still sells, and a decline gives its unit back.
        let other = try await fixture.orders.begin(
            try await draft(fixture, sku: "coffee-beans-filter-1kg", quantity: 2), idempotencyKey: "k3", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        #expect(try fixture.stock("coffee-beans-filter-1kg") == (0, 2, 0))
        try await fixture.orders.finish(orderNumber: other.number, status: .declined, failure: "no")
        #expect(try fixture.stock("coffee-beans-filter-1kg") == (2, 0, 0))
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func aRefundRestocksTheVariantItBought(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let order = try await fixture.orders.begin(
            try await draft(fixture, sku: Self.espressoKilo, quantity: 1), idempotencyKey: "k1", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        try await fixture.orders.finish(orderNumber: order.number, status: .paid, failure: nil)
        let paid = try #require(try await fixture.orders.order(number: order.number))
        #expect(FiledRefund.restockable(paid, []) == [Self.espressoKilo: 1], "what can go back is the variant's stock")
        let ask = RefundAsk(
            amount: paid.refundAmount(for: [Self.espressoKilo: 1]), restock: [Restock(productID: Self.espressoKilo, quantity: 1)], reason: "returned")
        let filed = try await fixture.orders.fileRefund(ask, toOrder: order.number, by: .merchant("ops"), at: placedAt, expecting: .paid)
        _ = try await fixture.orders.settleRefund(id: filed.id, as: .refunded(reference: "re_1"), at: placedAt)
        #expect(try fixture.stock(Self.espressoKilo.rawValue) == (1, 0, 0))
    }
}
