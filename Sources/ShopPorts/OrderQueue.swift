import Foundation
import ShopModels

/// What the sales summary adds up for a stretch of time.
public struct SalesFigures: Hashable, Sendable {
    /// Orders placed and paid in the stretch (whatever happened to them since).
    public var orders: Int
    /// What those orders charged.
    public var revenue: Money
    /// What refunds settled in the stretch gave back, of any order.
    public var refunds: Money

    public init(orders: Int, revenue: Money, refunds: Money) {
        self.orders = orders
        self.revenue = revenue
        self.refunds = refunds
    }

    /// Revenue less refunds.
    public var net: Money { revenue - refunds }
}

/// Every customer's orders as the merchant works through them: by status, oldest first, and what they add up to.
public protocol OrderQueue: Sendable {
    /// How many orders have one of `statuses` (and a dispute, with `disputedOnly`).
    func count(statuses: [OrderStatus], disputedOnly: Bool) async throws -> Int
    /// Orders with one of `statuses` (and a dispute, with `disputedOnly`), oldest first (the one waiting longest on top).
    func orders(statuses: [OrderStatus], disputedOnly: Bool, offset: Int, limit: Int) async throws -> [Order]
    /// Orders paid and refunds settled from `start` up to, not including, `end`, in `currency`.
    func sales(from start: Date, to end: Date, currency: Currency) async throws -> SalesFigures
}
