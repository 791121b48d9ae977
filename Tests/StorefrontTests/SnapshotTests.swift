import ShopModels
import ShopPorts
import SnapshotTesting
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Text snapshots of every screen. Re-record with SNAPSHOT_TESTING_RECORD=all after a deliberate change.
@MainActor
@Suite("Screens")
struct SnapshotTests {
    nonisolated static let screens: [(name: String, keys: String)] = [
        ("product-list", ""),
        ("search", "/,l,a,m"),
        ("product-detail", "down,down,enter"),
        ("cart", "enter,a,a,s,down,a,c"),
        ("cart-empty", "c"),
        ("payment-sheet", "enter,a,c,enter"),
        ("card-chooser", "enter,a,c,enter,enter,down"),
        ("authorization-prompt", "enter,a,c,enter,p"),
        ("declined", "enter,a,c,enter,enter,down,down,enter,p,enter"),
        ("contact-error", "enter,a,c,enter,down,enter,down,down,enter"),
        ("confirmation", "enter,a,c,enter,p,enter"),
        ("orders", "enter,a,c,enter,p,enter,o"),
        ("order-detail", "enter,a,c,enter,p,enter,o,enter"),
        ("help", "?"),
    ]

    nonisolated static let sizes = [Size(columns: 80, rows: 24), Size(columns: 40, rows: 12), Size(columns: 200, rows: 60)]

    @Test("every screen at 80x24, 40x12 and 200x60", arguments: screens.map(\.name), sizes)
    func screen(name: String, size: Size) async throws {
        let keys = Self.screens.first { $0.name == name }!.keys
        let driver = await ScriptedDriver(size: size)
        try await driver.press(keys)
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }

    /// A product with options (the bundled coffee, by grind and weight) with a value chosen, and a cart holding two of
    /// its variants.
    @Test(
        "a product's options at 80x24, 120x34 and 200x60", arguments: ["product-options", "cart-variants"],
        [Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60)])
    func productOptions(name: String, size: Size) async throws {
        let driver = await ScriptedDriver(size: size)
        try await driver.press("j,j,j,j,j,j,j,j,j,enter,right,down,right")
        #expect(driver.state.productDetail?.choice == ["Filter", "1 kg"])
        if name == "cart-variants" { try await driver.press("a,up,left,a,c") }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }

    /// Where the shop ships: the address form in the shop's country's order, and the sheet shipping to Ontario (HST
    /// added, Canada Post by weight) and to Germany (VAT in the prices, DHL by subtotal).
    @Test(
        "regions at 80x24, 120x34 and 200x60", arguments: ["address-form", "sheet-ontario", "sheet-germany"],
        [Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60)])
    func regions(name: String, size: Size) async throws {
        let driver = await ScriptedDriver(size: size)
        switch name {
        case "address-form": try await driver.press("u,d")
        case "sheet-ontario": try await driver.press("a,c,enter,down,enter,down,down,down,enter")
        default: try await driver.press("a,c,enter,down,enter,down,down,down,down,enter")
        }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }

    /// The screens that wait on a page elsewhere, each left waiting (a clock that never moves): Stripe's card page
    /// and a bank's check, with the QR code the test double draws.
    @Test(
        "pages elsewhere at 80x24, 120x34 and 200x60", arguments: ["card-page", "bank-check"],
        [
            Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60),
        ])
    func pageElsewhere(name: String, size: Size) async throws {
        let clock = SteppedClock()
        var stack = TestStack(clock: clock)
        let link = CardSetupLink(id: "cs_test_a1", url: "https://checkout.stripe.com/c/pay/cs_test_a1")
        stack.paymentProvider = PaymentProviderStub(cardPage: CardPageStub(links: [link], states: [.open]))
        stack.merchantBackend = MerchantBackendSpy(results: [
            .failure(.authenticationRequired(url: "https://hooks.stripe.com/3d_secure_2/hosted?pi=pi_1"))
        ])
        let driver = await ScriptedDriver(stack: stack, size: size)
        if name == "card-page" {
            try await driver.press("u")
            await driver.press(.character("n"), settle: false)
            await clock.sleepers(atLeast: 1)
            for _ in 0..<1_000 where driver.state.cardLink?.phase != .waiting { await Task.yield() }
        } else {
            try await driver.press("enter,a,c,enter,p")
            await driver.press(.enter, settle: false)
            await clock.sleepers(atLeast: 1)
            for _ in 0..<1_000 where driver.state.paymentSheet?.bankCheck == nil { await Task.yield() }
        }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }

    @Test func asciiFallback() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 80, rows: 24), charset: .ascii)
        try await driver.press("enter,a,c,enter")
        assertSnapshot(of: driver.frameText, as: .lines, named: "payment-sheet-ascii")
        let list = await ScriptedDriver(size: Size(columns: 80, rows: 24), charset: .ascii)
        assertSnapshot(of: list.frameText, as: .lines, named: "product-list-ascii")
    }

    @Test func tooSmall() async {
        let driver = await ScriptedDriver(size: Size(columns: 30, rows: 8))
        assertSnapshot(of: driver.frameText, as: .lines)
    }
}
