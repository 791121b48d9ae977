import ShopLanguages

/// An ISO 4217 currency with the exponent that says how many minor units make one major unit.
public struct Currency: Hashable, Sendable, Codable, CustomStringConvertible {
    public let code: String
    public let exponent: Int
    /// The prefix used when formatting, e.g. "$"; nil formats as the code and a space ("CHF 5.00").
    public let symbol: String?

    public init(code: String, exponent: Int, symbol: String? = nil) {
        self.code = code
        self.exponent = exponent
        self.symbol = symbol
    }

    /// The step, in minor units, a card payment or refund of this currency moves in: 10 thousandths for a
    /// three-decimal currency (KWD, BHD…: Stripe takes only a last digit of 0, and fils are not coined finer), else 1.
    public var cardStep: Int64 { exponent == 3 ? 10 : 1 }

    public static let usd = Currency(code: "USD", exponent: 2, symbol: "$")
    public static let eur = Currency(code: "EUR", exponent: 2, symbol: "€")
    public static let gbp = Currency(code: "GBP", exponent: 2, symbol: "£")
    public static let jpy = Currency(code: "JPY", exponent: 0, symbol: "¥")
    public static let kwd = Currency(code: "KWD", exponent: 3)
    public static let chf = Currency(code: "CHF", exponent: 2)
    public static let cad = Currency(code: "CAD", exponent: 2, symbol: "CA$")
    public static let aud = Currency(code: "AUD", exponent: 2, symbol: "A$")
    public static let bhd = Currency(code: "BHD", exponent: 3)
    public static let krw = Currency(code: "KRW", exponent: 0, symbol: "₩")

    /// The currencies this shop knows; a catalog naming any other is rejected.
    public static let known: [String: Currency] = Dictionary(
        uniqueKeysWithValues: [usd, eur, gbp, jpy, kwd, chf, cad, aud, bhd, krw].map { ($0.code, $0) }
    )

    /// Looks a currency up by its ISO 4217 code.
    public init?(code: String) {
        guard let found = Currency.known[code.uppercased()] else { return nil }
        self = found
    }

    public var description: String { code }

    /// How many minor units make one major unit (10^exponent).
    public var minorUnitsPerMajor: Int64 {
        var scale: Int64 = 1
        for _ in 0..<exponent { scale *= 10 }
        return scale
    }

    public init(from decoder: any Decoder) throws {
        let code = try decoder.singleValueContainer().decode(String.self)
        guard let currency = Currency(code: code) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "unknown currency \"\(code)\"; known: \(Currency.known.keys.sorted().joined(separator: ", "))"
                ))
        }
        self = currency
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

/// An amount of money: an integer count of minor units in one currency. Never floating point.
public struct Money: Hashable, Sendable, Codable, CustomStringConvertible {
    public var minorUnits: Int64
    public var currency: Currency

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    public var isZero: Bool { minorUnits == 0 }

    /// The largest amount, in minor units, the shop handles anywhere: a price, a shipping cost, a
    /// cart's total with tax and any shipping method. 10^12 - 1 ($9,999,999,999.99, ¥999,999,999,999):
    /// far above any real order, and small enough that a total times a tax rate of 100 % in basis
    /// points (10^4) stays inside Int64, so no sum or product of bounded amounts can overflow.
    public static let maximumMinorUnits: Int64 = 999_999_999_999

    /// The bound in `currency`, for messages such as "This would take the cart over $9,999,999,999.99."
    public static func maximum(_ currency: Currency) -> Money { Money(minorUnits: maximumMinorUnits, currency: currency) }

    /// True when this amount is within 0...maximumMinorUnits.
    public var isWithinMaximum: Bool { (0...Self.maximumMinorUnits).contains(minorUnits) }

    // The operators saturate instead of trapping: amounts are bounded where they enter (catalog,
    // cart, restored carts), so saturation is never reached by checked data, and an unchecked
    // amount that reaches it lands far over the bound, where `isWithinMaximum` refuses it.
    public static func + (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "adding \(lhs.currency) to \(rhs.currency)")
        return Money(
            minorUnits: saturating(lhs.minorUnits.addingReportingOverflow(rhs.minorUnits), positive: rhs.minorUnits > 0), currency: lhs.currency)
    }

    public static func - (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "subtracting \(rhs.currency) from \(lhs.currency)")
        return Money(
            minorUnits: saturating(lhs.minorUnits.subtractingReportingOverflow(rhs.minorUnits), positive: rhs.minorUnits < 0), currency: lhs.currency)
    }

    public static func * (lhs: Money, quantity: Int) -> Money {
        let positive = (lhs.minorUnits < 0) == (quantity < 0)
        return Money(
            minorUnits: saturating(lhs.minorUnits.multipliedReportingOverflow(by: Int64(quantity)), positive: positive), currency: lhs.currency)
    }

    private static func saturating(_ result: (partialValue: Int64, overflow: Bool), positive: Bool) -> Int64 {
        guard result.overflow else { return result.partialValue }
        return positive ? .max : .min
    }

    /// Formats for display: "$12.50", "¥500", "KWD 1.250", "-$3.00".
    public var formatted: String {
        // Written straight into the string's own storage: every price on screen is formatted on every frame that
        // draws it, and building it through byte arrays allocated three of them each time.
        let scale = UInt64(currency.minorUnitsPerMajor)
        let magnitude = minorUnits.magnitude
        let whole = magnitude / scale
        var digits = 1
        var rest = whole
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        let wholeWidth = digits + (digits - 1) / 3
        let exponent = currency.exponent
        let symbol = currency.symbol
        let prefixWidth = symbol?.utf8.count ?? currency.code.utf8.count + 1
        let capacity = (minorUnits < 0 ? 1 : 0) + prefixWidth + wholeWidth + (exponent > 0 ? 1 + exponent : 0)
        return String(unsafeUninitializedCapacity: capacity) { bytes in
            var at = 0
            func put(_ byte: UInt8) {
                bytes[at] = byte
                at += 1
            }
            if minorUnits < 0 { put(UInt8(ascii: "-")) }
            if let symbol {
                for byte in symbol.utf8 { put(byte) }
            } else {
                for byte in currency.code.utf8 { put(byte) }
                put(UInt8(ascii: " "))
            }
            // The whole part from its last digit back, a comma before every third.
            var position = at + wholeWidth
            var value = whole
            var written = 0
            repeat {
                if written > 0, written % 3 == 0 {
                    position -= 1
                    bytes[position] = UInt8(ascii: ",")
                }
                position -= 1
                bytes[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
                written += 1
            } while value > 0
            at += wholeWidth
            if exponent > 0 {
                put(UInt8(ascii: "."))
                var fraction = magnitude % scale
                for index in (at..<at + exponent).reversed() {
                    bytes[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
                    fraction /= 10
                }
                at += exponent
            }
            return at
        }
    }

    public var description: String { formatted }
}

extension Sequence where Element == Money {
    /// The sum of the amounts, or zero in `currency` when empty.
    public func sum(in currency: Currency) -> Money {
        reduce(.zero(currency), +)
    }
}

extension Money {
    /// An amount a person typed, such as `12.50`, `12`, `$12.50` or `1,250.00`, in `currency`; nil for anything
    /// else: a sign, more decimals than the currency has, letters, or more than `maximumMinorUnits`.
    public init?(typed text: String, currency: Currency) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if let symbol = currency.symbol, rest.hasPrefix(symbol) { rest = rest.dropFirst(symbol.count) }
        if rest.uppercased().hasPrefix(currency.code) { rest = rest.dropFirst(currency.code.count).drop { $0 == " " } }
        let parts = rest.replacingOccurrences(of: ",", with: "").split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit), whole.count <= 12 else {
            return nil
        }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= currency.exponent, fraction.allSatisfy(\.isASCIIDigit), parts.count == 1 || !fraction.isEmpty,
            let major = Int64(whole)
        else { return nil }
        let padded = fraction + String(repeating: "0", count: currency.exponent - fraction.count)
        let minor = major * currency.minorUnitsPerMajor + (Int64(padded) ?? 0)
        guard minor <= Self.maximumMinorUnits else { return nil }
        self.init(minorUnits: minor, currency: currency)
    }
}

extension Money {
    /// The amount as a person types it, the form `init(typed:)` reads back: digits and the decimal point, no symbol
    /// or separators ("1250.00").
    public var plainAmount: String {
        let scale = currency.minorUnitsPerMajor
        let whole = minorUnits / scale
        guard currency.exponent > 0 else { return String(whole) }
        let fraction = String(minorUnits % scale)
        return "\(whole)." + String(repeating: "0", count: currency.exponent - fraction.count) + fraction
    }
}

extension Localized.Interpolation {
    /// An amount in words, written by the reader's locale when the words are drawn.
    public mutating func appendInterpolation(_ money: Money) {
        appendArgument(
            .money(minorUnits: money.minorUnits, currency: money.currency.code, exponent: money.currency.exponent, english: money.formatted))
    }
}
