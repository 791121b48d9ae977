import CustomDump
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// A slow provider, timed by an injected clock: the test moves time instead of sleeping.
@MainActor
@Suite("Checkout with a slow provider")
struct SlowProviderTests {
    @Test(.timeLimit(.minutes(10))) func busyWhileTheProviderWorksThenThankYou() async throws {
        let clock = SteppedClock()
        let stack = TestStack(clock: clock, latency: .seconds(2))
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p")
        await driver.press(.enter, settle: false)
        // Time stands still, so the payment starts and waits on the token's 2 s.
        await clock.sleepers(atLeast: 1)
        #expect(driver.state.isBusy)
        #expect(driver.state.paymentSheet?.status == "Processing…")
        #expect(driver.frameText.contains("⠋ Processing…"))
        await driver.send(.tick, settle: false)
        #expect(driver.frameText.contains("⠙ Processing…"))
        clock.advance(by: .milliseconds(1_900))
        #expect(clock.sleeperCount == 1, "the token alone takes 2 s")
        #expect(driver.state.screen == .paymentSheet)
        clock.advance(by: .milliseconds(100))
        // The charge takes its own 2 s once the token is issued; then nothing waits on the clock.
        await clock.sleepers(atLeast: 1)
        #expect(driver.state.screen == .paymentSheet)
        clock.advance(by: .seconds(2))
        await driver.settle()
        #expect(driver.state.screen == .confirmation)
        #expect(!driver.state.isBusy)
    }
}

@MainActor
@Suite("Typing ahead")
struct TypeAheadTests {
    @Test func keysTypedWhileTheSheetOpensApplyToTheSheet() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c")
        // Enter starts presenting; p and Enter arrive before the sheet is up, as in a fast terminal.
        await driver.press(.enter, settle: false)
        await driver.press(.character("p"), settle: false)
        await driver.press(.enter, settle: false)
        await driver.settle()
        #expect(driver.state.screen == .confirmation)
    }
}
