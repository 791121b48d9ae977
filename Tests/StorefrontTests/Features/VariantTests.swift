import Foundation
import ShopModels
import ShopPorts
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Products with options: a variant is chosen on the product page, bought, and its stock kept under its SKU.
@MainActor
@Suite("Options and variants")
struct VariantTests {
    static func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: .usd) }

    /// A hoodie in S–XL with one M left, and a mug sold as one item.
    static func catalog(mediumLeft: Int = 1) -> Catalog { VariantCatalogs.hoodieAndMug(mediumLeft: mediumLeft) }

    @Test func aShopBuysOutSizeMAndStillSellsL() async throws {
        let stack = try TestStack.selling(Self.catalog())
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("enter")
        #expect(driver.state.productDetail?.choice == ["S"], "the first size in stock is chosen")
        try await driver.press("right,a")
        #expect(driver.frameText.contains("Added Hoodie — M to your cart."), "the notice names the size: \(driver.frameText)")
        try await driver.press("c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        let first = try #require(try await stack.orders.orders(customer: nil, offset: 0, limit: 5).first)
        #expect(first.lines.map(\.name) == ["Hoodie — M"])
        #expect(first.lines.map(\.variant) == [ChosenVariant(sku: "hoodie-m", title: "M")])

        // M is gone: the page shows it sold out, and → steps from S over it to L.
        try await driver.press("s,enter")
        #expect(driver.state.productDetail?.canPick("M", of: 0) == false)
        #expect(driver.frameText.contains("M (sold out)"))
        try await driver.press("right")
        #expect(driver.state.productDetail?.choice == ["L"])
        try await driver.press("a,c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        let levels = try await SQLStockRepository(database: stack.database).stockLevels()
        let onHand = Dictionary(uniqueKeysWithValues: levels.map { ($0.productID.rawValue, $0.onHand) })
        #expect(onHand == ["hoodie-s": 5, "hoodie-m": 0, "hoodie-l": 4, "hoodie-xl": 5, "mug": 9])
        #expect(levels.first { $0.productID == "hoodie-l" }?.name == "Hoodie — L", "the stock screen names the variant")
    }

    @Test func theListSaysFromWherePricesDifferAndThePageShowsTheChosenPrice() async throws {
        let driver = await ScriptedDriver(stack: try TestStack.selling(Self.catalog()), size: Size(columns: 80, rows: 24))
        await driver.settle()
        #expect(driver.frameText.contains("from $58.00"))
        try await driver.press("enter,right,right,right")
        #expect(driver.state.productDetail?.choice == ["XL"])
        #expect(driver.frameText.contains("$62.00"))
        #expect(driver.frameText.contains("[XL]"))
    }

    @Test func aClickOnAValuePicksItWithTheKeysThatWould() async throws {
        let driver = await ScriptedDriver(stack: try TestStack.selling(Self.catalog(mediumLeft: 0)), size: Size(columns: 80, rows: 24))
        try await driver.press("enter")
        let frame = driver.program.frame
        let lines = frame.plainText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let row = try #require(lines.firstIndex { $0.contains("Size") })
        let column = try #require(lines[row].range(of: " XL")).lowerBound.utf16Offset(in: lines[row]) + 1
        #expect(frame.keys(forClickAt: column, row: row) == [.right, .right], "S → L → XL, over the sold-out M")
        let medium = try #require(lines[row].range(of: " M (sold out)")).lowerBound.utf16Offset(in: lines[row]) + 1
        #expect(frame.keys(forClickAt: medium, row: row) == [], "a sold-out value cannot be picked")
    }

    @Test func buyNowTakesTheVariantChosenOnThePage() async throws {
        let stack = try TestStack.selling(Self.catalog())
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("enter,right,right")
        #expect(driver.state.productDetail?.choice == ["L"])
        #expect(driver.state.productDetail?.canBuyNow == true)
        try await driver.press("b")
        #expect(driver.state.paymentSheet?.authorizationPrompt != nil, "b goes straight to authorization")
        try await driver.press("enter")
        #expect(driver.state.screen == .confirmation)
        let order = try #require(try await stack.orders.orders(customer: nil, offset: 0, limit: 1).first)
        #expect(order.lines.map(\.name) == ["Hoodie — L"])
        #expect(order.totals.subtotal == Self.usd(5_800))
    }

    @Test func aCartKeepsEachVariantOnItsOwnLineAcrossARestart() async throws {
        let stack = try TestStack.selling(Self.catalog())
        let carts = SQLCartRepository(database: stack.database)
        var cart = Cart(currency: .usd)
        let hoodie = Self.catalog().products[0]
        cart.add(hoodie, variant: hoodie.variants[0])
        cart.add(hoodie, variant: hoodie.variants[3])
        cart.add(hoodie, variant: hoodie.variants[0])
        #expect(cart.lines.map(\.name) == ["Hoodie — S", "Hoodie — XL"])
        #expect(cart.lines.map(\.quantity) == [2, 1])
        #expect(cart.subtotal == Self.usd(2 * 5_800 + 6_200))
        try await carts.save(cart.lines, forCustomer: "guest")
        #expect(try await carts.lines(forCustomer: "guest") == cart.lines)
    }
}

/// The shops these tests sell from, for suites on any actor.
enum VariantCatalogs {
    /// A hoodie in S–XL (XL dearer) with `mediumLeft` M left, and a mug sold as one item.
    static func hoodieAndMug(mediumLeft: Int = 1) -> Catalog {
        let usd = { (cents: Int64) in Money(minorUnits: cents, currency: .usd) }
        let sizes = ["S", "M", "L", "XL"]
        let hoodie = Product(
            id: "hoodie", name: "Hoodie", summary: "Warm.", description: "A warm hoodie.", price: usd(5_800), art: ["[]"],
            options: [ProductOption(name: "Size", values: sizes)],
            variants: sizes.map { size in
                ProductVariant(
                    sku: ProductID("hoodie-\(size.lowercased())"), values: [size], price: usd(size == "XL" ? 6_200 : 5_800),
                    stock: size == "M" ? mediumLeft : 5, grams: 600)
            })
        let mug = Product(id: "mug", name: "Mug", summary: "A mug.", description: "A mug.", price: usd(1_800), art: ["U"], stock: 9)
        return Catalog(shop: .standard(), products: [hoodie, mug])
    }
}
