/// Sales tax as a rate in basis points (1/100 of a percent), applied to the subtotal of goods.
///
/// Rounding rule: tax is computed once on the whole subtotal (not per line) and rounded half up
/// to the nearest minor unit, so $0.005 becomes $0.01 and the total always equals the shown parts.
/// Shipping is not taxed.
public struct TaxPolicy: Hashable, Sendable, Codable {
    public var label: String
    public var basisPoints: Int

    public init(label: String = "Tax", basisPoints: Int) {
        self.label = label
        self.basisPoints = basisPoints
    }

    public static let none = TaxPolicy(basisPoints: 0)

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
}
