import Foundation
import LiveObjects
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

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

    public func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date)
        async throws(OrderRepositoryError) -> Order
    {
        let currency = currency
        do {
            return try await database.transaction { connection in
                if let number = try await connection.query(
                    "SELECT number FROM orders WHERE idempotency_key = \(idempotencyKey)", logger: PostgresDatabase.quiet
                )
                .collect().first?.decode(String.self) {
                    return try await Self.written(number, currency: currency, on: connection)
                }
                for line in draft.lines.sorted(by: { $0.stockKey.rawValue < $1.stockKey.rawValue }) {
                    let taken = try await connection.query(
                        """
                        UPDATE stock SET on_hand = on_hand - \(line.quantity), reserved = reserved + \(line.quantity)
                        WHERE product_id = \(line.stockKey.rawValue) AND on_hand >= \(line.quantity)
                        RETURNING on_hand
                        """, logger: PostgresDatabase.quiet
                    ).collect()
                    if taken.isEmpty {
                        let available =
                            try await connection.query(
                                "SELECT on_hand FROM stock WHERE product_id = \(line.stockKey.rawValue)", logger: PostgresDatabase.quiet
                            )
                            .collect().first?.decode(Int.self) ?? 0
                        throw OrderRepositoryError.soldOut(productName: line.name, available: available)
                    }
                }
                // The number, the order, its lines and its first event in one statement: each is a round trip otherwise.
                let totals = draft.totals
                let lines = draft.lines
                let placed = OrderEventRecord(OrderEvent(at: placedAt, actor: .shopper(draft.customerID), change: .placed(total: totals.total)))
                // The number is the database's (from its sequence); the rest is the row both databases place alike.
                let columns = StoredOrderRow(
                    placing: draft, number: "", idempotencyKey: idempotencyKey, paymentDescription: paymentDescription, placedAt: placedAt,
                    currency: currency
                ).placedColumns(tokenID: tokenID, contact: draft.shippingContact)
                let rows = try await Self.records(
                    connection.query(
                        """
                        WITH numbered AS (SELECT nextval('order_sequence') AS sequence),
                        placed AS (
                            INSERT INTO orders (number, sequence, \(unescaped: columns.map(\.column).joined(separator: ", ")))
                            SELECT 'SF-' || substr((1000000 + sequence)::text, 2), sequence, \(values: columns.map(\.value))
                            FROM numbered
                            RETURNING *
                        ),
                        placed_lines AS (
                            INSERT INTO order_line (order_number, position, product_id, name, unit_price, quantity, variant_sku, variant_title)
                            SELECT placed.number, position, product_id, name, unit_price, quantity, nullif(variant_sku, ''), nullif(variant_title, '')
                            FROM placed, unnest(\(Array(lines.indices))::int8[], \(lines.map(\.productID.rawValue))::text[], \(lines.map(\.name))::text[],
                                                \(lines.map(\.unitPrice.minorUnits))::int8[], \(lines.map(\.quantity))::int8[],
                                                \(lines.map { $0.variant?.sku.rawValue ?? "" })::text[], \(lines.map { $0.variant?.title ?? "" })::text[])
                                 AS t (position, product_id, name, unit_price, quantity, variant_sku, variant_title)
                        ),
                        first_event AS (   -- placing sends no mail: OutboxKind(.placed) is nil, so no outbox row
                            INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                            SELECT placed.number, 1, \(placedAt.timeIntervalSince1970), \(placed.actor), \(placed.kind), \(placed.details) FROM placed
                        )
                        SELECT * FROM placed
                        """, logger: PostgresDatabase.quiet))
                guard let row = rows.first else { throw OrderRepositoryError.storage("the order was not written") }
                if let discount = draft.discount {
                    let (lines, shipping) = (draft.lines, draft.totals.shipping)
                    let held = try await PostgresDiscountCodes.hold(
                        discount.code, order: row.number, customer: draft.customerID, at: placedAt, on: connection
                    ) {
                        discount.refusal(
                            holding: $0, on: lines, shipping: shipping, at: placedAt, usedInAll: $1, usedByCustomer: $2, customer: draft.customerID)
                    }
                    if case .failure(let refusal) = held { throw OrderRepositoryError.discountRefused(refusal) }
                }
                // The lines as written above; the row as the database stored it.
                return row.order(fallback: currency) { lineCurrency in
                    lines.map {
                        CartLine(
                            productID: $0.productID, name: $0.name, unitPrice: Money(minorUnits: $0.unitPrice.minorUnits, currency: lineCurrency),
                            quantity: $0.quantity, variant: $0.variant)
                    }
                }
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
                guard
                    let number = try await connection.query(
                        "SELECT number FROM orders WHERE idempotency_key = \(idempotencyKey)", logger: PostgresDatabase.quiet
                    )
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
        let settle: String =
            switch status {
            case .paid: "reserved = reserved - l.quantity, sold = sold + l.quantity"
            case .declined, .voided: "reserved = reserved - l.quantity, on_hand = on_hand + l.quantity"
            default: "reserved = reserved"  // never applied: see `settles`
            }
        let settles = [.paid, .declined, .voided].contains(status)
        let open = OrderStatus.allCases.filter(\.isOpen).map(\.rawValue)
        do {
            try await database.write { connection in
                // The order changes only while it is open; its row lock (taken by the update) makes a second finish
                // wait and then find it settled. The stock of every line moves in the same statement, each product's
                // lines summed first so each stock row (a product's, or a variant's under its SKU) changes once.
                let marked = try await connection.query(
                    """
                    WITH marked AS (
                        UPDATE orders SET status = \(status.rawValue), failure = \(failure)
                        WHERE number = \(orderNumber) AND status = ANY(\(open)) RETURNING number
                    ),
                    settled AS (
                        UPDATE stock SET \(unescaped: settle)
                        FROM (SELECT coalesce(variant_sku, product_id) AS stock_key, sum(quantity)::int AS quantity FROM order_line
                              WHERE order_number IN (SELECT number FROM marked) GROUP BY stock_key) AS l
                        WHERE stock.product_id = l.stock_key AND \(settles)
                    )
                    SELECT number FROM marked
                    """, logger: PostgresDatabase.quiet
                ).collect()
                guard !marked.isEmpty else { return }
                if status == .declined || status == .voided {
                    try await PostgresDiscountCodes.release(order: orderNumber, at: at, on: connection)
                }
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
            events.append(
                try OrderEventRecord(actor: actor, kind: kind, details: details).event(at: Date(timeIntervalSince1970: at), currency: currency))
        }
        return events
    }

    public func apply(_ change: OrderChange, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> Order
    {
        let currency = currency
        return try await self.change { connection in
            // The row lock makes two changes to one order take turns; the second reads what the first wrote.
            guard
                let written = try await connection.query(
                    "SELECT status FROM orders WHERE number = \(number) FOR UPDATE", logger: PostgresDatabase.quiet
                )
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

    /// Appends `event` to the order's history, and the message it sends to the outbox, in one statement of the
    /// transaction of the change it records (the order's row is locked, so the next sequence is this one's). An order
    /// with no email gets no message.
    static func record(_ event: OrderEvent, of orderNumber: String, on connection: PostgresConnection) async throws {
        let record = OrderEventRecord(event)
        let instant = event.at.timeIntervalSince1970
        let kind = OutboxKind(event.change)?.rawValue
        _ = try await connection.query(
            """
            WITH recorded AS (
                INSERT INTO order_event (order_number, sequence, at, actor, kind, details)
                SELECT \(orderNumber), coalesce(max(sequence), 0) + 1, \(instant), \(record.actor), \(record.kind), \(record.details)
                FROM order_event WHERE order_number = \(orderNumber)
                RETURNING sequence
            ),
            n AS (SELECT nextval('outbox_sequence') AS v WHERE \(kind)::text IS NOT NULL),
            i AS (SELECT coalesce((SELECT id FROM shop_install LIMIT 1), 'shop') AS install)
            INSERT INTO outbox (id, sequence, order_number, kind, event_sequence, recipient, recipient_name, message_id, created_at, next_attempt_at)
            SELECT 'MSG-' || lpad(n.v::text, 6, '0'), n.v, orders.number, \(kind), recorded.sequence, orders.email, coalesce(orders.email_name, ''),
                   '<MSG-' || lpad(n.v::text, 6, '0') || '.' || orders.number || '.' || i.install || '@storefront.invalid>', \(instant), \(instant)
            FROM orders, n, i, recorded WHERE orders.number = \(orderNumber) AND coalesce(orders.email, '') <> ''
            """, logger: PostgresDatabase.quiet
        ).collect()
    }
}

extension PostgresQuery.StringInterpolation {
    /// `values` as binds, comma-separated, in order.
    mutating func appendInterpolation(values: [StoredValue]) {
        for (index, value) in values.enumerated() {
            if index > 0 { appendInterpolation(unescaped: ", ") }
            switch value {
            case .text(let text): appendInterpolation(text)
            case .integer(let number): appendInterpolation(number)
            case .real(let number): appendInterpolation(number)
            }
        }
    }
}

extension PostgresOrderRepository: LiveObject {}
