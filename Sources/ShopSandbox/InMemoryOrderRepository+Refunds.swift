import Foundation
import ShopModels
import ShopPorts
import StorageRows

/// Refunds kept in memory beside the orders, with no stock to put back: for tests and the in-memory sandbox.
extension InMemoryOrderRepository: RefundRepository {
    public func fileRefund(_ ask: RefundAsk, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        throws(OrderChangeError) -> FiledRefund
    {
        let result: Result<FiledRefund, OrderChangeError> = orders.withLock { all in
            filedRefunds.withLock { refunds in
                guard let order = all.first(where: { $0.number == number }) else { return .failure(.notFound(number)) }
                let chargeKey = keys.withLock { $0.first { $0.value == number }?.key } ?? number
                do throws(OrderChangeError) {
                    let earlier = refunds.filter { $0.orderNumber == number }
                    _ = try FiledRefund.admit(ask, to: order, events: history.withLock { $0[number] ?? [] }, earlier: earlier, expecting: expected)
                    let filed = FiledRefund(
                        id: StoredRefundRow.id(sequence: refunds.count + 1), orderNumber: number, chargeKey: chargeKey, ask: ask, actor: actor,
                        filedAt: at, state: .pending
                    )
                    refunds.append(filed)
                    return .success(filed)
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }

    public func settleRefund(id: String, as state: RefundState, at: Date) throws(OrderChangeError) -> Order {
        let result: Result<Order, OrderChangeError> = orders.withLock { all in
            filedRefunds.withLock { refunds in
                history.withLock { history in
                    guard let position = refunds.firstIndex(where: { $0.id == id }),
                        let index = all.firstIndex(where: { $0.number == refunds[position].orderNumber })
                    else { return .failure(.notFound(id)) }
                    let refund = refunds[position]
                    guard refund.state == .pending, state != .pending else { return .success(all[index]) }
                    if case .refunded = state {
                        do throws(OrderChangeError) {
                            let next = try OrderLifecycle.next(
                                after: history[refund.orderNumber] ?? [], status: all[index].status, applying: refund.ask.change, expecting: nil)
                            all[index].status = next.status
                            history[refund.orderNumber, default: []].append(OrderEvent(at: at, actor: refund.actor, change: refund.ask.change))
                            enqueue(refund.ask.change, of: refund.orderNumber, eventSequence: history[refund.orderNumber]?.count ?? 0, at: at)
                        } catch {
                            return .failure(error)
                        }
                    }
                    refunds[position].state = state
                    return .success(all[index])
                }
            }
        }
        return try result.get()
    }

    public func recordProviderRefund(_ amount: Money, reference: String, toOrder number: String, at: Date) throws(OrderChangeError) -> Order? {
        let result: Result<Order?, OrderChangeError> = orders.withLock { all in
            filedRefunds.withLock { refunds in
                history.withLock { history in
                    guard !refunds.contains(where: { $0.state == .refunded(reference: reference) }) else { return .success(nil) }
                    guard let index = all.firstIndex(where: { $0.number == number }) else { return .failure(.notFound(number)) }
                    let ask = RefundAsk(amount: amount, reason: RefundAsk.madeAtProviderReason)
                    do throws(OrderChangeError) {
                        let next = try OrderLifecycle.next(
                            after: history[number] ?? [], status: all[index].status, applying: ask.change, expecting: nil)
                        all[index].status = next.status
                        history[number, default: []].append(OrderEvent(at: at, actor: .provider, change: ask.change))
                        enqueue(ask.change, of: number, eventSequence: history[number]?.count ?? 0, at: at)
                    } catch {
                        return .failure(error)
                    }
                    let chargeKey = keys.withLock { $0.first { $0.value == number }?.key } ?? number
                    refunds.append(
                        FiledRefund(
                            id: StoredRefundRow.id(sequence: refunds.count + 1), orderNumber: number, chargeKey: chargeKey, ask: ask,
                            actor: .provider,
                            filedAt: at, state: .refunded(reference: reference)
                        ))
                    return .success(all[index])
                }
            }
        }
        return try result.get()
    }

    public func pendingRefunds() -> [FiledRefund] { filedRefunds.withLock { $0.filter { $0.state == .pending } } }

    public func claimPendingRefund(id: String, at time: Date, cutoff: Date) -> Bool {
        filedRefunds.withLock { all in
            refundClaims.withLock { claims in
                guard let filed = all.first(where: { $0.id == id }), filed.state == .pending, (claims[id] ?? filed.filedAt) <= cutoff else {
                    return false
                }
                claims[id] = time
                return true
            }
        }
    }

    public func refunds(orderNumber: String) -> [FiledRefund] { filedRefunds.withLock { $0.filter { $0.orderNumber == orderNumber } } }
}
