import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageRows

/// Refunds in SQLite: filing and settling are each one IMMEDIATE transaction with the order's change.
extension SQLiteOrderRepository: RefundRepository {
    public func fileRefund(_ ask: RefundAsk, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> FiledRefund
    {
        try await change { db in
            let order = try self.existing(number, in: db)
            _ = try FiledRefund.admit(
                ask, to: order, events: try self.events(number, in: db), earlier: try self.refunds(number, in: db), expecting: expected)
            let sequence = (try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM refund") ?? 0) + 1
            let id = StoredRefundRow.id(sequence: sequence)
            try db.execute(
                sql: """
                    INSERT INTO refund (id, sequence, order_number, kind, amount, currency, reason, restock, actor, filed_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, sequence, number, ask.kind.rawValue, ask.amount.minorUnits, ask.amount.currency.code, ask.reason,
                    StoredRefundRow.restockText(ask.restock), actor.recordText, at.timeIntervalSince1970,
                ])
            guard let filed = try self.refunds(number, in: db).first(where: { $0.id == id }) else {
                throw OrderChangeError.storage("refund \(id) was not found right after it was filed")
            }
            return filed
        }
    }

    public func settleRefund(id: String, as state: RefundState, at: Date) async throws(OrderChangeError) -> Order {
        try await change { db in
            guard let row = try StoredRefundRow.fetchOne(db, sql: "SELECT \(StoredRefundRow.columns) WHERE refund.id = ?", arguments: [id])
            else { throw OrderChangeError.notFound(id) }
            let refund = row.refund(fallback: self.currency)
            guard refund.state == .pending else { return try self.existing(refund.orderNumber, in: db) }
            switch state {
            case .pending:
                break
            case .declined(let reason):
                try db.execute(
                    sql: "UPDATE refund SET state = 'declined', failure = ?, settled_at = ? WHERE id = ?",
                    arguments: [reason, at.timeIntervalSince1970, id])
            case .refunded(let reference):
                let order = try self.existing(refund.orderNumber, in: db)
                let next = try OrderLifecycle.next(
                    after: try self.events(order.number, in: db), status: order.status, applying: refund.ask.change, expecting: nil)
                try db.execute(sql: "UPDATE orders SET status = ? WHERE number = ?", arguments: [next.status.rawValue, order.number])
                try Self.record(OrderEvent(at: at, actor: refund.actor, change: refund.ask.change), of: order.number, in: db)
                // A canceled order gives its discount code's use back; a refunded one keeps it, as it was used.
                if next.status == .canceled { try SQLiteDiscountCodes.release(order: order.number, at: at, in: db) }
                for item in refund.ask.restock {
                    try db.execute(
                        sql: "UPDATE stock SET on_hand = on_hand + ?, sold = max(0, sold - ?) WHERE product_id = ?",
                        arguments: [item.quantity, item.quantity, item.productID.rawValue])
                }
                try db.execute(
                    sql: "UPDATE refund SET state = 'refunded', provider_reference = ?, settled_at = ? WHERE id = ?",
                    arguments: [reference, at.timeIntervalSince1970, id])
            }
            return try self.existing(refund.orderNumber, in: db)
        }
    }

    public func recordProviderRefund(_ amount: Money, reference: String, toOrder number: String, at: Date) async throws(OrderChangeError) -> Order? {
        try await change { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM refund WHERE provider_reference = ?", arguments: [reference]) == nil else { return nil }
            let order = try self.existing(number, in: db)
            let change = OrderChange.refunded(amount, reason: RefundAsk.madeAtProviderReason)
            let next = try OrderLifecycle.next(after: try self.events(number, in: db), status: order.status, applying: change, expecting: nil)
            let sequence = (try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM refund") ?? 0) + 1
            try db.execute(
                sql: """
                    INSERT INTO refund (id, sequence, order_number, kind, amount, currency, reason, restock, actor, filed_at, state, provider_reference, settled_at)
                    VALUES (?, ?, ?, 'refund', ?, ?, ?, '[]', ?, ?, 'refunded', ?, ?)
                    """,
                arguments: [
                    StoredRefundRow.id(sequence: sequence), sequence, number, amount.minorUnits, amount.currency.code, RefundAsk.madeAtProviderReason,
                    OrderActor.provider.recordText, at.timeIntervalSince1970, reference, at.timeIntervalSince1970,
                ])
            try db.execute(sql: "UPDATE orders SET status = ? WHERE number = ?", arguments: [next.status.rawValue, number])
            try Self.record(OrderEvent(at: at, actor: .provider, change: change), of: number, in: db)
            return try self.existing(number, in: db)
        }
    }

    public func claimPendingRefund(id: String, at time: Date, cutoff: Date) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE refund SET claimed_at = ? WHERE id = ? AND state = 'pending' AND COALESCE(claimed_at, filed_at) <= ?
                    """, arguments: [time.timeIntervalSince1970, id, cutoff.timeIntervalSince1970])
            return db.changesCount == 1
        }
    }

    public func pendingRefunds() async throws -> [FiledRefund] {
        try await database.read { db in
            try StoredRefundRow.fetchAll(db, sql: "SELECT \(StoredRefundRow.columns) WHERE refund.state = 'pending' ORDER BY refund.sequence")
                .map { $0.refund(fallback: self.currency) }
        }
    }

    public func refunds(orderNumber: String) async throws -> [FiledRefund] {
        try await database.read { db in try self.refunds(orderNumber, in: db) }
    }

    func refunds(_ orderNumber: String, in db: Database) throws -> [FiledRefund] {
        try StoredRefundRow.fetchAll(
            db, sql: "SELECT \(StoredRefundRow.columns) WHERE refund.order_number = ? ORDER BY refund.sequence", arguments: [orderNumber]
        )
        .map { $0.refund(fallback: currency) }
    }

    /// The refund pending on an order, which holds every other change to it until it is settled.
    func pendingRefund(of orderNumber: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT id FROM refund WHERE order_number = ? AND state = 'pending'", arguments: [orderNumber])
    }

    private func existing(_ number: String, in db: Database) throws -> Order {
        guard let order = try order(number: number, in: db) else { throw OrderChangeError.notFound(number) }
        return order
    }

    /// One IMMEDIATE transaction, its errors as an order change's.
    func change<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(OrderChangeError) -> T {
        do {
            return try await database.pool.write(body)
        } catch let error as OrderChangeError {
            throw error
        } catch {
            throw .storage(SQLiteDatabaseError.from(error, path: database.path).description)
        }
    }
}

extension StoredRefundRow: FetchableRecord {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
}
