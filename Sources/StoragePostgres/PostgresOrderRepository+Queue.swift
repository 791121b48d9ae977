import Foundation
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// The merchant's queue in PostgreSQL.
extension PostgresOrderRepository: OrderQueue {
    public func count(statuses: [OrderStatus], disputedOnly: Bool) async throws -> Int {
        let names = statuses.map(\.rawValue)
        return try await database.read { connection in
            try await connection.query(
                """
                SELECT count(*) FROM orders WHERE status = ANY(\(names))
                AND (NOT \(disputedOnly) OR number IN (SELECT order_number FROM order_event WHERE kind = 'disputed'))
                """, logger: PostgresDatabase.quiet
            ).collect().first?.decode(Int.self) ?? 0
        }
    }

    public func orders(statuses: [OrderStatus], disputedOnly: Bool, offset: Int, limit: Int) async throws -> [Order] {
        guard offset >= 0, limit > 0, !statuses.isEmpty else { return [] }
        let (names, currency) = (statuses.map(\.rawValue), currency)
        return try await database.read { connection in
            let records = try await Self.records(
                connection.query(
                    """
                    SELECT * FROM orders WHERE status = ANY(\(names))
                    AND (NOT \(disputedOnly) OR number IN (SELECT order_number FROM order_event WHERE kind = 'disputed'))
                    ORDER BY sequence LIMIT \(limit) OFFSET \(offset)
                    """, logger: PostgresDatabase.quiet))
            return try await Self.orders(from: records, currency: currency, on: connection)
        }
    }

    public func sales(from start: Date, to end: Date, currency: Currency) async throws -> SalesFigures {
        let charged = OrderStatus.allCases.filter(\.wasCharged).map(\.rawValue)
        let (from, to, code) = (start.timeIntervalSince1970, end.timeIntervalSince1970, currency.code)
        return try await database.read { connection in
            var figures = SalesFigures(orders: 0, revenue: .zero(currency), refunds: .zero(currency))
            let placed = try await connection.query(
                """
                SELECT count(*)::bigint, coalesce(sum(\(unescaped: StoredOrderRow.chargedTotalSQL)), 0)::bigint FROM orders
                WHERE currency = \(code) AND placed_at >= \(from) AND placed_at < \(to) AND status = ANY(\(charged))
                """, logger: PostgresDatabase.quiet)
            for try await (orders, revenue) in placed.decode((Int64, Int64).self) {
                figures.orders = Int(orders)
                figures.revenue = Money(minorUnits: revenue, currency: currency)
            }
            let taxes = try await connection.query(
                """
                SELECT tax_jurisdiction, tax_label, sum(tax)::bigint FROM orders
                WHERE currency = \(code) AND placed_at >= \(from) AND placed_at < \(to) AND status = ANY(\(charged)) AND tax <> 0
                GROUP BY tax_jurisdiction, tax_label ORDER BY tax_jurisdiction, tax_label
                """, logger: PostgresDatabase.quiet)
            for try await (jurisdiction, label, amount) in taxes.decode((String, String, Int64).self) {
                figures.taxes.append(JurisdictionTax(jurisdiction: jurisdiction, label: label, amount: Money(minorUnits: amount, currency: currency)))
            }
            let refunded = try await connection.query(
                """
                SELECT coalesce(sum(amount), 0)::bigint FROM refund WHERE state = 'refunded' AND currency = \(code) AND settled_at >= \(from) AND settled_at < \(to)
                """, logger: PostgresDatabase.quiet)
            for try await amount in refunded.decode(Int64.self) { figures.refunds = Money(minorUnits: amount, currency: currency) }
            return figures
        }
    }
}
