import Foundation
import ShopModels
import ShopPorts
import StorageRows
import Synchronization

/// Orders kept in memory, newest first, with no stock limits: for tests and the in-memory sandbox.
public final class InMemoryOrderRepository: OrderRepository {
    let orders = Mutex<[Order]>([])
    let keys = Mutex<[String: String]>([:])
    let history = Mutex<[String: [OrderEvent]]>([:])
    /// Every order's refunds, oldest first; taken inside `orders`'s lock, as one transaction with the order.
    let filedRefunds = Mutex<[FiledRefund]>([])
    /// When each pending refund was last taken by a recovery.
    let refundClaims = Mutex<[String: Date]>([:])
    /// Whom each order's messages go to, by order number.
    let recipients = Mutex<[String: MailAddress]>([:])
    /// The messages of the orders' changes, oldest first.
    let outbox = Mutex<[OutboxEntry]>([])

    public init(orders: [Order] = []) {
        self.orders.withLock { $0 = orders }
    }

    public func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date)
        throws(OrderRepositoryError) -> Order
    {
        if let number = keys.withLock({ $0[idempotencyKey] }), let existing = orders.withLock({ $0.first { $0.number == number } }) {
            return existing
        }
        let contact = draft.shippingContact
        let order = orders.withLock { all in
            // Built as the databases build it, from the same row.
            let order = StoredOrderRow(
                placing: draft, number: "SF-" + String(1_000_000 + all.count + 1).dropFirst(), idempotencyKey: idempotencyKey,
                paymentDescription: paymentDescription, placedAt: placedAt, currency: draft.totals.total.currency
            ).order(fallback: draft.totals.total.currency) { _ in draft.lines }
            all.insert(order, at: 0)
            return order
        }
        keys.withLock { $0[idempotencyKey] = order.number }
        history.withLock {
            $0[order.number] = [OrderEvent(at: placedAt, actor: .shopper(draft.customerID), change: .placed(total: draft.totals.total))]
        }
        if !contact.email.isEmpty { recipients.withLock { $0[order.number] = MailAddress(name: contact.name, address: contact.email) } }
        return order
    }

    public func finish(orderNumber: String, status: OrderStatus, failure: String?, at: Date) throws(OrderRepositoryError) {
        let settled = orders.withLock { all in
            guard let index = all.firstIndex(where: { $0.number == orderNumber }), all[index].status.isOpen else { return false }
            all[index].status = status
            return true
        }
        guard settled, let (actor, change) = OrderEventRecord.settlement(status, failure: failure) else { return }
        let sequence = history.withLock { history in
            history[orderNumber, default: []].append(OrderEvent(at: at, actor: actor, change: change))
            return history[orderNumber]?.count ?? 0
        }
        enqueue(change, of: orderNumber, eventSequence: sequence, at: at)
    }

    public func events(orderNumber: String) throws -> [OrderEvent] {
        history.withLock { $0[orderNumber] ?? [] }
    }

    public func apply(_ change: OrderChange, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        throws(OrderChangeError) -> Order
    {
        // One lock over both tables, as one transaction.
        let result: Result<Order, OrderChangeError> = orders.withLock { all in
            history.withLock { history in
                guard let index = all.firstIndex(where: { $0.number == number }) else { return .failure(.notFound(number)) }
                if let pending = filedRefunds.withLock({ $0.first { $0.orderNumber == number && $0.state == .pending } }) {
                    return .failure(.refundPending(pending.id))
                }
                do throws(OrderChangeError) {
                    let next = try OrderLifecycle.next(after: history[number] ?? [], status: all[index].status, applying: change, expecting: expected)
                    all[index].status = next.status
                    history[number, default: []].append(OrderEvent(at: at, actor: actor, change: change))
                    enqueue(change, of: number, eventSequence: history[number]?.count ?? 0, at: at)
                    return .success(all[index])
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }

    public func unsettledOrders() throws -> [UnsettledOrder] {
        let open = Dictionary(uniqueKeysWithValues: orders.withLock { $0.filter { $0.status.isOpen }.map { ($0.number, $0) } })
        return keys.withLock {
            $0.compactMap { key, number in
                open[number].map {
                    UnsettledOrder(
                        number: number, idempotencyKey: key, placedAt: $0.placedAt, total: $0.totals.total, customerID: $0.customerID,
                        status: $0.status)
                }
            }
        }
        .sorted { $0.number < $1.number }
    }

    /// Placed orders, and those whose payment is being checked: attempts that were declined or canceled are not the
    /// shopper's orders.
    private func placed(by customer: String?) -> [Order] {
        orders.withLock { $0.filter { $0.status.isShownToItsShopper && (customer == nil || $0.customerID == customer) } }
    }

    public func count(customer: String?) throws -> Int { placed(by: customer).count }

    public func orders(customer: String?, offset: Int, limit: Int) throws -> [Order] {
        let all = placed(by: customer)
        guard offset >= 0, offset < all.count, limit > 0 else { return [] }
        return Array(all[offset..<offset + min(all.count - offset, limit)])
    }

    public func order(number: String) throws -> Order? {
        orders.withLock { $0.first { $0.number == number } }
    }
}
