import Clocks
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// A charge whose answer was lost never leads to a second charge: the order stays in the shopper's orders as being
/// checked, and the next Pay, in any session of the customer, settles it first.
@MainActor
@Suite("Unanswered charges")
struct UnansweredChargeTests {
    @Test(.timeLimit(.minutes(10))) func aNewSessionsPayFindsTheLostChargePaidAndChargesNothingMore() async throws {
        let clock = SteppedClock()
        let stack = TestStack(clock: clock)
        // Every attempt of the first session charges or not without an answer: the third one charges.
        await stack.processor.inject(.timeoutBeforeCharging)
        await stack.processor.inject(.timeoutBeforeCharging)
        await stack.processor.inject(.timeoutAfterCharging)
        let first = await ScriptedDriver(stack: stack)
        try await first.press("a,c,enter,p")
        await first.press(.enter, settle: false)
        await clock.sleepers(atLeast: 1)
        for _ in 0..<1_000 where first.state.paymentSheet?.phase != .checkingPayment(isStopping: false) { await Task.yield() }
        // The shopper stops waiting before the shop's next question: the order stays being checked.
        await first.press(.escape)
        #expect(first.state.paymentSheet?.status?.description.hasPrefix("No answer yet on whether") == true)
        #expect(await stack.processor.successfulCharges.count == 1)
        let open = try await stack.orders.orders(customer: "guest", offset: 0, limit: 10)
        #expect(open.map(\.status) == [.unknown], "the order is shown to its shopper, never hidden")
        #expect(open.first?.status.displayName == "Payment being checked")

        // Another session of the same shopper fills the same cart and presses Pay at once.
        let second = await ScriptedDriver(stack: stack)
        try await second.press("a,c,enter")
        #expect(second.state.screen == .cart, "no sheet: the earlier payment went through")
        #expect(second.state.notice?.text.description.hasPrefix("Your earlier payment went through: order \(open[0].number) is paid") == true)
        #expect(second.state.cart.lines.isEmpty, "what the paid order bought left the cart")
        #expect(await stack.processor.successfulCharges.count == 1)
        #expect(try await stack.orders.orders(customer: "guest", offset: 0, limit: 10).map(\.status) == [.paid])
    }

    @Test func anOrderTheProviderCannotAnswerForYetHoldsPay() async throws {
        var stack = TestStack()
        let spy = PaymentAuthorizationSpy()
        stack.paymentAuthorization = spy.authorization
        stack.paymentProvider = PaymentProviderStub()
        let backend = MerchantBackendSpy(results: [], openOrders: .success(OpenOrderCheck(stillOpen: ["SF-000007"])))
        stack.merchantBackend = backend
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.addToCart, .showCart)
        let order = CheckoutOrder(lines: store.state.cart.cart.lines, clearsCartOnSuccess: true)
        store.send(.pay) { $0.checkout.isCheckingWallet = true }
        await store.receive(
            .checkout(
                .walletChecked(
                    order, oneTap: false, canPay: true, noticeBefore: nil, openOrders: .success(OpenOrderCheck(stillOpen: ["SF-000007"]))
                ))
        ) {
            $0.checkout.isCheckingWallet = false
            $0.shell.notice = Notice(
                .error,
                "Your payment for order SF-000007 is still being checked with the payment service. Nothing more is charged until it is known; try again in a moment."
            )
        }
        await store.finish()
        #expect(backend.openOrderChecks == ["guest"])
        #expect(spy.requests.isEmpty, "no sheet was made")
    }

    @Test func anEarlierOrderFoundPaidTakesOnlyWhatItBoughtOutOfTheCart() async throws {
        var stack = TestStack()
        stack.paymentAuthorization = PaymentAuthorizationSpy().authorization
        stack.paymentProvider = PaymentProviderStub()
        let first = try #require(try await stack.catalog.page(matching: "", offset: 0, limit: 1).first)
        let bought = CartLine(productID: first.id, name: first.name, unitPrice: first.price, quantity: 1)
        let paid = Order(
            number: "SF-000003", placedAt: Fixtures.fixedDates.now(), lines: [bought],
            totals: CartTotals(subtotal: bought.unitPrice, shipping: .zero(.usd), tax: .zero(.usd)), status: .paid,
            paymentDescription: "Visa 4242", shippingMethodLabel: "Standard", shipTo: "Jane", customerID: "guest"
        )
        stack.merchantBackend = MerchantBackendSpy(results: [], openOrders: .success(OpenOrderCheck(paid: [paid])))
        let store = await TestStore(dependencies: stack.dependencies)
        // Two of the first product, one of the second: the earlier order bought one of the first.
        await store.setUp(.addToCart, .addToCart, .moveDown, .addToCart, .showCart)
        let lines = store.state.cart.cart.lines
        try #require(lines.first?.productID == first.id && lines.first?.quantity == 2 && lines.count == 2)
        store.send(.pay) { $0.checkout.isCheckingWallet = true }
        await store.receive(
            .checkout(
                .walletChecked(
                    CheckoutOrder(lines: lines, clearsCartOnSuccess: true), oneTap: false, canPay: true, noticeBefore: nil,
                    openOrders: .success(OpenOrderCheck(paid: [paid]))
                ))
        ) {
            $0.checkout.isCheckingWallet = false
            $0.shell.notice = Notice(
                .info, "Your earlier payment went through: order SF-000003 is paid and in your orders (o). Nothing more was charged.")
            $0.cart.cart.setQuantity(at: 0, to: 1)
            let shop = Fixtures.bundledCatalog.shop
            $0.cart.screen.lines = $0.cart.cart.lines
            $0.cart.screen.totals = shop.estimatedTotals($0.cart.cart)
            $0.cart.badge = CartBadge(itemCount: $0.cart.cart.itemCount, subtotal: $0.cart.screen.totals.subtotal)
        }
        await store.finish()
    }

    @Test func theSessionAsksAFewTimesBackingOffThenGivesTheQuestionBackToTheShopper() async throws {
        var stack = TestStack(clock: ImmediateClock())
        stack.paymentProvider = PaymentProviderStub()
        // Three tries at once, then four more questions 1, 2, 4 and 8 s apart: never an answer.
        let backend = MerchantBackendSpy(results: Array(repeating: .failure(.timedOut), count: 7))
        stack.merchantBackend = backend
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        #expect(backend.calls.count == 7)
        #expect(Set(backend.calls.map(\.idempotencyKey)).count == 1, "always the same charge")
        #expect(driver.state.paymentSheet?.phase == .reviewing)
        #expect(driver.state.paymentSheet?.status?.description.hasPrefix("No answer yet on whether the payment went through") == true)
    }
}
