import Foundation
import ShopApplication
import ShopModels
import StorefrontCore
import StorefrontTesting
import Testing

/// The largest amount the shop handles, enforced where money enters; arithmetic never traps on data.
@Suite("Money bounds")
struct MoneyBoundsTests {
    @Test func arithmeticSaturatesInsteadOfTrapping() {
        let most = Money(minorUnits: .max, currency: .usd)
        #expect((most + Money(minorUnits: 1, currency: .usd)).minorUnits == .max)
        #expect((Money(minorUnits: .min, currency: .usd) - Money(minorUnits: 1, currency: .usd)).minorUnits == .min)
        #expect((most * 99).minorUnits == .max)
        #expect(!(most * 99).isWithinMaximum)
    }

    @Test func taxOnAnyAmountIsExactOrSaturatesWithoutTrapping() {
        let hundredPercent = TaxPolicy(basisPoints: 10_000)
        #expect(hundredPercent.tax(on: Money(minorUnits: 9_900_000_000_000_00, currency: .usd)).minorUnits == 9_900_000_000_000_00)
        #expect(hundredPercent.tax(on: Money(minorUnits: .max, currency: .usd)).minorUnits == .max)
        #expect(TaxPolicy(basisPoints: 825).tax(on: Money(minorUnits: .max, currency: .usd)).minorUnits == 760_928_193_040_519_004)
        #expect(TaxPolicy(basisPoints: 825).tax(on: Money(minorUnits: -1000, currency: .usd)).minorUnits == -83)
    }

    @Test func theValidatorBoundsShippingAmountsAndFreeFrom() throws {
        let json = #"""
            {"store": {"shipping": [
                {"id": "huge", "label": "Huge", "amount": 9223372036854775807},
                {"id": "odd", "label": "Odd", "amount": 100, "freeFrom": "soon"},
                {"id": "neg", "label": "Neg", "amount": 100, "freeFrom": -1},
                {"id": "esc", "label": "Esc\u001b]0;x\u0007", "amount": 100}
            ]}, "products": [{"id": "a", "name": "A", "description": "d.", "price": 100}]}
            """#
        let error = try #require(throws: CatalogError.self) { try CatalogLoader.load(data: Data(json.utf8), source: "c.json") }
        #expect(
            error.issues.map(\.path) == [
                "$.store.shipping[0].amount", "$.store.shipping[1].freeFrom", "$.store.shipping[2].freeFrom", "$.store.shipping[3]",
            ])
    }

    /// The dearest catalog the validator accepts: the highest price, 100 % tax, the dearest shipping.
    private static func dearestCatalog() throws -> InMemoryCatalog {
        let json = """
            {"store": {"taxBasisPoints": 10000, "shipping": [{"id": "s", "label": "S", "amount": \(CatalogLoader.maximumPrice)}]},
             "products": [{"id": "gold", "name": "Gold Bar", "description": "d.", "price": \(CatalogLoader.maximumPrice), "stock": 1000}]}
            """
        return InMemoryCatalog(catalog: try CatalogLoader.load(data: Data(json.utf8), source: "dear.json"))
    }

    @MainActor @Test func addingPastTheBoundIsRefusedWithTheBound() async throws {
        let driver = await ScriptedDriver(stack: TestStack(catalog: try Self.dearestCatalog()))
        // Each unit costs $200,000,000 with its tax, shipping $100,000,000: 49 fit, the 50th would not.
        try await driver.press(String(repeating: "a,", count: 49) + "a")
        #expect(driver.state.notice?.text == "This would take the cart over $9,999,999,999.99.")
        #expect(driver.state.cartBadge.itemCount == 49)
        try await driver.press("c,+")
        #expect(driver.state.notice?.text == "This would take the cart over $9,999,999,999.99.")
        #expect(driver.state.cart.totals.total.isWithinMaximum)
    }

    @MainActor @Test func aSavedCartOverTheBoundStillOpensTheShopAndSaysWhatWasLeftOut() async throws {
        var stack = TestStack(catalog: try Self.dearestCatalog())
        let carts = InMemoryCartRepository()
        let price = Money(minorUnits: CatalogLoader.maximumPrice, currency: .usd)
        try carts.save(
            [
                CartLine(productID: "gold", name: "Gold Bar", unitPrice: price, quantity: 40),
                CartLine(productID: "other", name: "Platinum Bar", unitPrice: price, quantity: 99),
                CartLine(productID: "forged", name: "Forged", unitPrice: Money(minorUnits: .max, currency: .usd), quantity: 99),
            ], forCustomer: stack.guestID)
        stack.carts = carts
        let driver = await ScriptedDriver(stack: stack)
        #expect(driver.state.notice?.text == "Your saved cart would cost over $9,999,999,999.99; left out: Platinum Bar, Forged.")
        #expect(driver.state.cartBadge.itemCount == 40)
        #expect(driver.state.cart.totals.total.isWithinMaximum)
    }
}
