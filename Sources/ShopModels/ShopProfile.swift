import AddressFormats
import ShopLanguages

/// The merchant's settings that come with a catalog: who sells, in what currency, where it ships with what tax and
/// shipping, and which cards it takes.
public struct ShopProfile: Hashable, Sendable {
    public var name: String
    public var merchantIdentifier: String
    public var countryCode: String
    public var currency: Currency
    public var supportedNetworks: [PaymentNetwork]
    /// Where the shop ships, the first being its home: never empty.
    public var regions: [SalesRegion]
    /// Where the shop sells in another currency than its own (`store.markets`); a region in none sells in `currency`.
    public var markets: [Market] = []
    /// The address the shop's messages to shoppers come from, and where replies go (`store.email`, `store.replyTo`).
    public var email: String?
    public var replyTo: String?
    /// How many days before a renewal its subscriber is reminded of it (`store.renewalReminderDays`); 0: never.
    public var renewalReminderDays = ShopProfile.defaultRenewalReminderDays
    public static let defaultRenewalReminderDays = 3
    /// The most days ahead a reminder may come: the shortest interval is a week.
    public static let renewalReminderDaysRange = 0...6

    public init(
        name: String, merchantIdentifier: String, countryCode: String, currency: Currency,
        supportedNetworks: [PaymentNetwork], regions: [SalesRegion]
    ) {
        self.name = name
        self.merchantIdentifier = merchantIdentifier
        self.countryCode = countryCode
        self.currency = currency
        self.supportedNetworks = supportedNetworks
        self.regions = regions
    }

    /// The profile used when a catalog file has none (a bare array of products).
    public static func standard(currency: Currency = .usd) -> ShopProfile {
        ShopProfile(
            name: "Storefront",
            merchantIdentifier: "merchant.dev.storefront",
            countryCode: "US",
            currency: currency,
            supportedNetworks: [.visa, .mastercard, .amex, .discover],
            regions: [domestic(country: "US", currency: currency)]
        )
    }

    /// A shop's one region where its catalog declares none: its own country, one sales tax, Standard and Express.
    public static func domestic(
        country: String, currency: Currency, tax: RegionTax = RegionTax(rule: .added, label: "Sales tax", basisPoints: 825),
        rates: [ShippingRate]? = nil
    ) -> SalesRegion {
        SalesRegion(
            id: "domestic", name: AddressFormats.format(for: country)?.name ?? country, places: [country], tax: tax,
            rates: rates ?? [
                ShippingRate(
                    id: "standard", label: "Standard", detail: "3–5 business days", pricing: .flat(Money(minorUnits: 499, currency: currency)),
                    freeFrom: Money(minorUnits: 5_000, currency: currency)),
                ShippingRate(
                    id: "express", label: "Express", detail: "Next business day", pricing: .flat(Money(minorUnits: 1_499, currency: currency))),
            ])
    }
}

extension ShopProfile {
    /// The region `address` ships under: the one naming its subdivision, else the one naming its country.
    public func region(for address: PostalAddress) -> SalesRegion? {
        let country = address.countryCode.trimming(" ").uppercased()
        let subdivision = address.region.uppercased()
        return regions.first { !subdivision.isEmpty && $0.places.contains(subdivision) } ?? regions.first { $0.places.contains(country) }
    }

    /// Why the shop will not ship to `address`, in one line that says where it does ship; nil when it ships there. The
    /// one check the address form, the payment sheet and the API share.
    public func shippingRefusal(address: PostalAddress) -> Localized? {
        guard region(for: address) == nil else { return nil }
        return Localized("\(name) ships only to \(Self.listedWords(regions.map(\.name))).")
    }

    /// The methods, priced for `cart`, and the tax of shipping it to `address`; nil where the shop does not ship there,
    /// or not in the cart's currency (a region of another market, in a profile no market priced: `MarketPricing`).
    public func quote(for cart: Cart, to address: PostalAddress) -> ShippingQuote? {
        guard let region = region(for: address), region.rates.allSatisfy({ $0.currency == cart.currency }) else { return nil }
        return region.quote(for: cart, to: address)
    }

    /// What the cart screen shows before an address is chosen: the home region's methods and its tax in the shop's own
    /// country.
    public func estimate(for cart: Cart) -> ShippingQuote {
        // A market's home region may not hold the shop's country: its own first country's tax is the estimate's.
        let home = regions[0]
        let country = home.places.contains(countryCode) ? countryCode : home.places.first.map { String($0.prefix(2)) } ?? countryCode
        return home.quote(for: cart, to: PostalAddress(street: "", city: "", postalCode: "", countryCode: country))
    }

    /// The dearest every region can be: each rate at its highest and the highest added tax, which bound what a cart
    /// may cost before its address is known.
    public var ceiling: (methods: [ShippingMethod], tax: TaxPolicy) {
        // In this profile's currency alone: a profile no market priced holds other markets' regions in theirs.
        let methods = regions.flatMap(\.rates).filter { $0.currency == currency }.compactMap { rate in
            rate.highest.map { ShippingMethod(id: rate.id, label: rate.label, detail: rate.detail, amount: $0) }
        }
        let added = regions.map(\.tax).filter { $0.rule == .added }.map(\.highest.basisPoints).max() ?? 0
        return (methods, TaxPolicy(basisPoints: added))
    }

    /// "the United States, Canada and Germany", in the shopper's language.
    public static func listedWords(_ names: [String]) -> Localized {
        guard let last = names.last, names.count > 1 else { return names.first.map(Localized.verbatim) ?? Localized("nowhere") }
        return Localized("\(names.dropLast().joined(separator: ", ")) and \(last)")
    }

    /// `listedWords` in English, for the CLI and the API.
    public static func listed(_ names: [String]) -> String { listedWords(names).description }
}

/// What shipping one cart to one address comes to: its region, the methods on offer priced for the cart, and the tax.
public struct ShippingQuote: Hashable, Sendable {
    public var region: String
    public var methods: [ShippingMethod]
    public var tax: TaxPolicy

    public init(region: String, methods: [ShippingMethod], tax: TaxPolicy) {
        self.region = region
        self.methods = methods
        self.tax = tax
    }
}
