import Foundation
import ShopModels
import ShopPorts

/// The merchant's queue, and the sales a period made.
extension SQLOrderRepository: OrderQueue {
    public func count(statuses: [OrderStatus], disputedOnly: Bool) async throws -> Int {
        try await database.run(.read) { connection in
            try connection.value("SELECT count(*) FROM orders WHERE \(Self.queueCondition(statuses, disputedOnly))") ?? 0
        }
    }

    public func orders(statuses: [OrderStatus], disputedOnly: Bool, offset: Int, limit: Int) async throws -> [Order] {
        guard offset >= 0, limit > 0, !statuses.isEmpty else { return [] }
        return try await orders("WHERE \(Self.queueCondition(statuses, disputedOnly)) ORDER BY sequence LIMIT \(limit) OFFSET \(offset)")
    }

    private static func queueCondition(_ statuses: [OrderStatus], _ disputedOnly: Bool) -> SQLStatement {
        """
        status IN \(list: statuses.map(\.rawValue))\
        \(raw: disputedOnly ? " AND number IN (SELECT order_number FROM order_event WHERE kind = 'disputed')" : "")
        """
    }

    public func sales(from start: Date, to end: Date, currency: Currency) async throws -> SalesFigures {
        let charged = OrderStatus.allCases.filter(\.wasCharged).map(\.rawValue)
        let period: SQLStatement = "currency = \(currency.code) AND placed_at >= \(start) AND placed_at < \(end) AND status IN \(list: charged)"
        return try await database.run(.read) { connection in
            let placed = try connection.row(
                """
                SELECT count(*) AS orders, coalesce(sum(\(raw: StoredOrderRow.chargedTotalSQL)), 0) AS revenue,
                    coalesce(sum(base_total), 0) AS base_revenue, count(base_total) AS converted
                FROM orders WHERE \(period)
                """)
            let taxes = try connection.rows(
                """
                SELECT tax_jurisdiction, tax_label, sum(tax) AS amount FROM orders WHERE \(period) AND tax <> 0
                GROUP BY tax_jurisdiction, tax_label ORDER BY tax_jurisdiction, tax_label
                """
            ).map {
                JurisdictionTax(
                    jurisdiction: try $0["tax_jurisdiction"], label: try $0["tax_label"],
                    amount: Money(minorUnits: try $0["amount"], currency: currency))
            }
            let refunds: Int64 =
                try connection.value(
                    """
                    SELECT coalesce(sum(amount), 0) FROM refund
                    WHERE state = 'refunded' AND currency = \(currency.code) AND settled_at >= \(start) AND settled_at < \(end)
                    """) ?? 0
            var figures = SalesFigures(
                orders: try placed?["orders"] ?? 0, revenue: Money(minorUnits: try placed?["revenue"] ?? 0, currency: currency),
                refunds: Money(minorUnits: refunds, currency: currency), taxes: taxes)
            if currency != self.currency {
                figures.baseRevenue = Money(minorUnits: try placed?["base_revenue"] ?? 0, currency: self.currency)
            }
            return figures
        }
    }

    public func currencies(from start: Date, to end: Date) async throws -> [Currency] {
        let charged = OrderStatus.allCases.filter(\.wasCharged).map(\.rawValue)
        return try await database.run(.read) { connection in
            try connection.rows(
                "SELECT DISTINCT currency FROM orders WHERE placed_at >= \(start) AND placed_at < \(end) AND status IN \(list: charged) ORDER BY currency"
            ).compactMap { Currency(code: try $0["currency"]) }
        }
    }
}
