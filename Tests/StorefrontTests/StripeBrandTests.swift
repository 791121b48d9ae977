import ShopModels
import Testing

@testable import ShopStripe

/// Card brands as Stripe names them: each known one by its name, an unknown one as a card, never as another brand.
@Suite("Stripe card brands")
struct StripeBrandTests {
    @Test(arguments: [
        ("visa", PaymentNetwork.visa), ("mastercard", .mastercard), ("amex", .amex), ("discover", .discover), ("jcb", .jcb),
        ("diners", .diners), ("unionpay", .unionpay), ("cartes_bancaires", .cartesBancaires), ("eftpos_au", .eftpos),
        ("unknown", .other), ("a_brand_from_next_year", .other),
    ])
    func eachBrandIsItself(_ brand: String, _ network: PaymentNetwork) {
        #expect(PaymentNetwork(stripeBrand: brand) == network)
    }

    @Test func anUnknownBrandReadsAsACardNotAsVisa() {
        let method = StripePaymentProvider.paymentMethod(
            StripePaymentMethod(id: "pm_1", card: .init(brand: "a_brand_from_next_year", last4: "0005", expMonth: 4, expYear: 2031)), fallback: nil
        )
        #expect(method.network == .other && method.network.displayName == "Card")
    }
}
