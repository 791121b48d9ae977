import Foundation
import ShopModels

/// A period's orders and refunds as a bookkeeper reads them, page by page: each page is a read of its own, so an
/// export of a year of orders never holds the shop's writers, on either database.
///
/// Order of calls: `orders(in:after: 0, …)`, then again after each page's `last`, until a page comes back short; the
/// same for `refunds`.
public protocol OrderExports: Sendable {
    /// Orders charged (whatever became of them since) and placed in `period`, in the order they were placed, after the
    /// one at `after` (0 before the first), at most `limit`.
    func orders(in period: ExportPeriod, after: Int64, limit: Int) async throws -> ExportPage<Order>
    /// Refunds that went through, settled in `period`, oldest first, after the one at `after`, at most `limit`.
    func refunds(in period: ExportPeriod, after: Int64, limit: Int) async throws -> ExportPage<SettledRefund>
}

/// From the start of one UTC day up to, not including, the start of another.
public struct ExportPeriod: Hashable, Sendable {
    public var start: Date
    public var end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }
}

/// One page of an export and where the next starts.
public struct ExportPage<Item: Sendable>: Sendable {
    public var items: [Item]
    /// The position of the page's last item, for the next page's `after`; nil for an empty page.
    public var last: Int64?

    public init(items: [Item], last: Int64?) {
        self.items = items
        self.last = last
    }
}

/// A refund that went through, with what of its order a tax report needs.
public struct SettledRefund: Hashable, Sendable {
    /// `RF-000001`.
    public var id: String
    public var orderNumber: String
    public var kind: RefundAsk.Kind
    public var amount: Money
    public var reason: String
    /// Who made it: `merchant:…`, `shopper:…`, `stripe`.
    public var actor: String
    public var settledAt: Date
    /// The order's tax and total, and the rule, label and jurisdiction it was taxed under.
    public var orderTax: Money
    public var orderTotal: Money
    public var tax: TaxPolicy

    public init(
        id: String, orderNumber: String, kind: RefundAsk.Kind, amount: Money, reason: String, actor: String, settledAt: Date, orderTax: Money,
        orderTotal: Money, tax: TaxPolicy
    ) {
        self.id = id
        self.orderNumber = orderNumber
        self.kind = kind
        self.amount = amount
        self.reason = reason
        self.actor = actor
        self.settledAt = settledAt
        self.orderTax = orderTax
        self.orderTotal = orderTotal
        self.tax = tax
    }

    /// The part of the refund that gives back tax: in proportion to the order's total, as refunds give it back, half up.
    public var taxPart: Money {
        guard orderTotal.minorUnits > 0 else { return .zero(amount.currency) }
        let share =
            (Int128(amount.minorUnits) * Int128(orderTax.minorUnits) * 2 + Int128(orderTotal.minorUnits)) / (Int128(orderTotal.minorUnits) * 2)
        return Money(minorUnits: Int64(min(share, Int128(orderTax.minorUnits))), currency: amount.currency)
    }
}
