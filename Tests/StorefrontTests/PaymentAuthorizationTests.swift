import LiveObjects
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import Synchronization
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
        #expect(spy.controllers.map(\.calls) == [["present"], ["present"]])
    }
}

/// A catalog with another shop profile, to build requests the factory must refuse.
struct ShopProfileOverride: CatalogRepository {
    let base: any CatalogRepository
    let shop: ShopProfile
    func count(matching query: String) async throws -> Int { try await base.count(matching: query) }
    func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        try await base.page(matching: query, offset: offset, limit: limit)
    }
    func product(id: ProductID) async throws -> Product? { try await base.product(id: id) }
}

/// The sandbox authorizer reads the wallet once to open a sheet: the check's read is the sheet's.
@MainActor
@Suite("Sandbox sheet's wallet read")
struct SandboxWalletReadTests {
    /// A wallet that counts its reads.
    final class CountingWallet: Wallet, LiveObject {
        let reads = Mutex(0)
        func contents() async throws -> WalletContents {
            reads.withLock { $0 += 1 }
            return WalletContents(
                cards: [Fixtures.visa], defaultCardID: Fixtures.visa.id, addresses: [Fixtures.jane], defaultAddressID: Fixtures.jane.id)
        }
    }

    private let request: PaymentRequest = {
        let shop = ShopProfile.standard()
        return PaymentRequest(
            merchantIdentifier: shop.merchantIdentifier, merchantName: shop.name, countryCode: shop.countryCode, currency: shop.currency,
            supportedNetworks: shop.supportedNetworks, merchantCapabilities: [.threeDSecure],
            summaryItems: [SummaryItem(label: .verbatim(shop.name), amount: Money(minorUnits: 1_800, currency: shop.currency))],
            shippingMethods: [Fixtures.standardShipping], requiredShippingContactFields: [.name]
        )
    }()

    @Test func theChecksReadIsHandedToTheNextControllerOnce() async throws {
        let wallet = CountingWallet()
        let authorization = PaymentAuthorization.onTheSheet(wallet: wallet, methodData: SandboxProcessor.paymentData(for:))
        #expect(await authorization.canMakePaymentsUsingNetworks([.visa]))
        let controller = try #require(authorization.makeController(request))
        let options = try #require(await controller.present())
        #expect(options.selectedPaymentMethod == Fixtures.visa)
        #expect(options.selectedContact == Fixtures.jane)
        #expect(wallet.reads.withLock { $0 } == 1)
        // Presented again, or by a controller made without a check first, the wallet is read afresh.
        _ = await controller.present()
        _ = await authorization.makeController(request)?.present()
        #expect(wallet.reads.withLock { $0 } == 3)
    }
}
