import Foundation
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// Reading orders back: the open ones, a customer's page, one by number, rows into orders.
extension PostgresOrderRepository {
    public func unsettledOrders() async throws -> [UnsettledOrder] {
        let open = OrderStatus.allCases.filter(\.isOpen).map(\.rawValue)
        let currency = currency
        return try await database.read { connection in
            try await Self.records(
                connection.query(
                    "SELECT * FROM orders WHERE status = ANY(\(open)) ORDER BY sequence",
                    logger: PostgresDatabase.quiet)
            )
            .map { $0.unsettled(fallback: currency) }
        }
    }

    public func count(customer: String?) async throws -> Int {
        try await database.read { connection in
            try await connection.query(
                "SELECT count(*) FROM orders WHERE status IN \(unescaped: StoredOrderRow.shownStatuses) AND (\(customer)::text IS NULL OR customer = \(customer))",
                logger: PostgresDatabase.quiet
            )
            .collect().first?.decode(Int.self) ?? 0
        }
    }

    /// One query for the orders and one for all their lines.
    public func orders(customer: String?, offset: Int, limit: Int) async throws -> [Order] {
        guard offset >= 0, limit > 0 else { return [] }
        let currency = currency
        return try await database.read { connection in
            let records = try await Self.records(
                connection.query(
                    """
                    SELECT * FROM orders WHERE status IN \(unescaped: StoredOrderRow.shownStatuses) AND (\(customer)::text IS NULL OR customer = \(customer))
                    ORDER BY sequence DESC LIMIT \(limit) OFFSET \(offset)
                    """, logger: PostgresDatabase.quiet))
            return try await Self.orders(from: records, currency: currency, on: connection)
        }
    }

    public func order(number: String) async throws -> Order? {
        let currency = currency
        return try await database.read { connection in try await Self.order(number: number, currency: currency, on: connection) }
    }

    private static func order(number: String, currency: Currency, on connection: PostgresConnection) async throws -> Order? {
        let records = try await records(
            connection.query("SELECT * FROM orders WHERE number = \(number)", logger: PostgresDatabase.quiet))
        return try await orders(from: records, currency: currency, on: connection).first
    }

    /// The order just written under `number`; its absence means the transaction did not hold.
    static func written(_ number: String, currency: Currency, on connection: PostgresConnection) async throws -> Order {
        guard let order = try await order(number: number, currency: currency, on: connection) else {
            throw OrderRepositoryError.storage("order \(number) was not found right after it was written")
        }
        return order
    }

    static func records(_ rows: PostgresRowSequence) async throws -> [StoredOrderRow] {
        try await PostgresRowDecoder.decode(StoredOrderRow.self, from: rows)
    }

    static func orders(from records: [StoredOrderRow], currency: Currency, on connection: PostgresConnection) async throws -> [Order] {
        guard !records.isEmpty else { return [] }
        var linesByOrder: [String: [(productID: String, name: String, unitPrice: Int64, quantity: Int, variant: ChosenVariant?)]] = [:]
        let rows = try await connection.query(
            """
            SELECT order_number, product_id, name, unit_price, quantity, variant_sku, variant_title FROM order_line
            WHERE order_number = ANY(\(records.map(\.number))) ORDER BY order_number, position
            """, logger: PostgresDatabase.quiet)
        for try await (number, productID, name, unitPrice, quantity, sku, title) in rows.decode(
            (String, String, String, Int64, Int, String?, String?).self)
        {
            linesByOrder[number, default: []].append((productID, name, unitPrice, quantity, ChosenVariant(storedSKU: sku, title: title)))
        }
        return records.map { record in
            record.order(fallback: currency) { lineCurrency in
                (linesByOrder[record.number] ?? []).map {
                    CartLine(
                        productID: ProductID($0.productID), name: $0.name, unitPrice: Money(minorUnits: $0.unitPrice, currency: lineCurrency),
                        quantity: $0.quantity, variant: $0.variant)
                }
            }
        }
    }
}
