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
        let (product, overflow) = subtotal.minorUnits.multipliedReportingOverflow(by: Int64(basisPoints))
        precondition(!overflow, "tax on \(subtotal) overflows")
        // Half up for non-negative amounts; a negative subtotal (refund) mirrors it.
        let rounded = product >= 0 ? (product + 5_000) / 10_000 : -((-product + 5_000) / 10_000)
        return Money(minorUnits: rounded, currency: subtotal.currency)
    }
}
