import Foundation
import GRDB
import LiveObjects
import ShopModels
import ShopPorts
import StorageRows

/// Orders in SQLite, with the stock they take. Every change is one IMMEDIATE transaction.
public final class SQLiteOrderRepository: OrderRepository {
    let database: SQLiteDatabase
    let currency: Currency

    public init(database: SQLiteDatabase, currency: Currency) {
        self.database = database
        self.currency = currency
    }

    public func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date)
        async throws(OrderRepositoryError) -> Order
    {
        try await write { db in
            if let number = try String.fetchOne(db, sql: "SELECT number FROM orders WHERE idempotency_key = ?", arguments: [idempotencyKey]) {
                return try self.written(number, in: db)
            }
            // Reserve each line with a conditional update: it takes the stock only if it is there.
            for line in draft.lines {
                try db.execute(
                    sql: """
                        UPDATE stock SET on_hand = on_hand - ?, reserved = reserved + ?
                        WHERE product_id = ? AND on_hand >= ?
                        """, arguments: [line.quantity, line.quantity, line.stockKey.rawValue, line.quantity])
                if db.changesCount != 1 {
                    let available =
                        try Int.fetchOne(db, sql: "SELECT on_hand FROM stock WHERE product_id = ?", arguments: [line.stockKey.rawValue]) ?? 0
                    throw OrderRepositoryError.soldOut(productName: line.name, available: available)
                }
            }
            let sequence = (try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM orders") ?? 0) + 1
            let number = "SF-" + String(1_000_000 + sequence).dropFirst()
            if let discount = draft.discount {
                let held = try SQLiteDiscountCodes.hold(discount.code, order: number, customer: draft.customerID, at: placedAt, in: db) {
                    discount.refusal(
                        holding: $0, on: draft.lines, shipping: draft.totals.shipping, at: placedAt, usedInAll: $1, usedByCustomer: $2,
                        customer: draft.customerID)
                }
                if case .failure(let refusal) = held { throw OrderRepositoryError.discountRefused(refusal) }
            }
            let row = StoredOrderRow(
                placing: draft, number: number, idempotencyKey: idempotencyKey, paymentDescription: paymentDescription, placedAt: placedAt,
                currency: self.currency)
            let columns: [(column: String, value: StoredValue)] =
                [("number", .text(number)), ("sequence", .integer(Int64(sequence)))]
                + row.placedColumns(tokenID: tokenID, contact: draft.shippingContact)
            try db.execute(
                sql:
                    "INSERT INTO orders (\(columns.map(\.column).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                arguments: StatementArguments(columns.map(\.value.databaseValue)))
            for (position, line) in draft.lines.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO order_line (order_number, position, product_id, name, unit_price, quantity, variant_sku, variant_title)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        number, position, line.productID.rawValue, line.name, line.unitPrice.minorUnits, line.quantity, line.variant?.sku.rawValue,
                        line.variant?.title,
                    ])
            }
            try Self.record(
                OrderEvent(at: placedAt, actor: .shopper(draft.customerID), change: .placed(total: draft.totals.total)), of: number, in: db)
            return try self.written(number, in: db)
        }
    }

    public func finish(orderNumber: String, status: OrderStatus, failure: String?, at: Date) async throws(OrderRepositoryError) {
        try await write { db in
            guard
                let current = try String.fetchOne(db, sql: "SELECT status FROM orders WHERE number = ?", arguments: [orderNumber]).flatMap(
                    OrderStatus.init(rawValue:)),
                current.isOpen
            else { return }
            let lines = try OrderLineRecord.fetchAll(db, sql: "SELECT * FROM order_line WHERE order_number = ?", arguments: [orderNumber])
            switch status {
            case .paid:
                for line in lines {
                    try db.execute(
                        sql: "UPDATE stock SET reserved = reserved - ?, sold = sold + ? WHERE product_id = ?",
                        arguments: [line.quantity, line.quantity, line.stockKey])
                }
            case .declined, .voided:
                for line in lines {
                    try db.execute(
                        sql: "UPDATE stock SET reserved = reserved - ?, on_hand = on_hand + ? WHERE product_id = ?",
                        arguments: [line.quantity, line.quantity, line.stockKey])
                }
                try SQLiteDiscountCodes.release(order: orderNumber, at: at, in: db)
            default:
                break
            }
            try db.execute(sql: "UPDATE orders SET status = ?, failure = ? WHERE number = ?", arguments: [status.rawValue, failure, orderNumber])
            if let (actor, change) = OrderEventRecord.settlement(status, failure: failure) {
                try Self.record(OrderEvent(at: at, actor: actor, change: change), of: orderNumber, in: db)
            }
        }
    }

    public func events(orderNumber: String) async throws -> [OrderEvent] {
        try await read { db in try self.events(orderNumber, in: db) }
    }

    func events(_ orderNumber: String, in db: Database) throws -> [OrderEvent] {
        try Row.fetchAll(
            db, sql: "SELECT at, actor, kind, details FROM order_event WHERE order_number = ? ORDER BY sequence", arguments: [orderNumber]
        )
        .map { row in
            try OrderEventRecord(actor: row["actor"], kind: row["kind"], details: row["details"])
                .event(at: Date(timeIntervalSince1970: row["at"]), currency: self.currency)
        }
    }

    public func apply(_ change: OrderChange, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> Order
    {
        // IMMEDIATE: two changes to one order take turns, and the second reads what the first wrote.
        try await self.change { db in
            guard
                let status = try String.fetchOne(db, sql: "SELECT status FROM orders WHERE number = ?", arguments: [number]).flatMap(
                    OrderStatus.init(rawValue:))
            else { throw OrderChangeError.notFound(number) }
            if let pending = try self.pendingRefund(of: number, in: db) { throw OrderChangeError.refundPending(pending) }
            let next = try OrderLifecycle.next(after: try self.events(number, in: db), status: status, applying: change, expecting: expected)
            try db.execute(sql: "UPDATE orders SET status = ? WHERE number = ?", arguments: [next.status.rawValue, number])
            try Self.record(OrderEvent(at: at, actor: actor, change: change), of: number, in: db)
            return try self.written(number, in: db)
        }
    }

    /// Appends `event` to the order's history, in the transaction of the change it records.
    static func record(_ event: OrderEvent, of orderNumber: String, in db: Database) throws {
        let record = OrderEventRecord(event)
        let next = (try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM order_event WHERE order_number = ?", arguments: [orderNumber]) ?? 0) + 1
        try db.execute(
            sql: "INSERT INTO order_event (order_number, sequence, at, actor, kind, details) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [orderNumber, next, event.at.timeIntervalSince1970, record.actor, record.kind, record.details])
        if let kind = OutboxKind(event.change) {
            try SQLOutbox.enqueue(kind, of: orderNumber, eventSequence: next, at: event.at, on: GRDBConnection(db: db))
        }
    }

    public func unsettledOrders() async throws -> [UnsettledOrder] {
        // The statuses written out, not bound: SQLite uses the partial index `orders_open` only for the very terms it
        // was made with.
        let open = OrderStatus.allCases.filter(\.isOpen).map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try await read { db in
            try StoredOrderRow.fetchAll(db, sql: "SELECT * FROM orders WHERE status IN (\(open)) ORDER BY sequence")
                .map { $0.unsettled(fallback: self.currency) }
        }
    }

    public func count(customer: String?) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM orders WHERE status IN \(StoredOrderRow.shownStatuses) AND (? IS NULL OR customer = ?)",
                arguments: [customer, customer]) ?? 0
        }
    }

    /// One query for the orders and one for all their lines.
    public func orders(customer: String?, offset: Int, limit: Int) async throws -> [Order] {
        guard offset >= 0, limit > 0 else { return [] }
        return try await read { db in
            let records = try StoredOrderRow.fetchAll(
                db,
                sql: """
                    SELECT * FROM orders WHERE status IN \(StoredOrderRow.shownStatuses) AND (? IS NULL OR customer = ?)
                    ORDER BY sequence DESC LIMIT ? OFFSET ?
                    """, arguments: [customer, customer, limit, offset])
            return try self.orders(from: records, in: db)
        }
    }

    public func order(number: String) async throws -> Order? {
        try await read { db in try self.order(number: number, in: db) }
    }

    func order(number: String, in db: Database) throws -> Order? {
        let records = try StoredOrderRow.fetchAll(db, sql: "SELECT * FROM orders WHERE number = ?", arguments: [number])
        return try orders(from: records, in: db).first
    }

    /// The order just written under `number`; its absence means the transaction did not hold.
    private func written(_ number: String, in db: Database) throws -> Order {
        guard let order = try order(number: number, in: db) else {
            throw OrderRepositoryError.storage("order \(number) was not found right after it was written")
        }
        return order
    }

    func orders(from records: [StoredOrderRow], in db: Database) throws -> [Order] {
        guard !records.isEmpty else { return [] }
        let numbers = records.map(\.number)
        let lines = try OrderLineRecord.fetchAll(
            db,
            sql: "SELECT * FROM order_line WHERE order_number IN (\(databaseQuestionMarks(count: numbers.count))) ORDER BY order_number, position",
            arguments: StatementArguments(numbers)
        )
        let linesByOrder = Dictionary(grouping: lines, by: \.orderNumber)
        return records.map { record in
            record.order(fallback: currency) { lineCurrency in (linesByOrder[record.number] ?? []).map { $0.cartLine(currency: lineCurrency) } }
        }
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(OrderRepositoryError) -> T {
        do {
            return try await database.pool.write(body)
        } catch let error as OrderRepositoryError {
            throw error
        } catch {
            throw .storage(SQLiteDatabaseError.from(error, path: database.path).description)
        }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T { try await database.read(body) }
}

/// `orders` rows decoded by name (the columns' names in camel case), so a column of the wrong type is an error, not a trap.
extension StoredOrderRow: FetchableRecord {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
}

/// A row of `order_line`; its properties are the columns' names in camel case.
private struct OrderLineRecord: Decodable, FetchableRecord {
    var orderNumber: String
    var productId: String
    var name: String
    var unitPrice: Int64
    var quantity: Int
    var variantSku: String?
    var variantTitle: String?

    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase

    /// Where the line's stock is kept: its variant's SKU, or its product's id.
    var stockKey: String { variantSku ?? productId }

    func cartLine(currency: Currency) -> CartLine {
        CartLine(
            productID: ProductID(productId), name: name, unitPrice: Money(minorUnits: unitPrice, currency: currency), quantity: quantity,
            variant: ChosenVariant(storedSKU: variantSku, title: variantTitle))
    }
}

extension StoredValue {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        }
    }
}

extension SQLiteOrderRepository: LiveObject {}
