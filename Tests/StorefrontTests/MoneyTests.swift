import ShopModels
import Testing

@Suite("Money")
struct MoneyTests {
    @Test(
        "formats each currency with its own exponent and symbol",
        arguments: [
            (Money(minorUnits: 1250, currency: .usd), "$12.50"),
            (Money(minorUnits: 5, currency: .usd), "$0.05"),
            (Money(minorUnits: 500, currency: .jpy), "¥500"),
            (Money(minorUnits: 1250, currency: .kwd), "KWD 1.250"),
            (Money(minorUnits: 123_456_789, currency: .usd), "$1,234,567.89"),
            (Money(minorUnits: -300, currency: .eur), "-€3.00"),
            (Money(minorUnits: 100, currency: .chf), "CHF 1.00"),
            (Money(minorUnits: 0, currency: .krw), "₩0"),
            (Money(minorUnits: 1_000_000, currency: .krw), "₩1,000,000"),
            (Money(minorUnits: 99_999, currency: .usd), "$999.99"),
            (Money(minorUnits: 100_000, currency: .usd), "$1,000.00"),
            (Money(minorUnits: 999_999_999_999, currency: .bhd), "BHD 999,999,999.999"),
            (Money(minorUnits: .min, currency: .usd), "-$92,233,720,368,547,758.08"),
        ])
    func formatting(money: Money, expected: String) {
        #expect(money.formatted == expected)
    }

    @Test func exponentsComeFromISO4217() {
        #expect(Currency(code: "JPY")?.exponent == 0)
        #expect(Currency(code: "usd")?.exponent == 2)
        #expect(Currency(code: "KWD")?.exponent == 3)
        #expect(Currency(code: "XYZ") == nil)
    }

    @Test(
        "tax rounds half up on the whole subtotal",
        arguments: [
            (Int64(1000), 825, Int64(83)),  // 82.5 → 83
            (Int64(6400), 825, Int64(528)),  // 528.0
            (Int64(1), 5000, Int64(1)),  // 0.5 → 1
            (Int64(1), 4999, Int64(0)),  // 0.4999 → 0
            (Int64(0), 825, Int64(0)),
        ])
    func taxRounding(subtotal: Int64, basisPoints: Int, expected: Int64) {
        let tax = TaxPolicy(basisPoints: basisPoints).tax(on: Money(minorUnits: subtotal, currency: .usd))
        #expect(tax.minorUnits == expected)
    }

    @Test func taxIsComputedOnceNotPerLine() {
        // Three lines of $0.10 at 5%: per line would round 0.5¢ up three times (3¢); on the subtotal it is 1.5¢ → 2¢.
        var cart = Cart(currency: .usd)
        for id in ["a", "b", "c"] {
            cart.add(Product(id: ProductID(id), name: id, summary: "", description: "", price: Money(minorUnits: 10, currency: .usd)))
        }
        let totals = cart.totals(shipping: nil, tax: TaxPolicy(basisPoints: 500))
        #expect(totals.tax.minorUnits == 2)
        #expect(totals.total == totals.subtotal + totals.shipping + totals.tax)
    }
}

@Suite("Cart")
struct CartTests {
    let lamp = Product(id: "lamp", name: "Lamp", summary: "", description: "", price: Money(minorUnits: 4900, currency: .usd))

    @Test func addingTheSameProductIncrementsItsLine() {
        var cart = Cart(currency: .usd)
        cart.add(lamp)
        cart.add(lamp)
        #expect(cart.lines.count == 1)
        #expect(cart.lines[0].quantity == 2)
        #expect(cart.subtotal == Money(minorUnits: 9800, currency: .usd))
    }

    @Test func quantityStaysWithinOneToNinetyNine() {
        var cart = Cart(currency: .usd)
        cart.add(lamp)
        #expect(cart.setQuantity(at: 0, to: 0) == .atMinimum)
        #expect(cart.lines[0].quantity == 1)
        #expect(cart.setQuantity(at: 0, to: 150) == .changed)
        #expect(cart.lines[0].quantity == 99)
        #expect(cart.add(lamp) == .atMaximum)
        #expect(cart.lines[0].quantity == 99)
    }

    @Test func freeShippingFromTheThreshold() {
        let standard = ShippingMethod(
            id: "standard", label: "Standard", detail: "", amount: Money(minorUnits: 499, currency: .usd),
            freeFrom: Money(minorUnits: 5000, currency: .usd))
        #expect(standard.cost(forSubtotal: Money(minorUnits: 4999, currency: .usd)).minorUnits == 499)
        #expect(standard.cost(forSubtotal: Money(minorUnits: 5000, currency: .usd)).isZero)
    }

    @Test func paymentRequestValidation() {
        let usd = Currency.usd
        var request = PaymentRequest(
            merchantIdentifier: "merchant.test", merchantName: "Shop", countryCode: "US", currency: usd,
            supportedNetworks: [.visa], merchantCapabilities: [.threeDSecure],
            summaryItems: [
                SummaryItem(label: "Subtotal", amount: Money(minorUnits: 100, currency: usd)),
                SummaryItem(label: "Shop", amount: Money(minorUnits: 100, currency: usd)),
            ],
            shippingMethods: [], requiredShippingContactFields: []
        )
        #expect(request.validationFailure == nil)
        request.summaryItems[1].label = "Someone else"
        #expect(request.validationFailure == "the last summary item must be labelled with the merchant name")
        request.summaryItems[1].label = "Shop"
        request.summaryItems[1].amount.minorUnits = 101
        #expect(request.validationFailure == "the total is not the sum of the items")
        request.summaryItems = []
        #expect(request.validationFailure == "no summary items")
    }
}

/// A line refund in a three-decimal currency is a whole number of tens of fils: Stripe refuses any other last digit.
@Suite("Refunds in card steps")
struct RefundStepTests {
    func order(_ currency: Currency, unit: Int64, quantity: Int, tax: Int64) -> Order {
        let line = CartLine(productID: "dates", name: "Dates", unitPrice: Money(minorUnits: unit, currency: currency), quantity: quantity)
        let subtotal = Money(minorUnits: unit * Int64(quantity), currency: currency)
        let totals = CartTotals(subtotal: subtotal, shipping: .zero(currency), tax: Money(minorUnits: tax, currency: currency))
        return Order(
            number: "SF-000001", placedAt: .init(timeIntervalSince1970: 0), lines: [line], totals: totals, status: .paid, paymentDescription: "Visa",
            shippingMethodLabel: "Standard", shipTo: "Kuwait City")
    }

    @Test func aPartOfALineInKWDIsRoundedDownToTensOfFils() {
        // 3 × 2.560 KWD with 0.390 tax: one item is 2.560 and a third of the tax, 0.130: 2.690 exactly.
        #expect(order(.kwd, unit: 2_560, quantity: 3, tax: 390).refundAmount(for: ["dates": 1]).minorUnits == 2_690)
        // With 0.400 tax a third is 0.133: 2.693 would be refused by Stripe, so 2.690 is given back.
        #expect(order(.kwd, unit: 2_560, quantity: 3, tax: 400).refundAmount(for: ["dates": 1]).minorUnits == 2_690)
        #expect(order(.bhd, unit: 1_005, quantity: 2, tax: 0).refundAmount(for: ["dates": 1]).minorUnits == 1_000)
        // Two-decimal currencies move in cents, as before.
        #expect(order(.usd, unit: 1_001, quantity: 3, tax: 100).refundAmount(for: ["dates": 1]).minorUnits == 1_001 + 33)
    }
}
