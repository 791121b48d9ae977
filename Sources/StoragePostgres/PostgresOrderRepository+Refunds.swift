import Foundation
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// Refunds in PostgreSQL: filing and settling each lock the order's row (`FOR UPDATE`) and change it in one
/// transaction, so of two refunds, or a refund and a cancel, racing for one order exactly one is filed.
extension PostgresOrderRepository: RefundRepository {
    public func fileRefund(_ ask: RefundAsk, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> FiledRefund
    {
        let currency = currency
        return try await change { connection in
            let order = try await Self.locked(number, currency: currency, on: connection)
            let earlier = try await Self.refunds(of: number, currency: currency, on: connection)
            _ = try FiledRefund.admit(
                ask, to: order, events: try await Self.events(number, currency: currency, on: connection), earlier: earlier, expecting: expected)
            let id = try await connection.query(
                """
                WITH n AS (SELECT nextval('refund_sequence') AS v)
                INSERT INTO refund (id, sequence, order_number, kind, amount, currency, reason, restock, actor, filed_at)
                SELECT 'RF-' || lpad(v::text, 6, '0'), v, \(number), \(ask.kind.rawValue), \(ask.amount.minorUnits), \(ask.amount.currency.code),
                       \(ask.reason), \(StoredRefundRow.restockText(ask.restock)), \(actor.recordText), \(at.timeIntervalSince1970)
                FROM n RETURNING id
                """, logger: PostgresDatabase.quiet
            ).collect().first?.decode(String.self)
            guard let filed = try await Self.refunds(of: number, currency: currency, on: connection).first(where: { $0.id == id }) else {
                throw OrderChangeError.storage("a refund of \(number) was not found right after it was filed")
            }
            return filed
        }
    }

    public func settleRefund(id: String, as state: RefundState, at: Date) async throws(OrderChangeError) -> Order {
        let currency = currency
        return try await change { connection in
            guard
                let number = try await connection.query("SELECT order_number FROM refund WHERE id = \(id)", logger: PostgresDatabase.quiet)
                    .collect().first?.decode(String.self)
            else { throw OrderChangeError.notFound(id) }
            let order = try await Self.locked(number, currency: currency, on: connection)
            guard let refund = try await Self.refunds(of: number, currency: currency, on: connection).first(where: { $0.id == id }),
                refund.state == .pending
            else { return order }
            switch state {
            case .pending:
                return order
            case .declined(let reason):
                try await connection.query(
                    "UPDATE refund SET state = 'declined', failure = \(reason), settled_at = \(at.timeIntervalSince1970) WHERE id = \(id)",
                    logger: PostgresDatabase.quiet)
            case .refunded(let reference):
                let next = try OrderLifecycle.next(
                    after: try await Self.events(number, currency: currency, on: connection), status: order.status, applying: refund.ask.change,
                    expecting: nil
                )
                try await connection.query(
                    "UPDATE orders SET status = \(next.status.rawValue) WHERE number = \(number)", logger: PostgresDatabase.quiet)
                try await Self.record(OrderEvent(at: at, actor: refund.actor, change: refund.ask.change), of: number, on: connection)
                // A canceled order gives its discount code's use back; a refunded one keeps it, as it was used.
                if next.status == .canceled { try await PostgresDiscountCodes.release(order: number, at: at, on: connection) }
                for item in refund.ask.restock.sorted(by: { $0.productID < $1.productID }) {
                    try await connection.query(
                        "UPDATE stock SET on_hand = on_hand + \(item.quantity), sold = greatest(0, sold - \(item.quantity)) WHERE product_id = \(item.productID.rawValue)",
                        logger: PostgresDatabase.quiet
                    )
                }
                try await connection.query(
                    """
                    UPDATE refund SET state = 'refunded', provider_reference = \(reference), settled_at = \(at.timeIntervalSince1970) WHERE id = \(id)
                    """, logger: PostgresDatabase.quiet)
            }
            return try await Self.written(number, currency: currency, on: connection)
        }
    }

    public func recordProviderRefund(_ amount: Money, reference: String, toOrder number: String, at: Date) async throws(OrderChangeError) -> Order? {
        let currency = currency
        return try await change { connection in
            // The order's lock first: two notices of one refund take turns, and the second finds the first's row.
            let order = try await Self.locked(number, currency: currency, on: connection)
            let known = try await connection.query("SELECT 1 FROM refund WHERE provider_reference = \(reference)", logger: PostgresDatabase.quiet)
                .collect()
            guard known.isEmpty else { return nil }
            let change = OrderChange.refunded(amount, reason: RefundAsk.madeAtProviderReason)
            let next = try OrderLifecycle.next(
                after: try await Self.events(number, currency: currency, on: connection), status: order.status, applying: change, expecting: nil
            )
            let instant = at.timeIntervalSince1970
            try await connection.query(
                """
                WITH n AS (SELECT nextval('refund_sequence') AS v)
                INSERT INTO refund (id, sequence, order_number, kind, amount, currency, reason, restock, actor, filed_at, state, provider_reference, settled_at)
                SELECT 'RF-' || lpad(v::text, 6, '0'), v, \(number), 'refund', \(amount.minorUnits), \(amount.currency.code), \(RefundAsk.madeAtProviderReason),
                       '[]', \(OrderActor.provider.recordText), \(instant), 'refunded', \(reference), \(instant)
                FROM n
                """, logger: PostgresDatabase.quiet)
            try await connection.query("UPDATE orders SET status = \(next.status.rawValue) WHERE number = \(number)", logger: PostgresDatabase.quiet)
            try await Self.record(OrderEvent(at: at, actor: .provider, change: change), of: number, on: connection)
            return try await Self.written(number, currency: currency, on: connection)
        }
    }

    public func claimPendingRefund(id: String, at time: Date, cutoff: Date) async throws -> Bool {
        try await database.writeInOneStatement { connection in
            let rows = try await connection.query(
                """
                UPDATE refund SET claimed_at = \(time.timeIntervalSince1970)
                WHERE id = \(id) AND state = 'pending' AND COALESCE(claimed_at, filed_at) <= \(cutoff.timeIntervalSince1970) RETURNING id
                """, logger: PostgresDatabase.quiet
            ).collect()
            return rows.count == 1
        }
    }

    public func pendingRefunds() async throws -> [FiledRefund] {
        let currency = currency
        return try await database.read { connection in
            try await Self.refunds(
                connection.query(
                    "SELECT \(unescaped: StoredRefundRow.columns) WHERE refund.state = 'pending' ORDER BY refund.sequence",
                    logger: PostgresDatabase.quiet), currency)
        }
    }

    public func refunds(orderNumber: String) async throws -> [FiledRefund] {
        let currency = currency
        return try await database.read { connection in try await Self.refunds(of: orderNumber, currency: currency, on: connection) }
    }

    static func refunds(of number: String, currency: Currency, on connection: PostgresConnection) async throws -> [FiledRefund] {
        try await refunds(
            connection.query(
                "SELECT \(unescaped: StoredRefundRow.columns) WHERE refund.order_number = \(number) ORDER BY refund.sequence",
                logger: PostgresDatabase.quiet), currency)
    }

    private static func refunds(_ rows: PostgresRowSequence, _ currency: Currency) async throws -> [FiledRefund] {
        var refunds: [FiledRefund] = []
        for try await row in rows.decode(
            (String, String, String, String, Int64, String, String, String, String, Double, String, String?, String?).self)
        {
            refunds.append(
                StoredRefundRow(
                    id: row.0, orderNumber: row.1, chargeKey: row.2, kind: row.3, amount: row.4, currency: row.5, reason: row.6, restock: row.7,
                    actor: row.8, filedAt: row.9, state: row.10, providerReference: row.11, failure: row.12
                ).refund(fallback: currency))
        }
        return refunds
    }

    /// The order, its row locked until the transaction ends.
    private static func locked(_ number: String, currency: Currency, on connection: PostgresConnection) async throws -> Order {
        guard
            try await connection.query("SELECT status FROM orders WHERE number = \(number) FOR UPDATE", logger: PostgresDatabase.quiet).collect()
                .first != nil
        else { throw OrderChangeError.notFound(number) }
        return try await written(number, currency: currency, on: connection)
    }

    /// The refund pending on an order, which holds every other change to it until it is settled.
    static func pendingRefund(of number: String, on connection: PostgresConnection) async throws -> String? {
        try await connection.query("SELECT id FROM refund WHERE order_number = \(number) AND state = 'pending'", logger: PostgresDatabase.quiet)
            .collect().first?.decode(String.self)
    }

    /// One transaction, its errors as an order change's.
    func change<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(OrderChangeError) -> T {
        do {
            return try await database.write(body)
        } catch let error as OrderChangeError {
            throw error
        } catch let error as PostgresDatabaseError {
            throw .storage(error.storageError.message)
        } catch {
            throw .storage("\(error)")
        }
    }
}
