import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageRows

/// The merchant's queue in SQLite.
extension SQLiteOrderRepository: OrderQueue {
    public func count(statuses: [OrderStatus], disputedOnly: Bool) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM orders WHERE \(Self.queueCondition(statuses, disputedOnly))",
                arguments: StatementArguments(statuses.map(\.rawValue))) ?? 0
        }
    }

    public func orders(statuses: [OrderStatus], disputedOnly: Bool, offset: Int, limit: Int) async throws -> [Order] {
        guard offset >= 0, limit > 0, !statuses.isEmpty else { return [] }
        return try await database.read { db in
            let records = try StoredOrderRow.fetchAll(
                db,
                sql: """
                    SELECT * FROM orders WHERE \(Self.queueCondition(statuses, disputedOnly)) ORDER BY sequence LIMIT ? OFFSET ?
                    """, arguments: StatementArguments(statuses.map(\.rawValue)) + [limit, offset])
            return try self.orders(from: records, in: db)
        }
    }

    /// The queue's WHERE clause; its arguments are the statuses' names.
    private static func queueCondition(_ statuses: [OrderStatus], _ disputedOnly: Bool) -> String {
        "status IN (\(databaseQuestionMarks(count: statuses.count)))"
            + (disputedOnly ? " AND number IN (SELECT order_number FROM order_event WHERE kind = 'disputed')" : "")
    }

    public func sales(from start: Date, to end: Date, currency: Currency) async throws -> SalesFigures {
        let charged = OrderStatus.allCases.filter(\.wasCharged).map(\.rawValue)
        let (from, to) = (start.timeIntervalSince1970, end.timeIntervalSince1970)
        return try await database.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS orders, COALESCE(SUM(\(StoredOrderRow.chargedTotalSQL)), 0) AS revenue FROM orders
                    WHERE currency = ? AND placed_at >= ? AND placed_at < ? AND status IN (\(databaseQuestionMarks(count: charged.count)))
                    """, arguments: [currency.code, from, to] + StatementArguments(charged))
            let taxes = try Row.fetchAll(
                db,
                sql: """
                    SELECT tax_jurisdiction, tax_label, SUM(tax) AS amount FROM orders
                    WHERE currency = ? AND placed_at >= ? AND placed_at < ? AND status IN (\(databaseQuestionMarks(count: charged.count))) AND tax <> 0
                    GROUP BY tax_jurisdiction, tax_label ORDER BY tax_jurisdiction, tax_label
                    """, arguments: [currency.code, from, to] + StatementArguments(charged)
            ).map {
                JurisdictionTax(
                    jurisdiction: $0["tax_jurisdiction"], label: $0["tax_label"], amount: Money(minorUnits: $0["amount"], currency: currency))
            }
            let refunds =
                try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(SUM(amount), 0) FROM refund WHERE state = 'refunded' AND currency = ? AND settled_at >= ? AND settled_at < ?
                        """, arguments: [currency.code, from, to]) ?? 0
            return SalesFigures(
                orders: row?["orders"] ?? 0, revenue: Money(minorUnits: row?["revenue"] ?? 0, currency: currency),
                refunds: Money(minorUnits: refunds, currency: currency), taxes: taxes
            )
        }
    }
}
