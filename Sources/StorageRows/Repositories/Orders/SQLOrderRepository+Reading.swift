import Foundation
import ShopModels
import ShopPorts

/// Reading orders back: the open ones, a customer's page, one by number, rows into orders.
extension SQLOrderRepository {
    public func unsettledOrders() async throws -> [UnsettledOrder] {
        // The statuses written out, not bound: SQLite uses the partial index `orders_open` only for the very terms it
        // was made with.
        let open = OrderStatus.allCases.filter(\.isOpen).map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let currency = currency
        return try await database.run(.read) { connection in
            try connection.decode(StoredOrderRow.self, "SELECT * FROM orders WHERE status IN (\(raw: open)) ORDER BY sequence")
                .map { $0.unsettled(fallback: currency) }
        }
    }

    public func count(customer: String?) async throws -> Int {
        try await database.run(.read) { connection in
            try connection.value(
                """
                SELECT count(*) FROM orders WHERE status IN \(raw: StoredOrderRow.shownStatuses)
                AND (CAST(\(customer) AS TEXT) IS NULL OR customer = \(customer))
                """) ?? 0
        }
    }

    /// One query for the orders and one for all their lines.
    public func orders(customer: String?, offset: Int, limit: Int) async throws -> [Order] {
        guard offset >= 0, limit > 0 else { return [] }
        return try await orders(
            """
            WHERE status IN \(raw: StoredOrderRow.shownStatuses) AND (CAST(\(customer) AS TEXT) IS NULL OR customer = \(customer))
            ORDER BY sequence DESC LIMIT \(limit) OFFSET \(offset)
            """)
    }

    public func order(number: String) async throws -> Order? {
        try await orders("WHERE number = \(number)").first
    }

    /// The orders `filter` (a WHERE, ORDER BY and LIMIT clause) selects, with their lines.
    func orders(_ filter: SQLStatement) async throws -> [Order] {
        let currency = currency
        return try await database.run(.read) { connection in
            try Self.orders(from: connection.decode(StoredOrderRow.self, "SELECT * FROM orders \(filter)"), currency: currency, on: connection)
        }
    }

    /// The order just written under `number`; its absence means the transaction did not hold.
    static func written(_ number: String, currency: Currency, on connection: any SQLConnection) throws -> Order {
        let rows = try connection.decode(StoredOrderRow.self, "SELECT * FROM orders WHERE number = \(number)")
        guard let order = try orders(from: rows, currency: currency, on: connection).first else {
            throw OrderRepositoryError.storage("order \(number) was not found right after it was written")
        }
        return order
    }

    static func orders(from records: [StoredOrderRow], currency: Currency, on connection: any SQLConnection) throws -> [Order] {
        guard !records.isEmpty else { return [] }
        let lines = try connection.decode(
            StoredOrderLine.self,
            """
            SELECT order_number, product_id, name, unit_price, quantity, variant_sku, variant_title FROM order_line
            WHERE order_number IN \(list: records.map(\.number)) ORDER BY order_number, position
            """)
        let linesByOrder = Dictionary(grouping: lines, by: \.orderNumber)
        return records.map { record in
            record.order(fallback: currency) { lineCurrency in (linesByOrder[record.number] ?? []).map { $0.cartLine(currency: lineCurrency) } }
        }
    }
}

/// A row of `order_line`; its properties are the columns' names in camel case.
struct StoredOrderLine: Decodable {
    var orderNumber: String
    var productId: String
    var name: String
    var unitPrice: Int64
    var quantity: Int
    var variantSku: String?
    var variantTitle: String?

    func cartLine(currency: Currency) -> CartLine {
        CartLine(
            productID: ProductID(productId), name: name, unitPrice: Money(minorUnits: unitPrice, currency: currency), quantity: quantity,
            variant: ChosenVariant(storedSKU: variantSku, title: variantTitle))
    }
}
