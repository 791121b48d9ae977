import Foundation
import GRDB
import StoreClients
import StoreModels

/// Orders in SQLite, with the stock they take. Every change is one IMMEDIATE transaction.
public final class SQLiteOrderStore: OrderStore {
    private let database: StoreDatabase
    private let currency: Currency

    public init(database: StoreDatabase, currency: Currency) {
        self.database = database
        self.currency = currency
    }

    /// Statuses an order can still move on from.
    private static let open: Set<OrderStatus> = [.pending, .authorizing, .charging, .unknown]

    public func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date) throws(OrderStoreError) -> Order {
        try write { db in
            if let number = try String.fetchOne(db, sql: "SELECT number FROM orders WHERE idempotency_key = ?", arguments: [idempotencyKey]) {
                return try self.order(number: number, in: db)!
            }
            // Reserve each line with a conditional update: it takes the stock only if it is there.
            for line in draft.lines {
                try db.execute(sql: """
                    UPDATE stock SET on_hand = on_hand - ?, reserved = reserved + ?
                    WHERE product_id = ? AND on_hand >= ?
                    """, arguments: [line.quantity, line.quantity, line.productID.rawValue, line.quantity])
                if db.changesCount != 1 {
                    let available = try Int.fetchOne(db, sql: "SELECT on_hand FROM stock WHERE product_id = ?", arguments: [line.productID.rawValue]) ?? 0
                    throw OrderStoreError.soldOut(productName: line.name, available: available)
                }
            }
            let sequence = (try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM orders") ?? 0) + 1
            let number = "SF-" + String(1_000_000 + sequence).dropFirst()
            let contact = draft.shippingContact
            try db.execute(sql: """
                INSERT INTO orders (number, sequence, idempotency_key, status, placed_at, currency, subtotal, shipping, tax,
                                    token_id, payment_description, shipping_method, ship_to, customer)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    number, sequence, idempotencyKey, OrderStatus.charging.rawValue, placedAt.timeIntervalSince1970,
                    currency.code, draft.totals.subtotal.minorUnits, draft.totals.shipping.minorUnits, draft.totals.tax.minorUnits,
                    tokenID, paymentDescription, draft.shippingMethod.label, "\(contact.name), \(contact.address.singleLine)",
                    draft.customerID,
                ])
            for (position, line) in draft.lines.enumerated() {
                try db.execute(sql: "INSERT INTO order_line (order_number, position, product_id, name, unit_price, quantity) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [number, position, line.productID.rawValue, line.name, line.unitPrice.minorUnits, line.quantity])
            }
            return try self.order(number: number, in: db)!
        }
    }

    public func finish(orderNumber: String, status: OrderStatus, failure: String?) throws(OrderStoreError) {
        try write { db in
            guard let current = try String.fetchOne(db, sql: "SELECT status FROM orders WHERE number = ?", arguments: [orderNumber]).flatMap(OrderStatus.init(rawValue:)),
                  Self.open.contains(current)
            else { return }
            let lines = try Row.fetchAll(db, sql: "SELECT product_id, quantity FROM order_line WHERE order_number = ?", arguments: [orderNumber])
            switch status {
            case .paid:
                for line in lines {
                    try db.execute(sql: "UPDATE stock SET reserved = reserved - ?, sold = sold + ? WHERE product_id = ?", arguments: [line["quantity"] as Int, line["quantity"] as Int, line["product_id"] as String])
                }
            case .declined, .canceled:
                for line in lines {
                    try db.execute(sql: "UPDATE stock SET reserved = reserved - ?, on_hand = on_hand + ? WHERE product_id = ?", arguments: [line["quantity"] as Int, line["quantity"] as Int, line["product_id"] as String])
                }
            default:
                break
            }
            try db.execute(sql: "UPDATE orders SET status = ?, failure = ? WHERE number = ?", arguments: [status.rawValue, failure, orderNumber])
        }
    }

    public func unsettledOrders() throws -> [UnsettledOrder] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT number, idempotency_key, placed_at FROM orders WHERE status IN ('pending', 'authorizing', 'charging', 'unknown') ORDER BY sequence")
                .map { UnsettledOrder(number: $0["number"], idempotencyKey: $0["idempotency_key"], placedAt: Date(timeIntervalSince1970: $0["placed_at"])) }
        }
    }

    public func count(customer: String?) throws -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM orders WHERE status = 'paid' AND (? IS NULL OR customer = ?)", arguments: [customer, customer]) ?? 0
        }
    }

    public func orders(customer: String?, offset: Int, limit: Int) throws -> [Order] {
        guard offset >= 0, limit > 0 else { return [] }
        return try read { db in
            try String.fetchAll(db, sql: """
                SELECT number FROM orders WHERE status = 'paid' AND (? IS NULL OR customer = ?)
                ORDER BY sequence DESC LIMIT ? OFFSET ?
                """, arguments: [customer, customer, limit, offset])
                .compactMap { try self.order(number: $0, in: db) }
        }
    }

    public func order(number: String) throws -> Order? {
        try read { db in try self.order(number: number, in: db) }
    }

    private func order(number: String, in db: Database) throws -> Order? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM orders WHERE number = ?", arguments: [number]) else { return nil }
        let currency = Currency(code: row["currency"]) ?? self.currency
        let lines = try Row.fetchAll(db, sql: "SELECT * FROM order_line WHERE order_number = ? ORDER BY position", arguments: [number]).map { line in
            CartLine(productID: ProductID(line["product_id"] as String), name: line["name"], unitPrice: Money(minorUnits: line["unit_price"], currency: currency), quantity: line["quantity"])
        }
        return Order(
            number: number, placedAt: Date(timeIntervalSince1970: row["placed_at"]), lines: lines,
            totals: CartTotals(subtotal: Money(minorUnits: row["subtotal"], currency: currency), shipping: Money(minorUnits: row["shipping"], currency: currency), tax: Money(minorUnits: row["tax"], currency: currency)),
            status: OrderStatus(rawValue: row["status"]) ?? .unknown, paymentDescription: row["payment_description"],
            shippingMethodLabel: row["shipping_method"], shipTo: row["ship_to"], customerID: row["customer"]
        )
    }

    private func write<T>(_ body: (Database) throws -> T) throws(OrderStoreError) -> T {
        do {
            return try database.pool.write(body)
        } catch let error as OrderStoreError {
            throw error
        } catch {
            throw .storage(StoreDatabaseError.from(error, path: database.path).description)
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T { try database.read(body) }
}
