import Foundation
import ShopModels
import ShopPorts
import StorefrontUI

/// How the order commands print orders: the list as a table or JSON, one order with its history and refunds.
public enum OrderReport {
    /// The version of the `--json` documents; raised when a field changes meaning or goes away (docs/orders-json.md).
    public static let jsonVersion = 1

    public static func table(_ orders: [Order]) -> String {
        guard !orders.isEmpty else { return "No orders yet." }
        let header = ["Order", "Placed (UTC)", "Items", "Status", "Total", "Customer"]
        let rows = orders.map { order in
            [
                order.number, Layout.timestamp(order.placedAt), String(order.itemCount), order.status.displayName, order.totals.total.formatted,
                order.customerLabel.isEmpty ? "-" : order.customerLabel,
            ]
        }
        return TextTable.render(header: header, rows: rows, rightAligned: [2, 4])
    }

    /// `{"version": 1, "orders": [...]}`, each order as docs/orders-json.md lists its fields.
    public static func json(_ orders: [Order]) throws -> String {
        let document: [String: Any] = ["version": jsonVersion, "orders": orders.map(object)]
        return try jsonText(document)
    }

    /// One order as the JSON documents show it (docs/orders-json.md).
    public static func object(_ order: Order) -> [String: Any] {
        [
            "number": order.number,
            "placedAt": UTCTime(order.placedAt).iso8601,
            "status": order.status.rawValue,
            "currency": order.totals.total.currency.code,
            "subtotal": order.totals.subtotal.minorUnits,
            "shipping": order.totals.shipping.minorUnits,
            "discount": order.discount.map { discount in
                [
                    "code": discount.code, "goods": discount.goods.minorUnits, "shipping": discount.shipping.minorUnits,
                    "total": discount.total.minorUnits,
                ]
                    as Any
            } ?? NSNull(),
            "tax": order.totals.tax.minorUnits,
            "taxDetails": [
                "rule": order.taxCharged.rule.rawValue, "label": order.taxCharged.label, "basisPoints": order.taxCharged.basisPoints,
                "jurisdiction": order.taxCharged.jurisdiction,
            ] as [String: Any],
            "total": order.totals.total.minorUnits,
            // Sold in a market's currency: the rate it was sold at and the total in the shop's own currency.
            "exchange": order.exchange.map { ["rate": $0.rate, "ratesDay": $0.day, "baseTotal": $0.baseTotal] as Any } ?? NSNull(),
            "payment": order.paymentDescription,
            "paymentReference": order.paymentReference.map { $0 as Any } ?? NSNull(),
            "shippingMethod": order.shippingMethodLabel,
            "shippingMethodId": order.shippingMethodID,
            "shipTo": order.shipTo,
            "customer": order.customerID,
            "email": order.email.map { $0 as Any } ?? NSNull(),
            "language": order.language.map { $0 as Any } ?? NSNull(),
            "renewal": order.isRenewal,
            "lines": order.lines.map { line in
                [
                    "productId": line.productID.rawValue, "name": line.name, "unitPrice": line.unitPrice.minorUnits, "quantity": line.quantity,
                    "variant": line.variant.map { ["sku": $0.sku.rawValue, "title": $0.title] as Any } ?? NSNull(),
                    "discount": order.discount?.share(of: line.stockKey).minorUnits ?? 0, "paid": order.paid(for: line).minorUnits,
                ] as [String: Any]
            },
        ]
    }

    /// `{"version": 1, "order": {...fields of orders --json, "refunded", "events": [...], "refunds": [...]}}`.
    /// One order's document (docs/orders-json.md).
    public static func json(_ order: Order, events: [OrderEvent], refunds: [FiledRefund]) throws -> String {
        var object = Self.object(order)
        object["events"] = events.map { event -> [String: Any] in
            let record = OrderEventRecord(event)
            let details = (try? JSONSerialization.jsonObject(with: Data(record.details.utf8))) ?? [:]
            return ["at": UTCTime(event.at).iso8601, "actor": record.actor, "kind": record.kind, "details": details]
        }
        object["refunded"] = (try? OrderLifecycle.rebuilt(from: events))?.refunded.minorUnits ?? 0
        object["refunds"] = refunds.map { refund -> [String: Any] in
            var fields: [String: Any] = [
                "id": refund.id, "kind": refund.ask.kind.rawValue, "amount": refund.ask.amount.minorUnits,
                "currency": refund.ask.amount.currency.code,
                "reason": refund.ask.reason, "state": refund.state.name, "actor": refund.actor.recordText, "filedAt": UTCTime(refund.filedAt).iso8601,
                "restock": refund.ask.restock.map { ["productId": $0.productID.rawValue, "quantity": $0.quantity] },
            ]
            switch refund.state {
            case .refunded(let reference): fields["providerReference"] = reference
            case .declined(let reason): fields["failure"] = reason
            case .pending: break
            }
            return fields
        }
        let document: [String: Any] = ["version": jsonVersion, "order": object]
        return try jsonText(document)
    }

    /// One order, its lines, its history and its refunds, as text.
    public static func text(_ order: Order, events: [OrderEvent], refunds: [FiledRefund]) -> String {
        var lines = ["\(order.number)  \(order.status.displayName)  \(order.totals.total.formatted)  \(order.customerID)"]
        lines += order.lines.map { "  \($0.quantity) × \($0.name)  \(($0.unitPrice * $0.quantity).formatted)" }
        lines += events.map { event in
            let record = OrderEventRecord(event)
            return "  \(Layout.timestamp(event.at))  \(record.kind)  by \(record.actor)\(record.details == "{}" ? "" : "  \(record.details)")"
        }
        lines += refunds.map { refund in
            let state =
                switch refund.state {
                case .pending: "pending: waiting for the payment provider"
                case .refunded(let reference): "refunded (\(reference))"
                case .declined(let reason): "declined: \(reason)"
                }
            return "  \(refund.id)  \(refund.ask.kind.rawValue) of \(refund.ask.amount.formatted)  \(state)"
        }
        return lines.joined(separator: "\n")
    }
}
