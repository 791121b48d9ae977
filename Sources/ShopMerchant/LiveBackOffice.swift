import Foundation
import ShopModels
import ShopPorts

/// The back office the shop runs on, whatever the provider and the database.
///
/// Order of calls per refund (and cancel): `fileRefund` (pending; the lifecycle refuses what may not follow, and a
/// second refund of the order while one is pending) → `processor.refund` under the refund's own key →
/// `settleRefund` (the change, its event and the restock, in one transaction). A refund left pending by a crash or a
/// lost answer is asked for again by `finishPendingRefunds`, with the same key: it is refunded once.
public struct LiveBackOffice: BackOffice {
    /// The steps between which a process can die; fault tests stop the process at each.
    public enum Step: String, Sendable, CaseIterable {
        case afterFilingRefund = "after-filing-refund"
        case afterRefunding = "after-refunding"
    }

    public typealias Orders = OrderRepository & RefundRepository
    private let orders: any Orders
    private let processor: any RefundProcessor
    private let dates: DateSource
    private let reached: @Sendable (Step) -> Void

    /// `reached` is called as each step completes; the shop passes a no-op, fault tests a kill.
    public init(orders: any Orders, processor: any RefundProcessor, dates: DateSource, reached: @escaping @Sendable (Step) -> Void = { _ in }) {
        self.orders = orders
        self.processor = processor
        self.dates = dates
        self.reached = reached
    }

    public func ship(_ number: String, _ parcel: Shipment, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order {
        try await apply(.shipped(parcel), number, actor, expected)
    }

    public func markDelivered(_ number: String, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order {
        try await apply(.delivered, number, actor, expected)
    }

    public func refund(_ number: String, _ ask: RefundAsk, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order {
        let filed: FiledRefund
        do { filed = try await orders.fileRefund(ask, toOrder: number, by: actor, at: dates.now(), expecting: expected) } catch { throw .change(error) }
        reached(.afterFilingRefund)
        return try await send(filed)
    }

    public func cancel(_ number: String, reason: String, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order {
        let dossier = try await dossier(number)
        guard let lifecycle = dossier.lifecycle else { throw .change(.refused(.noPlacement)) }
        let restock = dossier.restockable.sorted { $0.key < $1.key }.map { Restock(productID: $0.key, quantity: $0.value) }
        let ask = RefundAsk(kind: .cancel, amount: lifecycle.refundable, restock: restock, reason: reason)
        return try await refund(number, ask, by: actor, expecting: expected ?? dossier.order.status)
    }

    public func finishPendingRefunds() async throws -> [RefundRecovery] {
        var recoveries: [RefundRecovery] = []
        for filed in try await orders.pendingRefunds() {
            do {
                _ = try await send(filed)
                recoveries.append(RefundRecovery(refundID: filed.id, orderNumber: filed.orderNumber, failure: nil))
            } catch {
                recoveries.append(RefundRecovery(refundID: filed.id, orderNumber: filed.orderNumber, failure: error))
            }
        }
        return recoveries
    }

    public func dossier(_ number: String) async throws(BackOfficeError) -> OrderDossier {
        do {
            guard let order = try await orders.order(number: number) else { throw BackOfficeError.change(.notFound(number)) }
            return OrderDossier(order: order, events: try await orders.events(orderNumber: number), refunds: try await orders.refunds(orderNumber: number))
        } catch let error as BackOfficeError {
            throw error
        } catch {
            throw .change(.storage("\(error)"))
        }
    }

    /// Asks the provider for a filed refund and settles it by the answer; an unanswered one stays pending.
    private func send(_ filed: FiledRefund) async throws(BackOfficeError) -> Order {
        let reference: String
        do {
            reference = try await processor.refund(RefundRequest(filed))
        } catch {
            switch error {
            case .declined(let why), .unreachable(let why):
                // Nothing was refunded: the refund is closed so the order can change again, and says why.
                _ = try? await orders.settleRefund(id: filed.id, as: .declined(reason: why), at: dates.now())
            case .unanswered:
                break
            }
            throw .refund(error)
        }
        reached(.afterRefunding)
        do { return try await orders.settleRefund(id: filed.id, as: .refunded(reference: reference), at: dates.now()) } catch { throw .change(error) }
    }

    private func apply(_ change: OrderChange, _ number: String, _ actor: OrderActor, _ expected: OrderStatus?) async throws(BackOfficeError) -> Order {
        do { return try await orders.apply(change, toOrder: number, by: actor, at: dates.now(), expecting: expected) } catch { throw .change(error) }
    }
}
