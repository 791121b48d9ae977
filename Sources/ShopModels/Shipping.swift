/// A way to ship an order, as offered on the payment sheet.
public struct ShippingMethod: Hashable, Sendable, Codable, Identifiable {
    public var id: String
    public var label: String
    public var detail: String
    public var amount: Money
    /// The subtotal from which this method ships free; nil when it never does.
    public var freeFrom: Money?

    public init(id: String, label: String, detail: String, amount: Money, freeFrom: Money? = nil) {
        self.id = id
        self.label = label
        self.detail = detail
        self.amount = amount
        self.freeFrom = freeFrom
    }

    /// What this method costs for a cart with the given subtotal.
    public func cost(forSubtotal subtotal: Money) -> Money {
        if let freeFrom, subtotal.minorUnits >= freeFrom.minorUnits { return .zero(amount.currency) }
        return amount
    }
}
