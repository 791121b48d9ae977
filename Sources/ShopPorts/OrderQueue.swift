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
    /// The tax those orders were charged, by jurisdiction and label, in the jurisdictions' order.
    public var taxes: [JurisdictionTax]
    /// For a market's currency: what those orders charged in the shop's own currency, at the rates each was sold at.
    public var baseRevenue: Money?

    public init(orders: Int, revenue: Money, refunds: Money, taxes: [JurisdictionTax] = []) {
        self.orders = orders
        self.revenue = revenue
        self.refunds = refunds
        self.taxes = taxes
    }

    /// Revenue less refunds.
    public var net: Money { revenue - refunds }
}

/// The tax charged in one jurisdiction ("US-TX", "DE"; empty for orders from before it was kept) under one label.
public struct JurisdictionTax: Hashable, Sendable {
    public var jurisdiction: String
    public var label: String
    public var amount: Money

    public init(jurisdiction: String, label: String, amount: Money) {
        self.jurisdiction = jurisdiction
        self.label = label
        self.amount = amount
    }
}

/// Every customer's orders as the merchant works through them: by status, oldest first, and what they add up to.
public protocol OrderQueue: Sendable {
    /// How many orders have one of `statuses` (and a dispute, with `disputedOnly`).
    func count(statuses: [OrderStatus], disputedOnly: Bool) async throws -> Int
    /// Orders with one of `statuses` (and a dispute, with `disputedOnly`), oldest first (the one waiting longest on top).
    func orders(statuses: [OrderStatus], disputedOnly: Bool, offset: Int, limit: Int) async throws -> [Order]
    /// Orders paid and refunds settled from `start` up to, not including, `end`, in `currency`.
    func sales(from start: Date, to end: Date, currency: Currency) async throws -> SalesFigures
    /// The currencies orders were paid in from `start` up to `end`, by code.
    func currencies(from start: Date, to end: Date) async throws -> [Currency]
}
