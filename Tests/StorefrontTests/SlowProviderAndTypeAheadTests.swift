import Clocks
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
    @Test func busyWhileTheProviderWorksThenThankYou() async throws {
        let clock = TestClock()
        let stack = TestStack(clock: clock, latency: .seconds(2))
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p")
        await driver.press(.enter, settle: false)
        // Time stands still, so the payment can start but not finish.
        for _ in 0..<1_000 where driver.state.paymentSheet?.status != "Processing…" { await Task.yield() }
        #expect(driver.state.isBusy)
        #expect(driver.state.paymentSheet?.status == "Processing…")
        #expect(driver.frameText.contains("⠋ Processing…"))
        await driver.send(.tick, settle: false)
        #expect(driver.frameText.contains("⠙ Processing…"))
        await clock.advance(by: .milliseconds(1_900))
        #expect(driver.state.screen == .paymentSheet, "the token alone takes 2 s")
        // Token and charge each take 2 s; step time forward until the order is placed. Bounded on the wall clock, not
        // by a count of steps: on a busy machine the charge may reach its sleep after any number of them, and settling
        // before it is placed would wait for a clock that no longer moves.
        let end = ContinuousClock.now.advanced(by: .seconds(60))
        while driver.state.screen != .confirmation, ContinuousClock.now < end {
            await clock.advance(by: .milliseconds(100))
            await Task.yield()
        }
        try #require(driver.state.screen == .confirmation)
        await driver.settle()
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
