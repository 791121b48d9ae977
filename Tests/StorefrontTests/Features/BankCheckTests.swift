import Clocks
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The card's bank checking a payment (3-D Secure): its page shown with the amount, the same charge asked again
/// until the check ends, and Esc giving the charge up.
@MainActor
@Suite("Bank's check")
struct BankCheckTests {
    static let check = "https://bank.example/3ds/pi_1"

    @Test func theChecksPageIsShownAndThePaymentGoesOnWhenItPasses() async throws {
        var stack = TestStack(clock: ImmediateClock())
        stack.paymentProvider = PaymentProviderStub()
        let backend = MerchantBackendSpy(results: [
            .failure(.authenticationRequired(url: Self.check)), .failure(.authenticationRequired(url: Self.check)),
            .success(OrderConfirmation(orderNumber: "SF-000004", total: Money(minorUnits: 6_928, currency: .usd))),
        ])
        stack.merchantBackend = backend
        let driver = await ScriptedDriver(stack: stack, size: Size(columns: 100, rows: 40))
        try await driver.press("a,c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        #expect(driver.state.confirmation?.orderNumber == "SF-000004")
        #expect(backend.calls.count == 3)
        #expect(Set(backend.calls.map(\.idempotencyKey)).count == 1, "the same charge, asked again")
        let shown = try #require(driver.renderer.frameTexts.first { $0.contains("Your bank wants to check the payment of") })
        #expect(shown.contains("$68.64 to Storefront"))
        #expect(shown.contains(Self.check))
        #expect(shown.contains("▀"), "with its QR code")
        #expect(shown.contains("Waiting for your bank's check…"))
        #expect(shown.contains("Esc cancel payment"))
    }

    @Test(.timeLimit(.minutes(10))) func escGivesTheChargeUpAndSaysNothingWasCharged() async throws {
        let clock = SteppedClock()
        var stack = TestStack(clock: clock)
        stack.paymentProvider = PaymentProviderStub()
        let backend = MerchantBackendSpy(results: [.failure(.authenticationRequired(url: Self.check))], abandons: [.success(.voided)])
        stack.merchantBackend = backend
        let driver = await ScriptedDriver(stack: stack, size: Size(columns: 100, rows: 40))
        try await driver.press("a,c,enter,p")
        await driver.press(.enter, settle: false)
        await clock.sleepers(atLeast: 1)
        for _ in 0..<1_000 where driver.state.paymentSheet?.bankCheck == nil { await Task.yield() }
        #expect(driver.state.paymentSheet?.bankCheck?.url == Self.check)
        // The clock never moves: only Esc ends the wait for the next look.
        await driver.press(.escape, settle: false)
        #expect(driver.state.paymentSheet?.status == "Canceling the payment…")
        await driver.settle()
        #expect(backend.abandonedKeys == backend.calls.map(\.idempotencyKey))
        #expect(driver.state.paymentSheet?.phase == .reviewing)
        #expect(driver.state.paymentSheet?.status == .lookup(DeclineReason.authenticationCanceled.message))
        #expect(driver.state.cart.lines.count == 1, "the cart is kept")
    }
}
