import ShopLanguages

/// The tax an order is charged under: its rule, its rate in basis points (1/100 of a percent), its label and the
/// jurisdiction (an ISO 3166 country or subdivision code) whose rate it is.
///
/// Rounding rule: tax is computed once on the whole amount (not per line) and rounded half up to the nearest minor unit,
/// so $0.005 becomes $0.01 and the total always equals the shown parts. Sales tax added at the checkout is charged on the
/// goods, not on shipping; tax included in prices (VAT, GST) is the part of everything paid, shipping too, since the
/// shipping of goods takes their rate.
public struct TaxPolicy: Hashable, Sendable, Codable {
    /// How the tax meets the prices.
    public enum Rule: String, Hashable, Sendable, Codable, CaseIterable {
        /// Added to the goods at the checkout ("Sales tax").
        case added
        /// Already in the prices; the receipt shows the part that is tax ("incl. VAT 19%").
        case included
        /// No tax is charged.
        case none
    }

    public var label: String
    public var basisPoints: Int
    public var rule: Rule
    /// Where the rate applies: "US-TX", "CA-ON", "DE"; empty for orders placed before it was kept.
    public var jurisdiction: String

    public init(label: String = "Tax", basisPoints: Int, rule: Rule = .added, jurisdiction: String = "") {
        self.label = label
        self.basisPoints = rule == .none ? 0 : basisPoints
        self.rule = rule
        self.jurisdiction = jurisdiction
    }

    public static let none = TaxPolicy(basisPoints: 0, rule: .none)

    /// Whether the tax is part of the prices rather than added to them.
    public var isIncluded: Bool { rule == .included }

    /// The rate in words: "19%", "8.25%", "6.5%".
    public var percent: String {
        let (whole, hundredths) = basisPoints.quotientAndRemainder(dividingBy: 100)
        guard hundredths != 0 else { return "\(whole)%" }
        let fraction = hundredths % 10 == 0 ? "\(hundredths / 10)" : (hundredths < 10 ? "0\(hundredths)" : "\(hundredths)")
        return "\(whole).\(fraction)%"
    }

    /// What the sheet, the cart and the receipt call the tax line: "Sales tax", "HST", "incl. VAT 19%".
    public var summaryLabel: String { summaryWords.description }
    /// "incl. VAT 19%" or "Sales tax", in the shopper's language.
    public var summaryWords: Localized { isIncluded ? Localized("incl. \(label) \(percent)") : .verbatim(label) }

    /// The tax of an order with `goods` and `shipping`: added on the goods, or the part of both that is included.
    public func tax(goods: Money, shipping: Money) -> Money {
        switch rule {
        case .added: tax(on: goods)
        case .included: includedTax(in: goods + shipping)
        case .none: .zero(goods.currency)
        }
    }

    /// Tax added on `subtotal` at this rate.
    public func tax(on subtotal: Money) -> Money {
        // subtotal = whole * 10^4 + rest, so subtotal * rate / 10^4 = whole * rate + rest * rate / 10^4,
        // exact for every Int64 subtotal: only the first product can overflow, and it saturates.
        let magnitude = subtotal.minorUnits.magnitude
        // The catalog allows 0...10_000 (100 %); the clamp only keeps hand-built policies from overflowing.
        let rate = UInt64(min(max(0, basisPoints), 1_000_000))
        let (whole, rest) = magnitude.quotientAndRemainder(dividingBy: 10_000)
        let (wholeTax, overflow) = whole.multipliedReportingOverflow(by: rate)
        // Half up for non-negative amounts; a negative subtotal (refund) mirrors it.
        let (sum, sumOverflow) = wholeTax.addingReportingOverflow((rest * rate + 5_000) / 10_000)
        let rounded = overflow || sumOverflow || sum > UInt64(Int64.max) ? Int64.max : Int64(sum)
        return Money(minorUnits: subtotal.minorUnits < 0 ? -rounded : rounded, currency: subtotal.currency)
    }

    /// The part of `gross` that is tax at this rate, when the rate is included: gross × rate / (1 + rate), half up.
    public func includedTax(in gross: Money) -> Money {
        let rate = UInt64(min(max(0, basisPoints), 1_000_000))
        let divisor = 10_000 + rate
        // Full width: gross × rate can pass 2^64 for the largest amounts; the quotient never passes gross.
        let product = gross.minorUnits.magnitude.multipliedFullWidth(by: rate)
        let (quotient, remainder) = divisor.dividingFullWidth(product)
        let rounded = Int64(quotient + (remainder * 2 >= divisor ? 1 : 0))
        return Money(minorUnits: gross.minorUnits < 0 ? -rounded : rounded, currency: gross.currency)
    }
}
