import Foundation
import Synchronization
import StoreClients
import StoreModels

/// Orders kept in memory, newest first; the durable store comes with SQLite.
public final class InMemoryOrderStore: OrderHistory {
    private let orders = Mutex<[Order]>([])

    public init(orders: [Order] = []) {
        self.orders.withLock { $0 = orders }
    }

    public func record(_ order: Order) {
        orders.withLock { $0.insert(order, at: 0) }
    }

    public func count() throws -> Int { orders.withLock { $0.count } }

    public func orders(offset: Int, limit: Int) throws -> [Order] {
        orders.withLock { all in
            guard offset >= 0, offset < all.count, limit > 0 else { return [] }
            return Array(all[offset..<min(all.count, offset + limit)])
        }
    }

    public func order(number: String) throws -> Order? {
        orders.withLock { $0.first { $0.number == number } }
    }
}

/// The sandbox merchant backend: charges through the sandbox processor and records paid orders.
public actor SandboxMerchantBackend: MerchantBackend {
    private let processor: SandboxProcessor
    private let orders: InMemoryOrderStore
    private let dates: DateSource
    private var confirmations: [String: OrderConfirmation] = [:]
    private var nextOrderNumber = 1

    public init(processor: SandboxProcessor, orders: InMemoryOrderStore, dates: DateSource) {
        self.processor = processor
        self.orders = orders
        self.dates = dates
    }

    public func processPayment(token: PaymentToken, order: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError) -> OrderConfirmation {
        if let done = confirmations[idempotencyKey] {
            guard done.total == order.totals.total else { throw .idempotencyMismatch }
            return done
        }
        let charge = try await processor.charge(tokenID: token.id, amount: order.totals.total, idempotencyKey: idempotencyKey)
        if let done = confirmations[idempotencyKey] { return done }
        if case .declines(let reason) = charge.outcome { throw .declined(reason) }
        let number = "SF-" + String(1_000_000 + nextOrderNumber).dropFirst()
        nextOrderNumber += 1
        let confirmation = OrderConfirmation(orderNumber: number, total: order.totals.total)
        confirmations[idempotencyKey] = confirmation
        let contact = order.shippingContact
        orders.record(Order(
            number: number, placedAt: dates.now(), lines: order.lines, totals: order.totals, status: .paid,
            paymentDescription: token.paymentMethod.shortName, shippingMethodLabel: order.shippingMethod.label,
            shipTo: "\(contact.name), \(contact.address.singleLine)"
        ))
        return confirmation
    }
}
