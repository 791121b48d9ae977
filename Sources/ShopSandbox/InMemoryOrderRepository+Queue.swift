import Foundation
import ShopModels
import ShopPorts

/// The merchant's queue over the orders kept in memory.
extension InMemoryOrderRepository: OrderQueue {
    public func count(statuses: [OrderStatus], disputedOnly: Bool) -> Int {
        matching(statuses, disputedOnly).count
    }

    public func orders(statuses: [OrderStatus], disputedOnly: Bool, offset: Int, limit: Int) -> [Order] {
        let matching = matching(statuses, disputedOnly)
        guard offset >= 0, offset < matching.count, limit > 0 else { return [] }
        return Array(matching[offset..<offset + min(matching.count - offset, limit)])
    }

    private func matching(_ statuses: [OrderStatus], _ disputedOnly: Bool) -> [Order] {
        let disputed =
            disputedOnly
            ? Set(history.withLock { $0.filter { $0.value.contains { if case .disputed = $0.change { true } else { false } } }.keys }) : []
        // Kept newest first: the queue reads them the other way.
        return orders.withLock { $0.reversed().filter { statuses.contains($0.status) && (!disputedOnly || disputed.contains($0.number)) } }
    }

    public func sales(from start: Date, to end: Date, currency: Currency) -> SalesFigures {
        let paid = orders.withLock {
            $0.filter { $0.status.wasCharged && $0.placedAt >= start && $0.placedAt < end && $0.totals.total.currency == currency }
        }
        let events = history.withLock { $0.values.flatMap { $0 } }
        let refunded = events.filter { $0.at >= start && $0.at < end }.compactMap { event -> Money? in
            if case .refunded(let amount, _) = event.change, amount.currency == currency { return amount }
            return nil
        }
        // A cancel gives back what was left: its refund's amount.
        let canceled = filedRefunds.withLock {
            $0.filter { $0.ask.kind == .cancel && $0.state.name == "refunded" && $0.filedAt >= start && $0.filedAt < end }.map(\.ask.amount)
        }
        return SalesFigures(
            orders: paid.count, revenue: paid.reduce(.zero(currency)) { $0 + $1.totals.total },
            refunds: (refunded + canceled).reduce(.zero(currency), +)
        )
    }
}
