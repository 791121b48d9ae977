import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// The Apple Pay article's scenarios, each its own test.
@MainActor
@Suite("Payment authorization")
struct PaymentAuthorizationTests {
    private func checkoutDriver(_ configure: (PaymentAuthorizationSpy) -> Void) async throws -> (ScriptedDriver, PaymentAuthorizationSpy) {
        let spy = PaymentAuthorizationSpy()
        configure(spy)
        var stack = TestStack()
        stack.paymentAuthorization = spy.authorization
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter")
        return (driver, spy)
    }

    @Test func unsupportedNetworksOfferCardSetupAndCreateNoController() async throws {
        let (driver, spy) = try await checkoutDriver { $0.supportsNetworks = false }
        #expect(spy.requests.isEmpty)
        #expect(spy.controllers.isEmpty)
        #expect(driver.state.paymentSheet?.offersCardSetup == true)
        #expect(driver.state.paymentSheet?.isPayEnabled == false)
        #expect(driver.state.notice?.text == "No card in your wallet works here. Set up a card to pay.")
        #expect(driver.frameText.contains("[ Set up card ]"))
        #expect(!driver.frameText.contains("[ Pay ]"))
    }

    @Test func invalidRequestIsUnableToInitialize() async throws {
        let spy = PaymentAuthorizationSpy()
        var stack = TestStack()
        var shop = stack.catalog.shop
        shop.merchantIdentifier = ""
        stack.catalog = ShopProfileOverride(base: stack.catalog, shop: shop)
        stack.paymentAuthorization = spy.authorization
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter")
        #expect(spy.requests.count == 1)
        #expect(spy.controllers.isEmpty)
        #expect(driver.state.screen == .cart)
        #expect(driver.state.notice?.text == "The payment sheet could not be opened for this order.")
    }

    @Test func validRequestGetsAControllerFromTheFactory() async throws {
        let (driver, spy) = try await checkoutDriver { _ in }
        #expect(spy.controllers.count == 1)
        #expect(spy.controllers[0].calls == ["present"])
        #expect(spy.requests[0].summaryItems.last?.label == "Storefront")
        #expect(driver.state.screen == .paymentSheet)
        #expect(driver.state.paymentSheet?.isPayEnabled == true)
    }

    @Test func deviceThatCannotPayIsToldSo() async throws {
        let (driver, spy) = try await checkoutDriver { $0.canMakePayments = false }
        #expect(spy.requests.isEmpty)
        #expect(driver.state.notice?.text == "Payments are not available on this device.")
    }

    @Test func everyCheckoutGetsAFreshController() async throws {
        let (driver, spy) = try await checkoutDriver { _ in }
        try await driver.press("esc,enter")
        #expect(spy.controllers.count == 2)
        #expect(spy.controllers[0] !== spy.controllers[1])
        #expect(spy.controllers[0].calls == ["present", "dismiss"])
    }
}

/// A catalog with another shop profile, to build requests the factory must refuse.
struct ShopProfileOverride: CatalogRepository {
    let base: any CatalogRepository
    let shop: ShopProfile
    func count(matching query: String) async throws -> Int { try await base.count(matching: query) }
    func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] { try await base.page(matching: query, offset: offset, limit: limit) }
    func product(id: ProductID) async throws -> Product? { try await base.product(id: id) }
}
