/// The shop as each of its markets sees it: the profile with amounts in the market's currency, and products priced
/// there (converted from the shop's own currency at the merchant's rates, rounded by the market's rule).
///
/// Made once when the shop starts; a session picks a market by the shopper's country and then by the address they
/// ship to, and the rest of the shop works in that market's currency alone.
public struct MarketPricing: Sendable {
    /// Why the markets cannot be priced.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    /// The profile as the catalog gives it, amounts in each region's market's currency.
    public let base: ShopProfile
    public let rates: ExchangeRates?
    /// Every market, the home market first: the catalog's, and one for the regions no market names (in the shop's own
    /// currency), where there are any.
    public let markets: [Market]
    private let profiles: [String: ShopProfile]

    /// The id of the market made for regions no market names.
    public static let homeID = "home"

    public init(shop: ShopProfile, rates: ExchangeRates?) throws(Problem) {
        var markets = shop.markets
        let named = Set(markets.flatMap(\.regionIDs))
        let rest = shop.regions.map(\.id).filter { !named.contains($0) }
        if !rest.isEmpty {
            let name = shop.regions.first { $0.id == rest[0] }?.name ?? shop.countryCode
            markets.append(Market(id: Self.homeID, name: name, currency: shop.currency, regionIDs: rest))
        }
        // The home market is the one of the shop's first region: where it sells before it knows anything else.
        if let home = markets.firstIndex(where: { $0.regionIDs.contains(shop.regions[0].id) }) { markets.insert(markets.remove(at: home), at: 0) }
        for market in markets where market.currency != shop.currency {
            guard let rates else {
                throw Problem(message: "the market \"\(market.id)\" sells in \(market.currency.code), and no rates file is set (shop.rates)")
            }
            guard rates.perEuro[market.currency.code] != nil, rates.perEuro[shop.currency.code] != nil else {
                let missing = [market.currency.code, shop.currency.code].filter { rates.perEuro[$0] == nil }
                throw Problem(
                    message: "the rates of \(rates.day) have no \(missing.joined(separator: " or ")), which the market \"\(market.id)\" needs")
            }
        }
        for region in shop.regions {
            guard let own = markets.first(where: { $0.regionIDs.contains(region.id) })?.currency else { continue }
            for market in markets where market.currency != own && (rates?.perEuro[own.code] == nil || rates?.perEuro[market.currency.code] == nil) {
                throw Problem(
                    message: "the rates have no \(own.code) to \(market.currency.code), which region \"\(region.id)\" needs in \"\(market.id)\"")
            }
        }
        self.base = shop
        self.rates = rates
        self.markets = markets
        var profiles: [String: ShopProfile] = [:]
        for market in markets { profiles[market.id] = Self.profile(shop, in: market, rates: rates) }
        self.profiles = profiles
    }

    /// The market the shop opens in before it knows where the shopper is.
    public var home: Market { markets[0] }

    public func market(id: String) -> Market? { markets.first { $0.id == id } }

    /// The market of the region `country` belongs to (an ISO 3166-1 code); nil where the shop does not ship.
    public func market(country: String) -> Market? {
        let country = country.uppercased()
        guard let region = base.regions.first(where: { $0.places.contains { $0 == country || $0.hasPrefix(country + "-") } }) else { return nil }
        return markets.first { $0.regionIDs.contains(region.id) }
    }

    /// The market of the region an address ships under; nil where the shop does not ship there.
    public func market(for address: PostalAddress) -> Market? {
        guard let region = base.region(for: address) else { return nil }
        return markets.first { $0.regionIDs.contains(region.id) }
    }

    /// The profile with every amount in `market`'s currency.
    public func shop(in market: Market) -> ShopProfile { profiles[market.id] ?? base }

    /// `product` as `market` sells it: each price converted and rounded, the catalog's kept as `basePrice`; as it is
    /// where it cannot be.
    public func product(_ product: Product, in market: Market) -> Product {
        // A product another market priced is priced from the catalog's own prices it keeps.
        var listed = product
        if let price = product.basePrice { (listed.price, listed.basePrice) = (price, nil) }
        for index in listed.variants.indices {
            if let price = listed.variants[index].basePrice { (listed.variants[index].price, listed.variants[index].basePrice) = (price, nil) }
        }
        guard market.currency != listed.price.currency, let rates else { return listed }
        var priced = listed
        priced.basePrice = listed.price
        priced.price = market.fixedPrice(of: listed.id) ?? market.price(listed.price, rates: rates) ?? listed.price
        for index in priced.variants.indices {
            let variant = listed.variants[index]
            priced.variants[index].basePrice = variant.price
            priced.variants[index].price = market.fixedPrice(of: variant.sku) ?? market.price(variant.price, rates: rates) ?? variant.price
        }
        // A product with options lists its lowest variant's price, fixed or converted.
        if let lowest = priced.variants.map(\.price).min(by: { $0.minorUnits < $1.minorUnits }), market.prices[listed.id.rawValue] == nil,
            priced.variants.contains(where: { market.prices[$0.sku.rawValue] != nil })
        {
            priced.price = lowest
        }
        return priced
    }

    /// `line` priced in `market`: from its price in the shop's own currency where the line knows it (exactly as the
    /// catalog would price it), else converted from its own currency at the rates (a catalog check then sets it).
    public func line(_ line: CartLine, in market: Market) -> CartLine {
        guard line.unitPrice.currency != market.currency else { return line }
        var priced = line
        let own = self.base.currency
        // Every market's currency converts (`init` checked the rates): the fallbacks keep a line in the market's currency.
        if let listed = line.basePrice ?? (line.unitPrice.currency == own ? line.unitPrice : nil) {
            priced.unitPrice =
                market.currency == own
                ? listed
                : (market.fixedPrice(of: line.stockKey) ?? rates.flatMap { market.price(listed, rates: $0) }
                    ?? Money(minorUnits: 0, currency: market.currency))
            priced.basePrice = market.currency == own ? nil : listed
        } else if let fixed = market.fixedPrice(of: line.stockKey) {
            priced.unitPrice = fixed
        } else {
            priced.unitPrice = rates?.convert(line.unitPrice, to: market.currency) ?? Money(minorUnits: 0, currency: market.currency)
        }
        return priced
    }

    /// The shop's profile as `market` shows it: its currency, and each region's shipping converted into it.
    private static func profile(_ shop: ShopProfile, in market: Market, rates: ExchangeRates?) -> ShopProfile {
        var profile = shop
        profile.currency = market.currency
        // The market's own regions first: the first region is where a cart's totals are estimated before an address.
        let own = shop.regions.filter { market.regionIDs.contains($0.id) }
        profile.regions = own + shop.regions.filter { !market.regionIDs.contains($0.id) }
        guard let rates else { return profile }
        profile.regions = profile.regions.map { region in
            var region = region
            region.rates = region.rates.map { $0.converted(to: market.currency, rates: rates) }
            return region
        }
        return profile
    }
}

extension ShippingRate {
    /// The rate with its amounts in `currency`, converted at `rates` (half up to the minor unit).
    func converted(to currency: Currency, rates: ExchangeRates) -> ShippingRate {
        func convert(_ amount: Money) -> Money { rates.convert(amount, to: currency) ?? amount }
        var rate = self
        switch pricing {
        case .flat(let amount): rate.pricing = .flat(convert(amount))
        case .byWeight(let bands):
            rate.pricing = .byWeight(bands.map { ShippingRate.WeightBand(upToGrams: $0.upToGrams, amount: convert($0.amount)) })
        case .bySubtotal(let bands):
            rate.pricing = .bySubtotal(bands.map { ShippingRate.SubtotalBand(from: convert($0.from), amount: convert($0.amount)) })
        }
        rate.freeFrom = freeFrom.map(convert)
        return rate
    }
}

/// The rate an order in a market's currency was sold at, kept with it: the base-currency total at that rate for
/// reports, and a fixed-amount discount code converted by it.
public struct OrderExchange: Hashable, Sendable {
    /// The day of the rates (`YYYY-MM-DD`).
    public var day: String
    public var base: Currency
    public var currency: Currency
    /// Units of `currency` one unit of `base` buys, as a decimal with up to 8 places: `0.86430424`.
    public var rate: String
    private let rates: ExchangeRates

    public init?(rates: ExchangeRates, base: Currency, currency: Currency) {
        guard base != currency, let from = rates.perEuro[base.code], let to = rates.perEuro[currency.code] else { return nil }
        self.day = rates.day
        self.base = base
        self.currency = currency
        self.rates = rates
        // to/from to 8 places, half up, from the rates' own digits.
        var numerator = Int128(to.digits) * 100_000_000
        var denominator = Int128(from.digits)
        let shift = from.scale - to.scale
        for _ in 0..<max(0, shift) { numerator *= 10 }
        for _ in 0..<max(0, -shift) { denominator *= 10 }
        let scaled = (numerator * 2 + denominator) / (denominator * 2)
        let whole = scaled / 100_000_000
        let fraction = String(scaled % 100_000_000)
        rate = "\(whole)." + String(repeating: "0", count: 8 - fraction.count) + fraction
    }

    /// `amount` (in `currency`) in the shop's own currency at these rates.
    public func inBase(_ amount: Money) -> Money { rates.convert(amount, to: base) ?? amount }

    /// `amount` (in the shop's own currency) in the order's currency at these rates.
    public func fromBase(_ amount: Money) -> Money { rates.convert(amount, to: currency) ?? amount }

    public static func == (lhs: OrderExchange, rhs: OrderExchange) -> Bool {
        lhs.day == rhs.day && lhs.base == rhs.base && lhs.currency == rhs.currency && lhs.rate == rhs.rate
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(rate) }
}

extension MarketPricing {
    /// The rate an order in `market` is sold at; nil in the shop's own currency.
    public func exchange(in market: Market) -> OrderExchange? {
        rates.flatMap { OrderExchange(rates: $0, base: base.currency, currency: market.currency) }
    }
}

extension DiscountCode {
    /// The code as it applies to an order in `currency`: a fixed amount and a minimum converted at `exchange`
    /// (a percentage is the same everywhere). Itself where the currencies agree.
    public func priced(in currency: Currency, exchange: OrderExchange?) -> DiscountCode {
        guard let exchange, exchange.currency == currency else { return self }
        var code = self
        if case .fixed(let amount) = kind, amount.currency == exchange.base { code.kind = .fixed(exchange.fromBase(amount)) }
        if let minimum = minimumSubtotal, minimum.currency == exchange.base { code.minimumSubtotal = exchange.fromBase(minimum) }
        return code
    }
}
