import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// Orders, with the stock they take.
///
/// Stock is reserved by `UPDATE … WHERE on_hand >= quantity`. SQLite's write transaction runs alone; on PostgreSQL
/// (READ COMMITTED) a buyer who finds the row locked waits, then the condition is checked again against the row the
/// other buyer committed, so two buyers can never both take the last unit. Rows are locked in stock-key order so two
/// carts never wait on each other; a deadlock the server still breaks is retried whole. An order being changed is
/// locked first (`FOR UPDATE`), so a session and a settlement finishing it at once settle its stock once.
public final class SQLOrderRepository: OrderRepository {
    let database: any SQLDatabase
    let currency: Currency

    public init(database: any SQLDatabase, currency: Currency) {
        self.database = database
        self.currency = currency
    }

    public func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date)
        async throws(OrderRepositoryError) -> Order
    {
        let currency = currency
        do {
            return try await database.run(.write) { connection in
                if let number: String = try connection.value("SELECT number FROM orders WHERE idempotency_key = \(idempotencyKey)") {
                    return try Self.written(number, currency: currency, on: connection)
                }
                for line in draft.lines.sorted(by: { $0.stockKey.rawValue < $1.stockKey.rawValue }) {
                    let taken = try connection.execute(
                        """
                        UPDATE stock SET on_hand = on_hand - \(line.quantity), reserved = reserved + \(line.quantity)
                        WHERE product_id = \(line.stockKey.rawValue) AND on_hand >= \(line.quantity)
                        """)
                    if taken != 1 {
                        let available: Int = try connection.value("SELECT on_hand FROM stock WHERE product_id = \(line.stockKey.rawValue)") ?? 0
                        throw OrderRepositoryError.soldOut(productName: line.name, available: available)
                    }
                }
                let placing = StoredOrderRow(
                    placing: draft, number: "", idempotencyKey: idempotencyKey, paymentDescription: paymentDescription, placedAt: placedAt,
                    // The order's own currency: a market's, where the session sold in one.
                    currency: draft.totals.total.currency)
                let row = try Self.place(placing, draft: draft, tokenID: tokenID, on: connection)
                if let discount = draft.discount {
                    let held = try SQLDiscountCodes.hold(discount.code, order: row.number, customer: draft.customerID, at: placedAt, on: connection) {
                        discount.refusal(
                            // The code as the order's market takes it: a fixed amount at the order's rate.
                            holding: $0?.priced(in: draft.totals.total.currency, exchange: draft.exchange), on: draft.lines,
                            shipping: draft.totals.shipping, at: placedAt, usedInAll: $1, usedByCustomer: $2,
                            customer: draft.customerID)
                    }
                    if case .failure(let refusal) = held { throw OrderRepositoryError.discountRefused(refusal) }
                }
                // The lines as written; the row as the database stored it.
                return row.order(fallback: currency) { lineCurrency in
                    draft.lines.map {
                        CartLine(
                            productID: $0.productID, name: $0.name, unitPrice: Money(minorUnits: $0.unitPrice.minorUnits, currency: lineCurrency),
                            quantity: $0.quantity, variant: $0.variant)
                    }
                }
            }
        } catch let error as OrderRepositoryError {
            throw error
        } catch is SQLUniqueViolation {
            // Another front end began an order under this key at the same moment and committed first.
            return try await existing(idempotencyKey: idempotencyKey)
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Writes the order, its lines and its first event, numbered by the database. PostgreSQL does it in one statement,
    /// where each would be a round trip; placing sends no mail (`OutboxKind(.placed)` is nil), so no outbox row.
    private static func place(_ placing: StoredOrderRow, draft: OrderDraft, tokenID: String, on connection: any SQLConnection) throws
        -> StoredOrderRow
    {
        let columns = placing.placedColumns(tokenID: tokenID, contact: draft.shippingContact)
        let names = columns.map(\.column).joined(separator: ", ")
        var values: SQLStatement = ""
        for (index, column) in columns.enumerated() { values.append("\(raw: index == 0 ? "" : ", ")\(column.value)") }
        var lines: SQLStatement = ""
        for (position, line) in draft.lines.enumerated() {
            lines.append(
                """
                \(raw: position == 0 ? "" : ", ")(\(position), \(line.productID.rawValue), \(line.name), \(line.unitPrice.minorUnits), \(line.quantity), \
                \(line.variant?.sku.rawValue), \(line.variant?.title))
                """)
        }
        let lineColumns = "position, product_id, name, unit_price, quantity, variant_sku, variant_title"
        let placedAt = Date(timeIntervalSince1970: placing.placedAt)
        let placed = OrderEvent(at: placedAt, actor: .shopper(draft.customerID), change: .placed(total: draft.totals.total))
        switch connection.dialect {
        case .sqlite:
            let sequence = try connection.nextSequence(of: "orders", sequence: "order_sequence")
            var row = placing
            row.number = "SF-" + String(1_000_000 + sequence).dropFirst()
            try connection.execute("INSERT INTO orders (number, sequence, \(raw: names)) VALUES (\(row.number), \(sequence), \(values))")
            if !draft.lines.isEmpty {
                try connection.execute(
                    "INSERT INTO order_line (order_number, \(raw: lineColumns)) SELECT \(row.number), t.* FROM (VALUES \(lines)) AS t")
            }
            try record(placed, of: row.number, on: connection)
            return row
        case .postgres:
            let record = OrderEventRecord(placed)
            let placedLines: SQLStatement =
                draft.lines.isEmpty
                ? ""
                : ", placed_lines AS (INSERT INTO order_line (order_number, \(raw: lineColumns)) SELECT placed.number, t.* FROM placed, (VALUES \(lines)) AS t)"
            guard
                let row = try connection.decode(
                    StoredOrderRow.self,
                    """
                    WITH numbered AS (SELECT nextval('order_sequence') AS sequence),
                    placed AS (
                        INSERT INTO orders (number, sequence, \(raw: names))
                        SELECT 'SF-' || substr((1000000 + sequence)::text, 2), sequence, \(values) FROM numbered
                        RETURNING *
                    )\(placedLines),
                    first_event AS (
                        INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                        SELECT placed.number, 1, \(placedAt), \(record.actor), \(record.kind), \(record.details) FROM placed
                    )
                    SELECT * FROM placed
                    """
                ).first
            else { throw OrderRepositoryError.storage("the order was not written") }
            return row
        }
    }

    private func existing(idempotencyKey: String) async throws(OrderRepositoryError) -> Order {
        let currency = currency
        do {
            return try await database.run(.read) { connection in
                guard let number: String = try connection.value("SELECT number FROM orders WHERE idempotency_key = \(idempotencyKey)") else {
                    throw OrderRepositoryError.storage("no order under this key after a conflict on it")
                }
                return try Self.written(number, currency: currency, on: connection)
            }
        } catch let error as OrderRepositoryError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    /// The order changes only while it is open; its row lock makes a second finish wait and then find it settled. The
    /// stock of every line moves in one statement, each product's lines summed first so each stock row (a product's,
    /// or a variant's under its SKU) changes once.
    public func finish(orderNumber: String, status: OrderStatus, failure: String?, at: Date) async throws(OrderRepositoryError) {
        let settle: String? =
            switch status {
            case .paid: "reserved = reserved - l.quantity, sold = sold + l.quantity"
            case .declined, .voided: "reserved = reserved - l.quantity, on_hand = on_hand + l.quantity"
            default: nil
            }
        let open = OrderStatus.allCases.filter(\.isOpen).map(\.rawValue)
        let mark: SQLStatement =
            "UPDATE orders SET status = \(status.rawValue), failure = \(failure) WHERE number = \(orderNumber) AND status IN \(list: open)"
        // The stock of the lines of the order (SQLite), or of the one just marked (PostgreSQL), settled as `settle` says.
        let settleOrder = settle.map { Self.settling($0, of: "(\(orderNumber))") }
        let settleMarked = settle.map { Self.settling($0, of: "(SELECT number FROM marked)") }
        do {
            try await database.run(.write) { connection in
                let marked: Bool
                switch connection.dialect {
                case .sqlite:
                    marked = try connection.execute(mark) == 1
                    if marked, let settleOrder { try connection.execute(settleOrder) }
                case .postgres:
                    // One statement: the order's row lock, taken by the update, makes a second finish wait and find it settled.
                    let settled: SQLStatement = settleMarked.map { ", settled AS (\($0))" } ?? ""
                    marked = try connection.row("WITH marked AS (\(mark) RETURNING number)\(settled) SELECT number FROM marked") != nil
                }
                guard marked else { return }
                if status == .declined || status == .voided { try SQLDiscountCodes.release(order: orderNumber, at: at, on: connection) }
                if let (actor, change) = OrderEventRecord.settlement(status, failure: failure) {
                    try Self.record(OrderEvent(at: at, actor: actor, change: change), of: orderNumber, on: connection)
                }
            }
        } catch {
            throw .storage("\(error)")
        }
    }

    /// The stock of the lines of `orders` changed as `settle` says, each stock row once.
    private static func settling(_ settle: String, of orders: SQLStatement) -> SQLStatement {
        """
        UPDATE stock SET \(raw: settle)
        FROM (SELECT coalesce(variant_sku, product_id) AS stock_key, sum(quantity) AS quantity FROM order_line
              WHERE order_number IN \(orders) GROUP BY coalesce(variant_sku, product_id)) AS l
        WHERE stock.product_id = l.stock_key
        """
    }

    public func events(orderNumber: String) async throws -> [OrderEvent] {
        let currency = currency
        return try await database.run(.read) { connection in try Self.events(orderNumber, currency: currency, on: connection) }
    }

    static func events(_ orderNumber: String, currency: Currency, on connection: any SQLConnection) throws -> [OrderEvent] {
        try connection.rows("SELECT at, actor, kind, details FROM order_event WHERE order_number = \(orderNumber) ORDER BY sequence").map { row in
            try OrderEventRecord(actor: row["actor"], kind: row["kind"], details: row["details"]).event(at: try row["at"], currency: currency)
        }
    }

    /// The row lock makes two changes to one order take turns; the second reads what the first wrote.
    public func apply(_ change: OrderChange, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> Order
    {
        let currency = currency
        return try await self.change { connection in
            guard let status = try Self.lockedStatus(number, on: connection) else { throw OrderChangeError.notFound(number) }
            if let pending = try Self.pendingRefund(of: number, on: connection) { throw OrderChangeError.refundPending(pending) }
            let next = try OrderLifecycle.next(
                after: try Self.events(number, currency: currency, on: connection), status: status, applying: change, expecting: expected)
            try connection.execute("UPDATE orders SET status = \(next.status.rawValue) WHERE number = \(number)")
            try Self.record(OrderEvent(at: at, actor: actor, change: change), of: number, on: connection)
            return try Self.written(number, currency: currency, on: connection)
        }
    }

    /// The order's status, its row locked until the transaction ends on PostgreSQL.
    static func lockedStatus(_ number: String, on connection: any SQLConnection) throws -> OrderStatus? {
        try connection.value("SELECT status FROM orders WHERE number = \(number)\(raw: connection.forUpdate)", as: String.self)
            .flatMap(OrderStatus.init(rawValue:))
    }

    /// Appends `event` to the order's history, and the message it sends to the outbox, in the transaction of the change
    /// it records (the order's row is locked, so the next sequence is this one's): on PostgreSQL in one statement. An
    /// order with no email gets no message.
    static func record(_ event: OrderEvent, of orderNumber: String, on connection: any SQLConnection) throws {
        let record = OrderEventRecord(event)
        let kind = OutboxKind(event.change)
        let recorded: SQLStatement = """
            INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
            SELECT \(orderNumber), coalesce(max(sequence), 0) + 1, \(event.at), \(record.actor), \(record.kind), \(record.details)
            FROM order_event WHERE order_number = \(orderNumber)
            RETURNING sequence
            """
        switch connection.dialect {
        case .sqlite:
            guard let sequence: Int = try connection.value(recorded) else {
                throw OrderRepositoryError.storage("the event of order \(orderNumber) was not written")
            }
            if let kind { try SQLOutbox.enqueue(kind, of: orderNumber, eventSequence: sequence, at: event.at, on: connection) }
        case .postgres:
            guard let kind else {
                try connection.execute(recorded)
                return
            }
            try connection.execute(
                """
                WITH recorded AS (\(recorded)),
                n AS (SELECT nextval('outbox_sequence') AS v),
                i AS (SELECT coalesce((SELECT id FROM shop_install LIMIT 1), 'shop') AS install)
                INSERT INTO outbox (id, sequence, order_number, kind, event_sequence, recipient, recipient_name, message_id, created_at, next_attempt_at)
                SELECT 'MSG-' || lpad(n.v::text, 6, '0'), n.v, orders.number, \(kind.rawValue), recorded.sequence, orders.email,
                       coalesce(orders.email_name, ''),
                       '<MSG-' || lpad(n.v::text, 6, '0') || '.' || orders.number || '.' || i.install || '@storefront.invalid>', \(event.at), \(event.at)
                FROM orders, n, i, recorded WHERE orders.number = \(orderNumber) AND coalesce(orders.email, '') <> ''
                """)
        }
    }
}

extension SQLOrderRepository: LiveObject {}
