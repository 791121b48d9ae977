import Foundation
import ShopModels
import ShopPorts

/// A row of `refund` (with its order's charge key) as both databases keep it, decoded by the columns' names in camel
/// case; the `FiledRefund` is built here.
public struct StoredRefundRow: Decodable, Sendable {
    public var id: String
    public var orderNumber: String
    public var chargeKey: String
    public var kind: String
    public var amount: Int64
    public var currency: String
    public var reason: String
    public var restock: String
    public var actor: String
    public var filedAt: Double
    public var state: String
    public var providerReference: String?
    public var failure: String?

    /// The columns to select, `refund` joined with `orders`, in either database.
    public static let columns = """
        refund.id AS id, refund.order_number AS order_number, orders.idempotency_key AS charge_key, refund.kind AS kind,
        refund.amount AS amount, refund.currency AS currency, refund.reason AS reason, refund.restock AS restock,
        refund.actor AS actor, refund.filed_at AS filed_at, refund.state AS state,
        refund.provider_reference AS provider_reference, refund.failure AS failure
        FROM refund JOIN orders ON orders.number = refund.order_number
        """

    public func refund(fallback: Currency) -> FiledRefund {
        let money = Money(minorUnits: amount, currency: Currency(code: currency) ?? fallback)
        let items = (try? JSONDecoder().decode([Restock].self, from: Data(restock.utf8))) ?? []
        let state: RefundState =
            switch state {
            case "refunded": .refunded(reference: providerReference ?? "")
            case "declined": .declined(reason: failure ?? "")
            default: .pending
            }
        return FiledRefund(
            id: id, orderNumber: orderNumber, chargeKey: chargeKey,
            ask: RefundAsk(kind: RefundAsk.Kind(rawValue: kind) ?? .refund, amount: money, restock: items, reason: reason),
            actor: OrderActor(recordText: actor), filedAt: Date(timeIntervalSince1970: filedAt), state: state
        )
    }

    /// The restock as the `restock` column stores it: a JSON array of `{"productID", "quantity"}`.
    public static func restockText(_ items: [Restock]) -> String {
        let data = (try? JSONEncoder().encode(items)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The shop's id for the refund numbered `sequence`.
    public static func id(sequence: Int) -> String { "RF-" + String(1_000_000 + sequence).dropFirst() }
}
