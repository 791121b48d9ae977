import Foundation
import ShopModels
import ShopPorts

/// A row of `orders` as both databases keep it; each adapter reads it its own way and builds
/// the `Order` here, so the two cannot drift apart. Decodable by the columns' names in camel case.
public struct StoredOrderRow: Decodable, Sendable {
    public var number: String
    public var idempotencyKey: String
    public var status: String
    public var placedAt: Double
    public var currency: String
    public var subtotal: Int64
    public var shipping: Int64
    public var tax: Int64
    public var paymentDescription: String
    public var shippingMethod: String
    public var shipTo: String
    public var customer: String
    public var paymentReference: String?

    /// The statuses a shopper's orders list shows, as an SQL list: `('paid', 'charging', 'unknown')`.
    public static let shownStatuses = "(" + OrderStatus.shownToTheirShopper.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// The columns in the order `init(columns:)` takes them.
    public static let columns =
        "number, idempotency_key, status, placed_at, currency, subtotal, shipping, tax, payment_description, shipping_method, ship_to, customer, payment_reference"

    public init(columns row: (String, String, String, Double, String, Int64, Int64, Int64, String, String, String, String, String?)) {
        (
            number, idempotencyKey, status, placedAt, currency, subtotal, shipping, tax, paymentDescription, shippingMethod, shipTo, customer,
            paymentReference
        ) = row
    }

    /// The totals frozen on the order, in its own currency (`fallback` when the code is unknown).
    public func totals(or fallback: Currency) -> CartTotals {
        CartTotals(stored: currency, subtotal: subtotal, shipping: shipping, tax: tax, fallback: fallback)
    }

    public func unsettled(fallback: Currency) -> UnsettledOrder {
        UnsettledOrder(
            number: number, idempotencyKey: idempotencyKey, placedAt: Date(timeIntervalSince1970: placedAt), total: totals(or: fallback).total,
            customerID: customer, status: OrderStatus(rawValue: status) ?? .unknown
        )
    }

    /// The order, with `lines` built in its own currency.
    public func order(fallback: Currency, lines: (Currency) -> [CartLine]) -> Order {
        let totals = totals(or: fallback)
        return Order(
            number: number, placedAt: Date(timeIntervalSince1970: placedAt), lines: lines(totals.total.currency), totals: totals,
            status: OrderStatus(rawValue: status) ?? .unknown, paymentDescription: paymentDescription,
            shippingMethodLabel: shippingMethod, shipTo: shipTo, customerID: customer, paymentReference: paymentReference
        )
    }
}
