import Foundation
import ShopModels
import ShopPorts

/// Refunds: filing and settling each lock the order's row first (on PostgreSQL; SQLite's write runs alone) and change
/// it in one transaction, so of two refunds, or a refund and a cancel, racing for one order exactly one is filed.
extension SQLOrderRepository: RefundRepository {
    public func fileRefund(_ ask: RefundAsk, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> FiledRefund
    {
        let currency = currency
        return try await change { connection in
            let order = try Self.locked(number, currency: currency, on: connection)
            _ = try FiledRefund.admit(
                ask, to: order, events: try Self.events(number, currency: currency, on: connection),
                earlier: try Self.refunds("WHERE refund.order_number = \(number)", currency: currency, on: connection), expecting: expected)
            let sequence = try connection.nextSequence(of: "refund", sequence: "refund_sequence")
            let id = StoredRefundRow.id(sequence: sequence)
            try connection.execute(
                """
                INSERT INTO refund (id, sequence, order_number, kind, amount, currency, reason, restock, actor, filed_at)
                VALUES (\(id), \(sequence), \(number), \(ask.kind.rawValue), \(ask.amount.minorUnits), \(ask.amount.currency.code), \(ask.reason),
                    \(StoredRefundRow.restockText(ask.restock)), \(actor.recordText), \(at))
                """)
            guard let filed = try Self.refunds("WHERE refund.id = \(id)", currency: currency, on: connection).first else {
                throw OrderChangeError.storage("refund \(id) was not found right after it was filed")
            }
            return filed
        }
    }

    public func settleRefund(id: String, as state: RefundState, at: Date) async throws(OrderChangeError) -> Order {
        let currency = currency
        return try await change { connection in
            guard let number: String = try connection.value("SELECT order_number FROM refund WHERE id = \(id)") else {
                throw OrderChangeError.notFound(id)
            }
            let order = try Self.locked(number, currency: currency, on: connection)
            guard let refund = try Self.refunds("WHERE refund.id = \(id)", currency: currency, on: connection).first, refund.state == .pending
            else { return order }
            switch state {
            case .pending:
                return order
            case .declined(let reason):
                try connection.execute("UPDATE refund SET state = 'declined', failure = \(reason), settled_at = \(at) WHERE id = \(id)")
            case .refunded(let reference):
                let next = try OrderLifecycle.next(
                    after: try Self.events(number, currency: currency, on: connection), status: order.status, applying: refund.ask.change,
                    expecting: nil)
                try connection.execute("UPDATE orders SET status = \(next.status.rawValue) WHERE number = \(number)")
                try Self.record(OrderEvent(at: at, actor: refund.actor, change: refund.ask.change), of: number, on: connection)
                // A canceled order gives its discount code's use back; a refunded one keeps it, as it was used.
                if next.status == .canceled { try SQLDiscountCodes.release(order: number, at: at, on: connection) }
                for item in refund.ask.restock.sorted(by: { $0.productID < $1.productID }) {
                    try connection.execute(
                        """
                        UPDATE stock SET on_hand = on_hand + \(item.quantity), sold = CASE WHEN sold > \(item.quantity) THEN sold - \(item.quantity) ELSE 0 END
                        WHERE product_id = \(item.productID.rawValue)
                        """)
                }
                try connection.execute(
                    "UPDATE refund SET state = 'refunded', provider_reference = \(reference), settled_at = \(at) WHERE id = \(id)")
            }
            return try Self.written(number, currency: currency, on: connection)
        }
    }

    /// The order's lock first: two notices of one refund take turns, and the second finds the first's row.
    public func recordProviderRefund(_ amount: Money, reference: String, toOrder number: String, at: Date) async throws(OrderChangeError) -> Order? {
        let currency = currency
        return try await change { connection in
            let order = try Self.locked(number, currency: currency, on: connection)
            guard try connection.row("SELECT 1 FROM refund WHERE provider_reference = \(reference)") == nil else { return nil }
            let change = OrderChange.refunded(amount, reason: RefundAsk.madeAtProviderReason)
            let next = try OrderLifecycle.next(
                after: try Self.events(number, currency: currency, on: connection), status: order.status, applying: change, expecting: nil)
            let sequence = try connection.nextSequence(of: "refund", sequence: "refund_sequence")
            try connection.execute(
                """
                INSERT INTO refund (id, sequence, order_number, kind, amount, currency, reason, restock, actor, filed_at, state, provider_reference, settled_at)
                VALUES (\(StoredRefundRow.id(sequence: sequence)), \(sequence), \(number), 'refund', \(amount.minorUnits), \(amount.currency.code),
                    \(RefundAsk.madeAtProviderReason), '[]', \(OrderActor.provider.recordText), \(at), 'refunded', \(reference), \(at))
                """)
            try connection.execute("UPDATE orders SET status = \(next.status.rawValue) WHERE number = \(number)")
            try Self.record(OrderEvent(at: at, actor: .provider, change: change), of: number, on: connection)
            return try Self.written(number, currency: currency, on: connection)
        }
    }

    public func claimPendingRefund(id: String, at time: Date, cutoff: Date) async throws -> Bool {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                "UPDATE refund SET claimed_at = \(time) WHERE id = \(id) AND state = 'pending' AND coalesce(claimed_at, filed_at) <= \(cutoff)") == 1
        }
    }

    public func pendingRefunds() async throws -> [FiledRefund] {
        let currency = currency
        return try await database.run(.read) { connection in
            try Self.refunds("WHERE refund.state = 'pending' ORDER BY refund.sequence", currency: currency, on: connection)
        }
    }

    public func refunds(orderNumber: String) async throws -> [FiledRefund] {
        let currency = currency
        return try await database.run(.read) { connection in
            try Self.refunds("WHERE refund.order_number = \(orderNumber) ORDER BY refund.sequence", currency: currency, on: connection)
        }
    }

    /// The refunds `filter` (a WHERE and ORDER BY clause over `refund` joined with `orders`) selects.
    static func refunds(_ filter: SQLStatement, currency: Currency, on connection: any SQLConnection) throws -> [FiledRefund] {
        try connection.decode(StoredRefundRow.self, "SELECT \(raw: StoredRefundRow.columns) \(filter)").map { $0.refund(fallback: currency) }
    }

    /// The refund pending on an order, which holds every other change to it until it is settled.
    static func pendingRefund(of number: String, on connection: any SQLConnection) throws -> String? {
        try connection.value("SELECT id FROM refund WHERE order_number = \(number) AND state = 'pending'")
    }

    /// The order, its row locked until the transaction ends.
    private static func locked(_ number: String, currency: Currency, on connection: any SQLConnection) throws -> Order {
        guard try lockedStatus(number, on: connection) != nil else { throw OrderChangeError.notFound(number) }
        return try written(number, currency: currency, on: connection)
    }

    /// One transaction, its errors as an order change's.
    func change<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(OrderChangeError) -> T {
        try await database.run(.write, failing: OrderChangeError.storage, body)
    }
}
