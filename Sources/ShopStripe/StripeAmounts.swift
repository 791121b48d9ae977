import ShopModels

/// Stripe's rules for amounts, checked before Stripe is asked: the unit it counts each currency in, and the
/// smallest charge it accepts.
///
/// From Stripe's "Supported currencies" and "Minimum and maximum charge amounts" pages. A currency with no fixed
/// minimum there (its minimum is the settlement currency's, converted) is left for Stripe to judge.
public enum StripeAmounts {
    /// Currencies Stripe counts in whole units.
    static let zeroDecimal: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
    ]
    /// Currencies Stripe counts in thousandths, whose last digit must be 0.
    static let threeDecimal: Set<String> = ["BHD", "JOD", "KWD", "OMR", "TND"]
    /// The smallest charge in each currency with a fixed one, in Stripe's units.
    static let minimums: [String: Int64] = [
        "USD": 50, "EUR": 50, "GBP": 30, "CHF": 50, "CAD": 50, "AUD": 50, "NZD": 50, "SGD": 50, "JPY": 50,
        "DKK": 250, "NOK": 300, "SEK": 300, "PLN": 200, "CZK": 1500, "HKD": 400, "MXN": 1000,
    ]

    /// How many decimals Stripe counts `currency` in.
    static func decimals(_ currency: Currency) -> Int {
        if zeroDecimal.contains(currency.code) { return 0 }
        if threeDecimal.contains(currency.code) { return 3 }
        return 2
    }

    /// `money` in Stripe's units, or why Stripe cannot take that amount exactly.
    public static func units(_ money: Money) -> Result<Int64, StripeAmountRefusal> {
        let decimals = decimals(money.currency)
        var units = money.minorUnits
        if decimals > money.currency.exponent {
            for _ in money.currency.exponent..<decimals {
                let (scaled, overflow) = units.multipliedReportingOverflow(by: 10)
                guard !overflow else { return .failure(.notExact(money)) }
                units = scaled
            }
        } else if decimals < money.currency.exponent {
            for _ in decimals..<money.currency.exponent {
                guard units % 10 == 0 else { return .failure(.notExact(money)) }
                units /= 10
            }
        }
        // Thousandths are sent with a last digit of 0: Stripe refuses the rest.
        if decimals == 3, units % 10 != 0 { return .failure(.notExact(money)) }
        return .success(units)
    }

    /// An amount Stripe answered with, in the shop's money; nil for a currency the shop does not know.
    static func money(units: Int64, currencyCode: String) -> Money? {
        guard let currency = Currency(code: currencyCode.uppercased()) else { return nil }
        let decimals = decimals(currency)
        var minor = units
        if decimals > currency.exponent {
            for _ in currency.exponent..<decimals { minor /= 10 }
        } else if decimals < currency.exponent {
            for _ in decimals..<currency.exponent { minor = minor.multipliedReportingOverflow(by: 10).partialValue }
        }
        return Money(minorUnits: minor, currency: currency)
    }

    /// Why Stripe would refuse to charge `total`, in words for the shopper; nil when it may be charged.
    public static func refusal(forCharge total: Money) -> StripeAmountRefusal? {
        switch units(total) {
        case .failure(let refusal): return refusal
        case .success(let units):
            guard let minimum = minimums[total.currency.code], units < minimum,
                let smallest = money(units: minimum, currencyCode: total.currency.code)
            else { return nil }
            return .belowMinimum(total, minimum: smallest)
        }
    }
}

/// An amount Stripe would not take.
public enum StripeAmountRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Under Stripe's smallest charge in its currency.
    case belowMinimum(Money, minimum: Money)
    /// Not a whole number of the units Stripe counts its currency in.
    case notExact(Money)

    public var description: String {
        switch self {
        case .belowMinimum(let total, let minimum):
            "The smallest card payment in \(total.currency.code) is \(minimum.formatted); this order is \(total.formatted). Add to the cart to pay by card."
        case .notExact(let total):
            "The payment service cannot charge \(total.formatted) exactly in \(total.currency.code); the shop's prices need changing."
        }
    }
}
