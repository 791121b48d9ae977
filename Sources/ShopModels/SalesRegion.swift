/// One part of the world a shop ships to: its countries and subdivisions, the tax charged there and the ways to ship.
public struct SalesRegion: Hashable, Sendable {
    public var id: String
    /// What the shop calls it where it says where it ships: "the United States", "Canada", "the European Union".
    public var name: String
    /// ISO 3166-1 countries ("DE") and ISO 3166-2 subdivisions ("US-TX"); an address belongs to the region naming its
    /// subdivision before the one naming its country.
    public var places: [String]
    public var tax: RegionTax
    public var rates: [ShippingRate]

    public init(id: String, name: String, places: [String], tax: RegionTax, rates: [ShippingRate]) {
        self.id = id
        self.name = name
        self.places = places
        self.tax = tax
        self.rates = rates
    }

    /// The shipping methods this region offers for `cart`, each priced for it; a rate whose weight bands stop below
    /// the cart's weight is left out.
    func methods(for cart: Cart) -> [ShippingMethod] {
        rates.compactMap { $0.method(subtotal: cart.subtotal, grams: cart.grams) }
    }

    /// Shipping `cart` to `address` within this region: its methods priced for the cart, and the address's tax.
    public func quote(for cart: Cart, to address: PostalAddress) -> ShippingQuote {
        ShippingQuote(region: id, methods: methods(for: cart), tax: tax.policy(for: address))
    }
}

/// A region's tax rule: added at the checkout, included in prices, or none; with a rate per place.
public struct RegionTax: Hashable, Sendable {
    /// The rate of one country or subdivision, with its own label where it has one ("HST" in Ontario).
    public struct Rate: Hashable, Sendable {
        public var place: String
        public var basisPoints: Int
        public var label: String?

        public init(place: String, basisPoints: Int, label: String? = nil) {
            self.place = place
            self.basisPoints = basisPoints
            self.label = label
        }
    }

    public var rule: TaxPolicy.Rule
    public var label: String
    /// The rate where no place of `rates` matches the address.
    public var basisPoints: Int
    public var rates: [Rate]

    public init(rule: TaxPolicy.Rule, label: String, basisPoints: Int = 0, rates: [Rate] = []) {
        self.rule = rule
        self.label = label
        self.basisPoints = basisPoints
        self.rates = rates
    }

    public static let none = RegionTax(rule: .none, label: "Tax")

    /// The tax an order shipped to `address` is charged: the subdivision's rate, else the country's, else the region's.
    public func policy(for address: PostalAddress) -> TaxPolicy {
        let country = address.countryCode.uppercased()
        let rate = rates.first { $0.place == address.region.uppercased() && !address.region.isEmpty } ?? rates.first { $0.place == country }
        return TaxPolicy(
            label: rate?.label ?? label, basisPoints: rate?.basisPoints ?? basisPoints, rule: rule, jurisdiction: rate?.place ?? country)
    }

    /// The dearest rate of the region: what a cart is bounded by before its address is known.
    public var highest: TaxPolicy {
        TaxPolicy(label: label, basisPoints: rates.map(\.basisPoints).reduce(basisPoints, max), rule: rule)
    }
}

/// One way to ship within a region: its price, flat or by the cart's weight or subtotal, free from an amount, and the
/// delivery estimate.
public struct ShippingRate: Hashable, Sendable {
    public enum Pricing: Hashable, Sendable {
        case flat(Money)
        /// Bands in rising order: the first whose limit the cart's weight does not pass prices it.
        case byWeight([WeightBand])
        /// Bands in rising order of `from`, the first from zero: the last the cart's subtotal reaches prices it.
        case bySubtotal([SubtotalBand])
    }

    /// The currency its amounts are in: its region's market's.
    public var currency: Currency? {
        switch pricing {
        case .flat(let amount): amount.currency
        case .byWeight(let bands): bands.first?.amount.currency
        case .bySubtotal(let bands): bands.first?.amount.currency
        }
    }

    public struct WeightBand: Hashable, Sendable {
        public var upToGrams: Int
        public var amount: Money
        public init(upToGrams: Int, amount: Money) {
            self.upToGrams = upToGrams
            self.amount = amount
        }
    }

    public struct SubtotalBand: Hashable, Sendable {
        public var from: Money
        public var amount: Money
        public init(from: Money, amount: Money) {
            self.from = from
            self.amount = amount
        }
    }

    public var id: String
    public var label: String
    /// The delivery estimate: "3–5 business days".
    public var detail: String
    public var pricing: Pricing
    public var freeFrom: Money?

    public init(id: String, label: String, detail: String, pricing: Pricing, freeFrom: Money? = nil) {
        self.id = id
        self.label = label
        self.detail = detail
        self.pricing = pricing
        self.freeFrom = freeFrom
    }

    /// This rate as the sheet offers it for a cart of `subtotal` weighing `grams`; nil when no weight band takes it.
    public func method(subtotal: Money, grams: Int) -> ShippingMethod? {
        let amount: Money
        switch pricing {
        case .flat(let flat): amount = flat
        case .byWeight(let bands):
            guard let band = bands.first(where: { grams <= $0.upToGrams }) else { return nil }
            amount = band.amount
        case .bySubtotal(let bands):
            guard let band = bands.last(where: { subtotal.minorUnits >= $0.from.minorUnits }) ?? bands.first else { return nil }
            amount = band.amount
        }
        return ShippingMethod(id: id, label: label, detail: detail, amount: amount, freeFrom: freeFrom)
    }

    /// The most this rate can cost, whatever the cart.
    public var highest: Money? {
        switch pricing {
        case .flat(let flat): flat
        case .byWeight(let bands): bands.map(\.amount).max { $0.minorUnits < $1.minorUnits }
        case .bySubtotal(let bands): bands.map(\.amount).max { $0.minorUnits < $1.minorUnits }
        }
    }
}
