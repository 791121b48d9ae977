import CustomDump
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The Swift Talk view-model episode: record states through the callback and compare sequences.
@MainActor
@Suite("Checkout flow")
struct CheckoutFlowTests {
    /// Statuses while the sheet was open, collapsed.
    private func statusesOnSheet(_ driver: ScriptedDriver) -> [String?] {
        var out: [String?] = []
        for state in driver.renderer.states where state.paymentSheet != nil {
            let status = state.paymentSheet?.status?.description
            if out.last != status { out.append(status) }
        }
        return out
    }

    @Test func buyThenCancelRestoresTheStatus() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,enter,p,esc")
        expectNoDifference(statusesOnSheet(driver), [nil, "Authorizing…", nil])
        #expect(driver.state.paymentSheet?.isPayEnabled == true)
        #expect(driver.state.cartBadge.itemCount == 1)
    }

    @Test func aSheetKeepsNothingLiveOutsideTheState() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,enter")
        #expect(driver.state.paymentSheet != nil)
        #expect(driver.viewModel.liveSignInCount == 0, "the sheet's choices and charge are state: no session object is kept")
        try await driver.press("esc,enter,p,enter")
        #expect(driver.state.confirmation != nil)
        #expect(driver.viewModel.liveSignInCount == 0)
    }

    @Test func buyAuthorizeTokenSuccessEndsInThankYou() async throws {
        let spy = PaymentAuthorizationSpy()
        let provider = PaymentProviderStub()
        let backend = MerchantBackendSpy(results: [.success(Fixtures.confirmation("SF-777777"))])
        var stack = TestStack()
        stack.paymentAuthorization = spy.authorization
        stack.paymentProvider = provider
        stack.merchantBackend = backend
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")

        expectNoDifference(statusesOnSheet(driver), [nil, "Authorizing…", "Processing…"])
        #expect(driver.state.screen == .confirmation)
        #expect(driver.state.confirmation?.orderNumber == "SF-777777")
        #expect(driver.frameText.contains("Thank you"))
        #expect(driver.frameText.contains("SF-777777"))
        #expect(provider.payments.count == 1)
        #expect(backend.calls.map(\.tokenID) == ["tok_stub"])
        #expect(spy.controllers[0].calls == ["present"], "the controller presents; the charge does not go through it")
        #expect(driver.state.cartBadge.itemCount == 0)
    }

    @Test func providerErrorIsShownAndNothingIsCharged() async throws {
        var stack = TestStack()
        let backend = MerchantBackendSpy(results: [])
        stack.paymentProvider = PaymentProviderStub(result: .failure(.unavailable("connection refused")))
        stack.merchantBackend = backend
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        #expect(driver.state.screen == .paymentSheet)
        #expect(driver.state.paymentSheet?.status == "The payment provider is unavailable (connection refused). You were not charged.")
        #expect(driver.state.paymentSheet?.isStatusError == true)
        #expect(driver.state.paymentSheet?.isPayEnabled == true)
        #expect(backend.calls.isEmpty)
        #expect(driver.state.cartBadge.itemCount == 1)
    }

    @Test func backendFailureIsShownAndTheCartKept() async throws {
        var stack = TestStack()
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = MerchantBackendSpy(results: [.failure(.unavailable("out of stock"))])
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        expectNoDifference(statusesOnSheet(driver), [nil, "Authorizing…", "Processing…", "The shop could not take the order (out of stock)."])
        #expect(driver.state.cartBadge.itemCount == 1)
        #expect(driver.frameText.contains("The shop could not take the order"))
    }

    @Test func timeoutIsRetriedWithTheSameKey() async throws {
        var stack = TestStack()
        let backend = MerchantBackendSpy(results: [.failure(.timedOut), .success(Fixtures.confirmation("SF-000009"))])
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = backend
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        #expect(backend.calls.count == 2)
        #expect(backend.calls[0].idempotencyKey == backend.calls[1].idempotencyKey)
        #expect(driver.state.confirmation?.orderNumber == "SF-000009")
    }

    @Test func sandboxTimeoutAfterChargingChargesExactlyOnce() async throws {
        let stack = TestStack()
        await stack.processor.inject(.timeoutAfterCharging)
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        #expect(await stack.processor.successfulCharges.count == 1)
        #expect(try await stack.orders.count(customer: nil) == 1)
    }

    /// Two attempts get no answer; the third charges, but its answer is lost too: the sheet waits, asking again.
    private static func sheetAskingAfterTheRetriesRanOut(_ clock: SteppedClock) async throws -> (ScriptedDriver, TestStack) {
        let stack = TestStack(clock: clock)
        await stack.processor.inject(.timeoutBeforeCharging)
        await stack.processor.inject(.timeoutBeforeCharging)
        await stack.processor.inject(.timeoutAfterCharging)
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p")
        await driver.press(.enter, settle: false)
        // The sheet is told it is checking just before the effect waits for its next look.
        await clock.sleepers(atLeast: 1)
        for _ in 0..<1_000 where driver.state.paymentSheet?.phase != .checkingPayment(isStopping: false) { await Task.yield() }
        #expect(
            driver.state.paymentSheet?.status
                == "No answer yet: asking the payment service whether the payment went through. You are never charged twice.")
        #expect(!(driver.state.paymentSheet?.isPayEnabled ?? true), "nothing invites a new payment until the shop knows")
        return (driver, stack)
    }

    @Test(.timeLimit(.minutes(10))) func afterTheRetriesRanOutTheShopAsksAgainAndFindsTheChargeThatWentThrough() async throws {
        let clock = SteppedClock()
        let (driver, stack) = try await Self.sheetAskingAfterTheRetriesRanOut(clock)
        // The first look comes a second later and finds the charge.
        clock.advance(by: .seconds(1))
        await driver.settle()
        #expect(driver.state.screen == .confirmation, "status: \(driver.state.paymentSheet?.status ?? "none")")
        #expect(await stack.processor.successfulCharges.count == 1)
        #expect(await stack.processor.allCharges.count == 1, "one idempotency key for every attempt")
    }

    @Test(.timeLimit(.minutes(10))) func payingAgainAfterTheShoperStoppedWaitingFindsTheChargeThatWentThrough() async throws {
        let clock = SteppedClock()
        let (driver, stack) = try await Self.sheetAskingAfterTheRetriesRanOut(clock)
        await driver.press(.escape)
        #expect(
            driver.state.paymentSheet?.status
                == "No answer yet on whether the payment went through; your orders show it as being checked. Paying again is safe: you are never charged twice."
        )
        try await driver.press("p,enter")
        #expect(driver.state.screen == .confirmation, "status: \(driver.state.paymentSheet?.status ?? "none")")
        #expect(await stack.processor.successfulCharges.count == 1)
        #expect(await stack.processor.allCharges.count == 1, "one idempotency key for every attempt")
        #expect(try await stack.orders.count(customer: nil) == 1)
    }

    @Test func aNewAttemptAfterADeclineGetsANewKey() async throws {
        var stack = TestStack()
        let backend = MerchantBackendSpy(results: [.failure(.declined(.generic)), .success(Fixtures.confirmation())])
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = backend
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        #expect(driver.state.paymentSheet?.status == "Your card was declined.")
        try await driver.press("p,enter")
        #expect(backend.calls.count == 2)
        #expect(backend.calls[0].idempotencyKey != backend.calls[1].idempotencyKey)
    }

    @Test func escOnTheSheetFinishesAndReturnsToTheCart() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,enter,esc")
        #expect(driver.state.screen == .cart)
        #expect(driver.state.paymentSheet == nil)
    }

    /// Notices on the cart screen after the sheet closed, in the order they were published.
    private func cartNoticesAfterSheet(_ driver: ScriptedDriver) -> [String?] {
        let states = driver.renderer.states
        guard let lastSheet = states.lastIndex(where: { $0.paymentSheet != nil }) else { return [] }
        return states[(lastSheet + 1)...].filter { $0.screen == .cart }.map { $0.notice?.text.description }
    }

    @Test func closingTheSheetWithoutAuthorizingGivesTheCartItsEarlierStatusBack() async throws {
        let driver = await ScriptedDriver()
        // "-" at quantity 1 leaves a notice on the cart: the status checkout began from.
        try await driver.press("a,c,-")
        #expect(driver.state.notice?.text == "Press x to remove the line.")
        try await driver.press("enter,esc")
        expectNoDifference(cartNoticesAfterSheet(driver), ["Press x to remove the line."])
        #expect(driver.state.screen == .cart)
    }

    @Test func closingTheSheetAfterAFailedAuthorizationSaysTheOrderWasNotPaid() async throws {
        var stack = TestStack()
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = MerchantBackendSpy(results: [.failure(.declined(.generic))])
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,-,enter,p,enter,esc")
        expectNoDifference(cartNoticesAfterSheet(driver), ["Not paid: Your card was declined. Your cart is kept."])
        #expect(driver.state.notice?.kind == .error)
        #expect(driver.state.cartBadge.itemCount == 1)
    }

    @Test func cancellingThePromptAndThenTheSheetStillCountsAsNeverAuthorized() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,-,enter,p,esc,esc")
        expectNoDifference(cartNoticesAfterSheet(driver), ["Press x to remove the line."])
    }

    @Test func keysAreIgnoredWhileBusy() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,enter,p")
        await driver.press(.enter, settle: false)
        #expect(driver.state.paymentSheet?.isBusy == true)
        #expect(driver.state.isBusy)
        await driver.press(.escape, settle: false)
        await driver.settle()
        #expect(driver.state.screen == .confirmation)
    }

    @Test func choosingACardUpdatesTheSheetThroughTheDelegate() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,enter,enter")
        #expect(driver.state.paymentSheet?.chooser?.row == .card)
        try await driver.press("down,down,enter")
        #expect(driver.state.paymentSheet?.rowValues[.card]?.description.hasPrefix("Visa ••0002") == true)
        try await driver.press("p,enter")
        #expect(driver.state.paymentSheet?.status == "Your card was declined.")
    }

    @Test func contactErrorsAppearNextToTheField() async throws {
        let driver = await ScriptedDriver()
        // Ship to Ines in Iceland: outside every region the shop ships to.
        let refusal = "Storefront ships only to the United States, Canada, the European Union, the United Kingdom and Japan."
        try await driver.press("a,c,enter,down,enter,down,down,enter")
        #expect(driver.state.paymentSheet?.rowErrors[.shippingAddress] == .lookup(refusal))
        #expect(driver.state.paymentSheet?.isPayEnabled == false)
        #expect(driver.frameText.contains("! Storefront ships only to the United States"))
        // Her contact has no email.
        try await driver.press("down,down,enter,down,down,enter")
        #expect(driver.state.paymentSheet?.rowErrors[.contact] == "Enter an email address for the receipt.")
    }

    @Test func shippingChoiceChangesTheTotal() async throws {
        let driver = await ScriptedDriver()
        // The second product is $18: standard shipping is $4.99, express $14.99; Jane's California adds 7.25 %, $1.31.
        try await driver.press("down,a,c,enter")
        #expect(driver.state.paymentSheet?.summaryItems.last?.amount.minorUnits == Int64(1800 + 499 + 131))
        try await driver.press("down,down,enter,down,enter")
        #expect(driver.state.paymentSheet?.summaryItems.last?.amount.minorUnits == Int64(1800 + 1499 + 131))
        #expect(driver.state.paymentSheet?.summaryItems.last?.label == "Storefront")
    }
}
