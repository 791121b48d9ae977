/// A part of the world the shop sells to in one currency: one or more of its sales regions, the currency they pay in,
/// and how a price converted from the shop's own currency is rounded there.
public struct Market: Hashable, Sendable, Identifiable {
    public var id: String
    /// What the shop calls it where a shopper chooses: "Europe", "Japan".
    public var name: String
    public var currency: Currency
    /// The sales regions (`SalesRegion.id`) it covers, none of them in another market.
    public var regionIDs: [String]
    public var rounding: PriceRounding
    /// Prices the merchant fixed for this market, in its currency's minor units, by the stock key they price (a product
    /// without options by its id, a variant by its SKU): sold at these, never converted.
    public var prices: [String: Int64]

    public init(
        id: String, name: String, currency: Currency, regionIDs: [String], rounding: PriceRounding = .none, prices: [String: Int64] = [:]
    ) {
        self.prices = prices
        self.id = id
        self.name = name
        self.currency = currency
        self.regionIDs = regionIDs
        self.rounding = rounding
    }
}

/// How a converted price is rounded in a market: never down, so a conversion never sells below the merchant's price.
public enum PriceRounding: Hashable, Sendable, CustomStringConvertible {
    /// To the currency's minor unit (half up), as the conversion gives it.
    case none
    /// Up to a multiple of `units` whole units: 1 for whole euros, 100 for hundreds of yen.
    case wholeUnits(Int64)
    /// Up to the next price ending in `minorUnits` below a whole unit: 99 for `.99`, 5 for `.95`.
    case ending(Int64)

    /// The catalog's spelling: `none`, `whole`, `10`, `100`, `.99`, `.95`, `.90`.
    public init?(written: String, currency: Currency) {
        switch written {
        case "none": self = .none
        case "whole": self = .wholeUnits(1)
        case "10", "100", "1000": self = .wholeUnits(Int64(written)!)
        case ".99", ".95", ".90":
            guard currency.exponent == 2 else { return nil }
            self = .ending(100 - Int64(written.dropFirst())!)
        default: return nil
        }
    }

    public static let spellings = ["none", "whole", "10", "100", "1000", ".99", ".95", ".90"]

    public var description: String {
        switch self {
        case .none: "none"
        case .wholeUnits(1): "whole"
        case .wholeUnits(let units): String(units)
        case .ending(let below): ".\(100 - below)"
        }
    }

    /// `minorUnits` rounded by this rule in `currency`.
    public func apply(_ minorUnits: Int64, in currency: Currency) -> Int64 {
        switch self {
        case .none:
            return minorUnits
        case .wholeUnits(let units):
            let step = units * currency.minorUnitsPerMajor
            return (minorUnits + step - 1) / step * step
        case .ending(let below):
            // 23.12 → 23.99 and 24.00 → 24.99: the next whole unit, less the ending's distance below it.
            let step = currency.minorUnitsPerMajor
            return (minorUnits + below + step - 1) / step * step - below
        }
    }
}

/// Exchange rates against the euro on one day, as the European Central Bank publishes them: 1 EUR = `rate` units.
public struct ExchangeRates: Hashable, Sendable {
    /// A rate as the file writes it, kept as decimal digits: `162.45` is 16245 × 10⁻².
    public struct Rate: Hashable, Sendable, CustomStringConvertible {
        public var digits: Int64
        public var scale: Int

        /// `1.0578`, `162.45`; nil for anything but a positive decimal of at most 12 significant digits.
        public init?(_ written: String) {
            let parts = written.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
            let joined = parts.joined()
            guard joined.count <= 12, let digits = Int64(joined), digits > 0 else { return nil }
            self.digits = digits
            self.scale = parts.count == 2 ? parts[1].count : 0
        }

        public static let one = Rate("1")!

        public var description: String {
            let text = String(digits)
            guard scale > 0 else { return text }
            let padded = String(repeating: "0", count: max(0, scale + 1 - text.count)) + text
            return padded.dropLast(scale) + "." + padded.suffix(scale)
        }
    }

    /// The day the rates are for, `YYYY-MM-DD`.
    public var day: String
    /// Units of each currency one euro buys, by ISO 4217 code; the euro's own is 1.
    public var perEuro: [String: Rate]

    public init(day: String, perEuro: [String: Rate]) {
        self.day = day
        var rates = perEuro
        rates["EUR"] = .one
        self.perEuro = rates
    }

    /// `amount` in `currency`, at these rates, rounded half up to its minor unit; nil when a rate is missing or the
    /// result is past `Money.maximumMinorUnits`.
    public func convert(_ amount: Money, to currency: Currency) -> Money? {
        if amount.currency == currency { return amount }
        guard let source = perEuro[amount.currency.code], let target = perEuro[currency.code] else { return nil }
        // minor × target / source, with both rates' scales and both currencies' exponents, in 128 bits: a bounded amount
        // (10¹²) times a rate of 12 digits and the scales stays far inside.
        var numerator = Int128(amount.minorUnits) * Int128(target.digits)
        var denominator = Int128(source.digits)
        let shift = (currency.exponent - amount.currency.exponent) + (source.scale - target.scale)
        for _ in 0..<max(0, shift) { numerator *= 10 }
        for _ in 0..<max(0, -shift) { denominator *= 10 }
        let negative = numerator < 0
        let magnitude = negative ? -numerator : numerator
        let rounded = (magnitude * 2 + denominator) / (denominator * 2)
        guard rounded <= Int128(Money.maximumMinorUnits) else { return nil }
        return Money(minorUnits: Int64(negative ? -rounded : rounded), currency: currency)
    }

    /// Days from `day` to `today` (both `YYYY-MM-DD`), for naming rates as stale; nil when either does not read.
    public func age(on today: String) -> Int? {
        guard let from = UTCTime.dayNumber(day), let to = UTCTime.dayNumber(today) else { return nil }
        return to - from
    }
}

extension Market {
    /// The price the merchant fixed in this market for `stockKey` (a product without options, or a variant's SKU).
    public func fixedPrice(of stockKey: ProductID) -> Money? {
        prices[stockKey.rawValue].map { Money(minorUnits: $0, currency: currency) }
    }

    /// A price in the shop's own currency, as this market sells it: converted at `rates` and rounded by the
    /// market's rule; nil when the rates lack the currency.
    public func price(_ base: Money, rates: ExchangeRates) -> Money? {
        guard base.currency != currency else { return base }
        guard let converted = rates.convert(base, to: currency) else { return nil }
        let rounded = rounding.apply(converted.minorUnits, in: currency)
        return rounded <= Money.maximumMinorUnits ? Money(minorUnits: rounded, currency: currency) : nil
    }
}
