import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import Testing

@Suite("AuthManager")
struct AuthManagerTests {
    @Test func writesAccessAndRefreshTokensUnderTheirOwnKeys() async throws {
        let credentials = CredentialRepositorySpy()
        let manager = AuthManager(credentials: credentials)
        try await manager.save(accessToken: "access-abc", refreshToken: "refresh-xyz")
        #expect(
            credentials.operations == [
                .set(key: "storefront.auth.access-token", value: "access-abc"),
                .set(key: "storefront.auth.refresh-token", value: "refresh-xyz"),
            ])
        #expect(try await manager.accessToken() == "access-abc")
        #expect(try await manager.refreshToken() == "refresh-xyz")
    }

    @Test func clearRemovesBoth() async throws {
        let credentials = CredentialRepositorySpy()
        let manager = AuthManager(credentials: credentials)
        try await manager.save(accessToken: "a", refreshToken: "r")
        try await manager.clear()
        #expect(try await manager.accessToken() == nil)
        #expect(try await manager.refreshToken() == nil)
    }
}

@MainActor
@Suite("One-Tap")
struct OneTapTests {
    @Test func toggleOffIsDisabledAndPresentDoesNotNavigate() {
        let navigator = NavigatorSpy()
        let oneTap = OneTapCheckout(entryPoint: .cart, flags: StaticFeatureFlags(enabled: []), navigator: navigator)
        #expect(!oneTap.isEnabled)
        oneTap.present()
        #expect(navigator.destinations.isEmpty)
    }

    @Test func toggleOnNavigates() {
        let navigator = NavigatorSpy()
        let oneTap = OneTapCheckout(
            entryPoint: .product(id: "lamp-aurora"), flags: StaticFeatureFlags(enabled: [.oneTapProduct]), navigator: navigator)
        #expect(oneTap.isEnabled)
        oneTap.present()
        #expect(navigator.destinations == [.oneTapCheckout(.product(id: "lamp-aurora"))])
    }

    @Test func eachEntryPointHasItsOwnFlag() {
        let flags = StaticFeatureFlags(enabled: [.oneTapCart])
        #expect(OneTapCheckout(entryPoint: .cart, flags: flags, navigator: NavigatorSpy()).isEnabled)
        #expect(!OneTapCheckout(entryPoint: .product(id: "x"), flags: flags, navigator: NavigatorSpy()).isEnabled)
    }

    @Test func buyNowFromAProductBuysOnlyThatProductAndKeepsTheCart() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("down,a,up,enter,b")
        // $64 with free shipping and California's 7.25 % ($4.64): Jane is the wallet's default address.
        #expect(driver.state.paymentSheet?.authorizationPrompt == "Pay Storefront $68.64? Enter to confirm, Esc to cancel")
        try await driver.press("enter")
        #expect(driver.state.confirmation?.itemCount == 1)
        #expect(driver.state.confirmation?.total.minorUnits == 6864)
        #expect(driver.state.cartBadge.itemCount == 1, "the mug stays in the cart")
    }

    @Test func buyNowFromTheCartUsesTheCheapestShipping() async throws {
        let driver = await ScriptedDriver()
        // $18 mug: standard ($4.99) is cheaper than express.
        try await driver.press("down,a,c,b,enter")
        #expect(driver.state.confirmation?.shippingMethodLabel == "Standard")
        #expect(driver.state.cartBadge.itemCount == 0)
    }

    @Test func whenOffTheKeyAndHintAreAbsent() async throws {
        let driver = await ScriptedDriver(stack: TestStack(flags: StaticFeatureFlags(enabled: [])))
        try await driver.press("enter")
        #expect(!driver.frameText.contains("buy now"))
        try await driver.press("b")
        #expect(driver.state.paymentSheet == nil)
        try await driver.press("a,c")
        #expect(!driver.frameText.contains("buy now"))
    }
}

@MainActor
@Suite("Sandbox test cards")
struct SandboxCardTests {
    @Test("each test card through the whole flow", arguments: SandboxCard.all)
    func card(_ card: SandboxCard) async throws {
        let stack = TestStack()
        let driver = await ScriptedDriver(stack: stack)
        let position = SandboxCard.all.firstIndex(of: card)!
        try await driver.press("a,c,enter,enter")
        for _ in 0..<position { await driver.press(.down) }
        try await driver.press("enter,p,enter")
        switch card.outcome {
        case .succeeds, .needsAuthenticationOffSession:
            // Off-session is where the second asks for the bank's check; with the shopper there it is paid.
            #expect(driver.state.screen == .confirmation)
            #expect(driver.frameText.contains("Thank you"))
            #expect(driver.state.confirmation?.paymentDescription == card.paymentMethod.shortName)
            #expect(await stack.processor.successfulCharges.count == 1)
        case .declines(let reason):
            #expect(driver.state.screen == .paymentSheet)
            #expect(driver.state.paymentSheet?.status == .lookup(reason.message))
            #expect(driver.frameText.contains(String(reason.message.prefix(30))))
            #expect(driver.state.cartBadge.itemCount == 1, "a decline keeps the cart")
            #expect(await stack.processor.successfulCharges.isEmpty)
            #expect(try await stack.orders.count(customer: nil) == 0)
        }
    }
}
