import Foundation
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

extension Fixtures {
    /// Tokens as a provider issues them at the fixed date: access for an hour, refresh for 30 days.
    public static let tokens = SignInTokens(
        accessToken: "at-1", accessTokenExpiresAt: fixedDates.now().addingTimeInterval(3_600),
        refreshToken: "rt-1", refreshTokenExpiresAt: fixedDates.now().addingTimeInterval(30 * 86_400)
    )
    public static let refreshedTokens = SignInTokens(
        accessToken: "at-2", accessTokenExpiresAt: fixedDates.now().addingTimeInterval(3_600),
        refreshToken: "rt-2", refreshTokenExpiresAt: fixedDates.now().addingTimeInterval(30 * 86_400)
    )
    public static let visa = PaymentMethod(
        id: "card_ok_visa_4242", network: .visa, lastFour: "4242", expiry: CardExpiry(month: 12, year: 2034), displayName: "Test: succeeds")
    public static let jane = Contact(
        id: "contact-jane", name: "Jane Appleseed", email: "jane@example.com", phone: "+1 555 0100",
        address: PostalAddress(street: "1 Loop Road", city: "Cupertino", region: "US-CA", postalCode: "95014", countryCode: "US")
    )
    /// The standard shop's first way to ship: Standard, $4.99, free from $50.
    public static let standardShipping = ShopProfile.standard().estimate(for: Cart(currency: .usd)).methods[0]
    public static let sheetOptions = PaymentSheetOptions(paymentMethods: [visa], contacts: [jane], selectedPaymentMethod: visa, selectedContact: jane)
    public static let payment = Payment(
        method: visa, methodData: "sandbox:card_ok_visa_4242", shippingContact: jane, shippingMethod: standardShipping, transactionIdentifier: "txn-1"
    )
    public static func confirmation(_ number: String = "SF-000042", total: Money = Money(minorUnits: 0, currency: .usd)) -> OrderConfirmation {
        OrderConfirmation(orderNumber: number, total: total)
    }
}

extension ShopProfile {
    /// What the cart screen shows for `cart` before an address is chosen: the home region's first method and its tax.
    public func estimatedTotals(_ cart: Cart) -> CartTotals {
        let estimate = estimate(for: cart)
        return cart.totals(shipping: estimate.methods.first, tax: estimate.tax)
    }
}
