import Foundation
import ShopModels
import ShopPorts

/// A period's orders and refunds, a page a read: `sequence` orders both, so a page starts where the last one ended
/// whatever is placed meanwhile, and no read lasts longer than one page's.
extension SQLOrderRepository: OrderExports {
    public func orders(in period: ExportPeriod, after: Int64, limit: Int) async throws -> ExportPage<Order> {
        guard limit > 0 else { return ExportPage(items: [], last: nil) }
        let charged = OrderStatus.allCases.filter(\.wasCharged).map(\.rawValue)
        let currency = currency
        return try await database.run(.read) { connection in
            let rows = try connection.decode(
                StoredOrderRow.self,
                """
                SELECT * FROM orders WHERE sequence > \(after) AND placed_at >= \(period.start) AND placed_at < \(period.end)
                AND status IN \(list: charged) ORDER BY sequence LIMIT \(limit)
                """)
            return ExportPage(items: try Self.orders(from: rows, currency: currency, on: connection), last: rows.last?.sequence)
        }
    }

    public func refunds(in period: ExportPeriod, after: Int64, limit: Int) async throws -> ExportPage<SettledRefund> {
        guard limit > 0 else { return ExportPage(items: [], last: nil) }
        let fallback = currency
        return try await database.run(.read) { connection in
            var last: Int64?
            let refunds = try connection.rows(
                """
                SELECT refund.sequence AS sequence, refund.id AS id, refund.order_number AS order_number, refund.kind AS kind,
                    refund.amount AS amount, refund.currency AS currency, refund.reason AS reason, refund.actor AS actor,
                    refund.settled_at AS settled_at, orders.tax AS order_tax, orders.subtotal AS subtotal, orders.shipping AS shipping,
                    orders.discount_goods AS discount_goods, orders.discount_shipping AS discount_shipping, orders.tax_rule AS tax_rule,
                    orders.tax_label AS tax_label, orders.tax_rate AS tax_rate, orders.tax_jurisdiction AS tax_jurisdiction
                FROM refund JOIN orders ON orders.number = refund.order_number
                WHERE refund.sequence > \(after) AND refund.state = 'refunded' AND refund.settled_at >= \(period.start)
                AND refund.settled_at < \(period.end)
                ORDER BY refund.sequence LIMIT \(limit)
                """
            ).map { row -> SettledRefund in
                last = try row["sequence"]
                let currency = Currency(code: try row["currency"]) ?? fallback
                let tax = TaxPolicy(
                    label: try row["tax_label"], basisPoints: try row["tax_rate"],
                    rule: TaxPolicy.Rule(rawValue: try row["tax_rule"]) ?? .added, jurisdiction: try row["tax_jurisdiction"])
                let orderTax = Money(minorUnits: try row["order_tax"], currency: currency)
                // What the order charged: tax included in prices is already in the goods and shipping.
                let goods: Int64 = try row["subtotal"] + row["shipping"] - row["discount_goods"] - row["discount_shipping"]
                let total = Money(minorUnits: goods + (tax.isIncluded ? 0 : orderTax.minorUnits), currency: currency)
                return SettledRefund(
                    id: try row["id"], orderNumber: try row["order_number"], kind: RefundAsk.Kind(rawValue: try row["kind"]) ?? .refund,
                    amount: Money(minorUnits: try row["amount"], currency: currency), reason: try row["reason"], actor: try row["actor"],
                    settledAt: Date(timeIntervalSince1970: try row["settled_at"]), orderTax: orderTax, orderTotal: total, tax: tax)
            }
            return ExportPage(items: refunds, last: last)
        }
    }
}
