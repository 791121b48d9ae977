import Foundation
import PostgresNIO
import ShopModels
import ShopPorts

/// Orders in PostgreSQL, with the stock they take.
///
/// Isolation: READ COMMITTED. Stock is reserved by `UPDATE … WHERE on_hand >= quantity`: a buyer
/// who finds the row locked waits, then PostgreSQL checks the condition again against the row the
/// other buyer committed, so two buyers can never both take the last unit. Rows are locked in
/// product-id order so two carts never wait on each other; a deadlock the server still breaks is
/// retried whole. An order being finished is locked (`FOR UPDATE`), so a session and a settlement
/// finishing it at once settle its stock once.
public final class PostgresOrderRepository: OrderRepository {
    let database: PostgresDatabase
    let currency: Currency

    public init(database: PostgresDatabase, currency: Currency) {
        self.database = database
        self.currency = currency
    }

    public func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date) async throws(OrderRepositoryError) -> Order {
        let currency = currency
        do {
            return try await database.transaction { connection in
                if let number = try await connection.query("SELECT number FROM orders WHERE idempotency_key = \(idempotencyKey)", logger: PostgresDatabase.quiet)
                    .collect().first?.decode(String.self) {
                    return try await Self.written(number, currency: currency, on: connection)
                }
                for line in draft.lines.sorted(by: { $0.productID.rawValue < $1.productID.rawValue }) {
                    let taken = try await connection.query("""
                        UPDATE stock SET on_hand = on_hand - \(line.quantity), reserved = reserved + \(line.quantity)
                        WHERE product_id = \(line.productID.rawValue) AND on_hand >= \(line.quantity)
                        RETURNING on_hand
                        """, logger: PostgresDatabase.quiet).collect()
                    if taken.isEmpty {
                        let available = try await connection.query("SELECT on_hand FROM stock WHERE product_id = \(line.productID.rawValue)", logger: PostgresDatabase.quiet)
                            .collect().first?.decode(Int.self) ?? 0
                        throw OrderRepositoryError.soldOut(productName: line.name, available: available)
                    }
                }
                let sequence = try await connection.query("SELECT nextval('order_sequence')", logger: PostgresDatabase.quiet).collect().first?.decode(Int.self) ?? 0
                let number = "SF-" + String(1_000_000 + sequence).dropFirst()
                let totals = draft.totals
                try await connection.query("""
                    INSERT INTO orders (number, sequence, idempotency_key, status, placed_at, currency, subtotal, shipping, tax,
                                        token_id, payment_description, shipping_method, ship_to, customer, email, email_name)
                    VALUES (\(number), \(sequence), \(idempotencyKey), \(OrderStatus.charging.rawValue), \(placedAt.timeIntervalSince1970),
                            \(currency.code), \(totals.subtotal.minorUnits), \(totals.shipping.minorUnits), \(totals.tax.minorUnits),
                            \(tokenID), \(paymentDescription), \(draft.shippingMethod.label), \(draft.shippingContact.shipToLine), \(draft.customerID),
                            \(draft.shippingContact.email.isEmpty ? nil : draft.shippingContact.email), \(draft.shippingContact.name))
                    """, logger: PostgresDatabase.quiet)
                let lines = draft.lines
                try await connection.query("""
                    INSERT INTO order_line (order_number, position, product_id, name, unit_price, quantity)
                    SELECT \(number), position, product_id, name, unit_price, quantity
                    FROM unnest(\(Array(lines.indices))::int8[], \(lines.map(\.productID.rawValue))::text[], \(lines.map(\.name))::text[],
                                \(lines.map(\.unitPrice.minorUnits))::int8[], \(lines.map(\.quantity))::int8[])
                         AS t (position, product_id, name, unit_price, quantity)
                    """, logger: PostgresDatabase.quiet)
                try await Self.record(OrderEvent(at: placedAt, actor: .shopper(draft.customerID), change: .placed(total: totals.total)), of: number, on: connection)
                return try await Self.written(number, currency: currency, on: connection)
            }
        } catch let error as OrderRepositoryError {
            throw error
        } catch PostgresDatabaseError.server(state: "23505", _) {
            // Another front end began an order under this key at the same moment and committed first.
            return try await existing(idempotencyKey: idempotencyKey)
        } catch let error as PostgresDatabaseError {
            throw .storage(error.storageError.message)
        } catch {
            throw .storage("\(error)")
        }
    }

    private func existing(idempotencyKey: String) async throws(OrderRepositoryError) -> Order {
        let currency = currency
        do {
            return try await database.read { connection in
                guard let number = try await connection.query("SELECT number FROM orders WHERE idempotency_key = \(idempotencyKey)", logger: PostgresDatabase.quiet)
                    .collect().first?.decode(String.self)
                else { throw OrderRepositoryError.storage("no order under this key after a conflict on it") }
                return try await Self.written(number, currency: currency, on: connection)
            }
        } catch let error as OrderRepositoryError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    public func finish(orderNumber: String, status: OrderStatus, failure: String?, at: Date) async throws(OrderRepositoryError) {
        do {
            try await database.write { connection in
                guard let written = try await connection.query("SELECT status FROM orders WHERE number = \(orderNumber) FOR UPDATE", logger: PostgresDatabase.quiet)
                    .collect().first?.decode(String.self),
                    OrderStatus(rawValue: written)?.isOpen == true
                else { return }
                let settle: String? = switch status {
                case .paid: "reserved = reserved - l.quantity, sold = sold + l.quantity"
                case .declined, .voided: "reserved = reserved - l.quantity, on_hand = on_hand + l.quantity"
                default: nil
                }
                if let settle {
                    // One statement for every line; lines of one product are summed first so each stock row changes once.
                    try await connection.query("""
                        UPDATE stock SET \(unescaped: settle)
                        FROM (SELECT product_id, sum(quantity)::int AS quantity FROM order_line WHERE order_number = \(orderNumber) GROUP BY product_id) AS l
                        WHERE stock.product_id = l.product_id
                        """, logger: PostgresDatabase.quiet)
                }
                try await connection.query("UPDATE orders SET status = \(status.rawValue), failure = \(failure) WHERE number = \(orderNumber)", logger: PostgresDatabase.quiet)
                if let (actor, change) = OrderEventRecord.settlement(status, failure: failure) {
                    try await Self.record(OrderEvent(at: at, actor: actor, change: change), of: orderNumber, on: connection)
                }
            }
        } catch {
            throw .storage("\(error)")
        }
    }

    public func events(orderNumber: String) async throws -> [OrderEvent] {
        let currency = currency
        return try await database.read { connection in try await Self.events(orderNumber, currency: currency, on: connection) }
    }

    static func events(_ orderNumber: String, currency: Currency, on connection: PostgresConnection) async throws -> [OrderEvent] {
        var events: [OrderEvent] = []
        let rows = try await connection.query(
            "SELECT at, actor, kind, details FROM order_event WHERE order_number = \(orderNumber) ORDER BY sequence", logger: PostgresDatabase.quiet
        )
        for try await (at, actor, kind, details) in rows.decode((Double, String, String, String).self) {
            events.append(try OrderEventRecord(actor: actor, kind: kind, details: details).event(at: Date(timeIntervalSince1970: at), currency: currency))
        }
        return events
    }

    public func apply(_ change: OrderChange, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?) async throws(OrderChangeError) -> Order {
        let currency = currency
        return try await self.change { connection in
            // The row lock makes two changes to one order take turns; the second reads what the first wrote.
            guard let written = try await connection.query("SELECT status FROM orders WHERE number = \(number) FOR UPDATE", logger: PostgresDatabase.quiet)
                .collect().first?.decode(String.self), let status = OrderStatus(rawValue: written)
            else { throw OrderChangeError.notFound(number) }
            if let pending = try await Self.pendingRefund(of: number, on: connection) { throw OrderChangeError.refundPending(pending) }
            let next = try OrderLifecycle.next(
                after: try await Self.events(number, currency: currency, on: connection), status: status, applying: change, expecting: expected
            )
            try await connection.query("UPDATE orders SET status = \(next.status.rawValue) WHERE number = \(number)", logger: PostgresDatabase.quiet)
            try await Self.record(OrderEvent(at: at, actor: actor, change: change), of: number, on: connection)
            return try await Self.written(number, currency: currency, on: connection)
        }
    }

    /// Appends `event` to the order's history, in the transaction of the change it records (the order's row is locked).
    static func record(_ event: OrderEvent, of orderNumber: String, on connection: PostgresConnection) async throws {
        let record = OrderEventRecord(event)
        let sequence = try await connection.query("""
            INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
            SELECT \(orderNumber), coalesce(max(sequence), 0) + 1, \(event.at.timeIntervalSince1970), \(record.actor), \(record.kind), \(record.details)
            FROM order_event WHERE order_number = \(orderNumber)
            RETURNING sequence
            """, logger: PostgresDatabase.quiet).collect().first?.decode(Int.self) ?? 0
        if let kind = OutboxKind(event.change) { try await PostgresOutbox.enqueue(kind, of: orderNumber, eventSequence: sequence, at: event.at, on: connection) }
    }

    public func unsettledOrders() async throws -> [UnsettledOrder] {
        let open = OrderStatus.allCases.filter(\.isOpen).map(\.rawValue)
        let currency = currency
        return try await database.read { connection in
            try await Self.records(connection.query("SELECT \(unescaped: StoredOrderRow.columns) FROM orders WHERE status = ANY(\(open)) ORDER BY sequence", logger: PostgresDatabase.quiet))
                .map { $0.unsettled(fallback: currency) }
        }
    }

    public func count(customer: String?) async throws -> Int {
        try await database.read { connection in
            try await connection.query("SELECT count(*) FROM orders WHERE status IN \(unescaped: StoredOrderRow.shownStatuses) AND (\(customer)::text IS NULL OR customer = \(customer))", logger: PostgresDatabase.quiet)
                .collect().first?.decode(Int.self) ?? 0
        }
    }

    /// One query for the orders and one for all their lines.
    public func orders(customer: String?, offset: Int, limit: Int) async throws -> [Order] {
        guard offset >= 0, limit > 0 else { return [] }
        let currency = currency
        return try await database.read { connection in
            let records = try await Self.records(connection.query("""
                SELECT \(unescaped: StoredOrderRow.columns) FROM orders WHERE status IN \(unescaped: StoredOrderRow.shownStatuses) AND (\(customer)::text IS NULL OR customer = \(customer))
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
        let records = try await records(connection.query("SELECT \(unescaped: StoredOrderRow.columns) FROM orders WHERE number = \(number)", logger: PostgresDatabase.quiet))
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
        var records: [StoredOrderRow] = []
        for try await row in rows.decode((String, String, String, Double, String, Int64, Int64, Int64, String, String, String, String, String?).self) {
            records.append(StoredOrderRow(columns: row))
        }
        return records
    }

    static func orders(from records: [StoredOrderRow], currency: Currency, on connection: PostgresConnection) async throws -> [Order] {
        guard !records.isEmpty else { return [] }
        var linesByOrder: [String: [(productID: String, name: String, unitPrice: Int64, quantity: Int)]] = [:]
        let rows = try await connection.query("""
            SELECT order_number, product_id, name, unit_price, quantity FROM order_line
            WHERE order_number = ANY(\(records.map(\.number))) ORDER BY order_number, position
            """, logger: PostgresDatabase.quiet)
        for try await (number, productID, name, unitPrice, quantity) in rows.decode((String, String, String, Int64, Int).self) {
            linesByOrder[number, default: []].append((productID, name, unitPrice, quantity))
        }
        return records.map { record in
            record.order(fallback: currency) { lineCurrency in
                (linesByOrder[record.number] ?? []).map {
                    CartLine(productID: ProductID($0.productID), name: $0.name, unitPrice: Money(minorUnits: $0.unitPrice, currency: lineCurrency), quantity: $0.quantity)
                }
            }
        }
    }
}
