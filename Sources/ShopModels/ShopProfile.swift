/// The merchant's settings that come with a catalog: who sells, in what currency, with what tax and shipping.
public struct ShopProfile: Hashable, Sendable, Codable {
    public var name: String
    public var merchantIdentifier: String
    public var countryCode: String
    public var currency: Currency
    public var tax: TaxPolicy
    public var supportedNetworks: [PaymentNetwork]
    public var shippingMethods: [ShippingMethod]
    /// The address the shop's messages to shoppers come from, and where replies go (`store.email`, `store.replyTo`).
    public var email: String?
    public var replyTo: String?

    public init(
        name: String, merchantIdentifier: String, countryCode: String, currency: Currency,
        tax: TaxPolicy, supportedNetworks: [PaymentNetwork], shippingMethods: [ShippingMethod]
    ) {
        self.name = name
        self.merchantIdentifier = merchantIdentifier
        self.countryCode = countryCode
        self.currency = currency
        self.tax = tax
        self.supportedNetworks = supportedNetworks
        self.shippingMethods = shippingMethods
    }

    /// The profile used when a catalog file has none (a bare array of products).
    public static func standard(currency: Currency = .usd) -> ShopProfile {
        ShopProfile(
            name: "Storefront",
            merchantIdentifier: "merchant.dev.storefront",
            countryCode: "US",
            currency: currency,
            tax: TaxPolicy(label: "Sales tax", basisPoints: 825),
            supportedNetworks: [.visa, .mastercard, .amex, .discover],
            shippingMethods: [
                ShippingMethod(
                    id: "standard", label: "Standard", detail: "3–5 business days",
                    amount: Money(minorUnits: 499, currency: currency),
                    freeFrom: Money(minorUnits: 5_000, currency: currency)
                ),
                ShippingMethod(
                    id: "express", label: "Express", detail: "Next business day",
                    amount: Money(minorUnits: 1_499, currency: currency)
                ),
            ]
        )
    }
}

extension ShopProfile {
    /// Why the shop will not ship to `country`, or nil when it does: the one check the address form, the payment sheet
    /// and the API share.
    public func shippingRefusal(country: String) -> String? {
        guard country.trimming(" ").uppercased() != countryCode else { return nil }
        return "\(name) ships to \(countryCode) addresses only."
    }
}
