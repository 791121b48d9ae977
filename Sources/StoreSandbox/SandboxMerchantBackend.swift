import Foundation
import Synchronization
import StoreClients
import StoreModels

/// Orders kept in memory, newest first, with no stock limits: for tests and the in-memory sandbox.
public final class InMemoryOrderStore: OrderStore {
    private let orders = Mutex<[Order]>([])
    private let keys = Mutex<[String: String]>([:])

    public init(orders: [Order] = []) {
        self.orders.withLock { $0 = orders }
    }

    public func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date) throws(OrderStoreError) -> Order {
        if let number = keys.withLock({ $0[idempotencyKey] }), let existing = orders.withLock({ $0.first { $0.number == number } }) {
            return existing
        }
        let contact = draft.shippingContact
        let order = orders.withLock { all in
            let order = Order(
                number: "SF-" + String(1_000_000 + all.count + 1).dropFirst(), placedAt: placedAt, lines: draft.lines,
                totals: draft.totals, status: .charging, paymentDescription: paymentDescription,
                shippingMethodLabel: draft.shippingMethod.label, shipTo: "\(contact.name), \(contact.address.singleLine)",
                customerID: draft.customerID
            )
            all.insert(order, at: 0)
            return order
        }
        keys.withLock { $0[idempotencyKey] = order.number }
        return order
    }

    public func finish(orderNumber: String, status: OrderStatus, failure: String?) throws(OrderStoreError) {
        orders.withLock { all in
            if let index = all.firstIndex(where: { $0.number == orderNumber }) { all[index].status = status }
        }
    }

    public func unsettledOrders() throws -> [UnsettledOrder] {
        let placed = Dictionary(uniqueKeysWithValues: orders.withLock { $0.filter { $0.status.isOpen }.map { ($0.number, $0.placedAt) } })
        return keys.withLock { $0.compactMap { key, number in placed[number].map { UnsettledOrder(number: number, idempotencyKey: key, placedAt: $0) } } }
            .sorted { $0.number < $1.number }
    }

    /// Placed orders only: attempts that were declined or canceled are not the shopper's orders.
    private func placed(by customer: String?) -> [Order] {
        orders.withLock { $0.filter { $0.status == .paid && (customer == nil || $0.customerID == customer) } }
    }

    public func count(customer: String?) throws -> Int { placed(by: customer).count }

    public func orders(customer: String?, offset: Int, limit: Int) throws -> [Order] {
        let all = placed(by: customer)
        guard offset >= 0, offset < all.count, limit > 0 else { return [] }
        return Array(all[offset..<min(all.count, offset + limit)])
    }

    public func order(number: String) throws -> Order? {
        orders.withLock { $0.first { $0.number == number } }
    }
}

/// The sandbox merchant backend: starts the order (reserving stock), charges through the sandbox
/// processor, and settles the order. The same idempotency key never charges twice.
public actor SandboxMerchantBackend: MerchantBackend {
    /// The steps between which a process can die; fault tests stop the process at each.
    public enum Step: String, Sendable, CaseIterable {
        case afterReserving = "after-reserving"
        case afterCharging = "after-charging"
        case afterRecording = "after-recording"
    }

    private let processor: SandboxProcessor
    private let orders: any OrderStore
    private let dates: DateSource
    private let reached: @Sendable (Step) -> Void

    /// `reached` is called as each step completes; the shop passes a no-op, fault tests a kill.
    public init(processor: SandboxProcessor, orders: any OrderStore, dates: DateSource, reached: @escaping @Sendable (Step) -> Void = { _ in }) {
        self.processor = processor
        self.orders = orders
        self.dates = dates
        self.reached = reached
    }

    public func processPayment(token: PaymentToken, order draft: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError) -> OrderConfirmation {
        let order: Order
        do {
            order = try orders.begin(draft, idempotencyKey: idempotencyKey, tokenID: token.id, paymentDescription: token.paymentMethod.shortName, placedAt: dates.now())
        } catch {
            throw Self.backendError(error)
        }
        reached(.afterReserving)
        if order.totals.total != draft.totals.total { throw .idempotencyMismatch }
        switch order.status {
        case .paid: return OrderConfirmation(orderNumber: order.number, total: order.totals.total)
        case .declined, .canceled:
            // The same key gives the first result: the reason the provider filed, when it filed one.
            if case .declined(let reason)? = try? processor.ledger.charge(forKey: idempotencyKey)?.outcome { throw .declined(reason) }
            throw .declined(.generic)
        default: break
        }
        let charge: SandboxProcessor.Charge
        do {
            charge = try await processor.charge(tokenID: token.id, amount: draft.totals.total, idempotencyKey: idempotencyKey)
        } catch .timedOut {
            // The charge may or may not have happened: the order stays open and a retry with the same key settles it.
            try? orders.finish(orderNumber: order.number, status: .unknown, failure: nil)
            throw .timedOut
        } catch {
            try? orders.finish(orderNumber: order.number, status: .canceled, failure: "\(error)")
            throw error
        }
        reached(.afterCharging)
        do {
            if case .declines(let reason) = charge.outcome {
                try orders.finish(orderNumber: order.number, status: .declined, failure: reason.message)
                throw MerchantBackendError.declined(reason)
            }
            try orders.finish(orderNumber: order.number, status: .paid, failure: nil)
            reached(.afterRecording)
        } catch let error as MerchantBackendError {
            throw error
        } catch {
            throw Self.backendError(error)
        }
        return OrderConfirmation(orderNumber: order.number, total: order.totals.total)
    }

    /// Settles orders left open by a stop or an unanswered charge, from the provider's records:
    /// charged means paid, declined means declined, no record means it was never charged (canceled,
    /// stock released). Returns the orders settled. Run at start, before any shopper pays.
    ///
    /// Only orders open for longer than `minimumAge` are touched: another process sharing the
    /// database may be in the middle of charging a younger one. An older one may still be charged
    /// too (its process was stopped, not killed), so "never charged" is a claim, not a guess: a void
    /// is filed under the order's idempotency key first, and the ledger keeps the first record for
    /// a key. Either the void wins, and the late charge gets the void instead of money, or the
    /// charge won, and the order is settled as paid. Never both.
    @discardableResult
    nonisolated public func reconcile(minimumAge: Duration = .seconds(120)) throws -> [(number: String, status: OrderStatus)] {
        var settled: [(String, OrderStatus)] = []
        // An age of zero settles every open order, whatever the wall clock says about when it was
        // placed (a clock stepped back would otherwise make a just-placed order look younger than zero).
        let cutoff = minimumAge <= .zero ? Date.distantFuture : dates.now().addingTimeInterval(-Double(minimumAge.components.seconds))
        for order in try orders.unsettledOrders() where order.placedAt <= cutoff {
            let status: OrderStatus
            var failure: String?
            var outcome = try processor.ledger.charge(forKey: order.idempotencyKey)?.outcome
            if outcome == nil {
                let total = (try orders.order(number: order.number))?.totals.total ?? .zero(.usd)
                let void = LedgerCharge(key: order.idempotencyKey, tokenID: "void", amount: total, outcome: .declined(.voided))
                outcome = try processor.ledger.record(void).outcome
            }
            switch outcome {
            case .succeeded?: status = .paid
            case .declined(.voided)?, nil: status = .canceled; failure = "never charged"
            case .declined(let reason)?: status = .declined; failure = reason.message
            }
            try orders.finish(orderNumber: order.number, status: status, failure: failure)
            settled.append((order.number, status))
        }
        return settled
    }

    private static func backendError(_ error: any Error) -> MerchantBackendError {
        switch error as? OrderStoreError {
        case .soldOut(let name, let available): .soldOut(productName: name, available: available)
        case .idempotencyMismatch: .idempotencyMismatch
        case .storage(let why): .unavailable(why)
        case nil: .unavailable("\(error)")
        }
    }
}
