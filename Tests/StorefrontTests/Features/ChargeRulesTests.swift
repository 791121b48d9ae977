import ShopModels
import ShopPorts
import ShopStripe
import StorefrontCore
import StorefrontTesting
import Testing

/// A payment provider's own rules, checked before it is asked: Stripe's units and smallest charge, and the sheet
/// refusing Pay with the provider's words.
@MainActor
@Suite("Charge rules")
struct ChargeRulesTests {
    @Test func stripeCountsEachCurrencyInItsOwnUnits() {
        #expect(StripeAmounts.units(Money(minorUnits: 6928, currency: .usd)) == .success(6928))
        // Zero-decimal: yen and won are sent as they are, whole.
        #expect(StripeAmounts.units(Money(minorUnits: 1500, currency: .jpy)) == .success(1500))
        #expect(StripeAmounts.units(Money(minorUnits: 12000, currency: .krw)) == .success(12000))
        // Three decimals, the last one 0: 5.120 KWD goes, 5.124 KWD cannot be charged exactly.
        #expect(StripeAmounts.units(Money(minorUnits: 5120, currency: .kwd)) == .success(5120))
        #expect(StripeAmounts.units(Money(minorUnits: 5124, currency: .kwd)) == .failure(.notExact(Money(minorUnits: 5124, currency: .kwd))))
    }

    @Test func anAmountUnderStripesSmallestChargeIsRefusedNamingTheMinimum() throws {
        let refusal = try #require(StripeAmounts.refusal(forCharge: Money(minorUnits: 42, currency: .usd)))
        #expect(refusal == .belowMinimum(Money(minorUnits: 42, currency: .usd), minimum: Money(minorUnits: 50, currency: .usd)))
        #expect("\(refusal)" == "The smallest card payment in USD is $0.50; this order is $0.42. Add to the cart to pay by card.")
        #expect(StripeAmounts.refusal(forCharge: Money(minorUnits: 50, currency: .usd)) == nil)
        #expect(StripeAmounts.refusal(forCharge: Money(minorUnits: 29, currency: .gbp)) != nil)
        #expect(StripeAmounts.refusal(forCharge: Money(minorUnits: 30, currency: .gbp)) == nil)
        // In yen the minimum is ¥50, counted in whole yen.
        #expect(
            StripeAmounts.refusal(forCharge: Money(minorUnits: 49, currency: .jpy))
                == .belowMinimum(Money(minorUnits: 49, currency: .jpy), minimum: Money(minorUnits: 50, currency: .jpy)))
        // No fixed minimum for won: Stripe judges it.
        #expect(StripeAmounts.refusal(forCharge: Money(minorUnits: 1, currency: .krw)) == nil)
    }

    @Test func theSheetRefusesPayWithTheProvidersWordsAndSendsNothing() async {
        let refusal = "The smallest card payment in USD is $0.50; this order is $0.42. Add to the cart to pay by card."
        var stack = TestStack()
        let spy = PaymentAuthorizationSpy()
        spy.supportsNetworks = true
        spy.options = PaymentSheetOptions(
            paymentMethods: [Fixtures.visa], contacts: [Fixtures.jane], selectedPaymentMethod: Fixtures.visa, selectedContact: Fixtures.jane)
        stack.paymentAuthorization = spy.authorization
        stack.paymentProvider = PaymentProviderStub(refusingCharges: refusal)
        stack.merchantBackend = MerchantBackendSpy(results: [])
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.addToCart, .showCart, .pay)
        #expect(store.state.paymentSheet?.phase == .reviewing)
        store.send(.pay) {
            $0.checkout.sheet?.failure = .lookup(refusal)
            $0.shell.notice = Notice(.error, .lookup(refusal))
        }
        // Exhaustive: the phase stays `.reviewing`, no prompt; the backend spy has no result to give a charge.
        await store.finish()
    }
}
