import Foundation
import ShopModels
import ShopPorts

/// The outbox beside the orders kept in memory: a message for each change that calls for one.
extension InMemoryOrderRepository: MailOutbox {
    /// Writes the message `change` calls for, if any, for an order with an email.
    func enqueue(_ change: OrderChange, of orderNumber: String, eventSequence: Int, at: Date) {
        guard let kind = OutboxKind(change), let recipient = recipients.withLock({ $0[orderNumber] }) else { return }
        outbox.withLock { all in
            let id = OutboxEntry.id(sequence: all.count + 1)
            all.append(
                OutboxEntry(
                    id: id, orderNumber: orderNumber, kind: kind, eventSequence: eventSequence, recipient: recipient,
                    messageID: OutboxEntry.messageID(id: id, orderNumber: orderNumber, installID: "memory"), createdAt: at, nextAttemptAt: at
                ))
        }
    }

    public func due(at now: Date, limit: Int) -> [OutboxEntry] {
        Array(outbox.withLock { $0.filter { $0.state == .pending && $0.nextAttemptAt <= now } }.prefix(limit))
    }

    public func record(_ attempt: OutboxAttempt, for id: String, at: Date) {
        outbox.withLock { all in
            guard let index = all.firstIndex(where: { $0.id == id }), all[index].state == .pending else { return }
            all[index].attempts += 1
            switch attempt {
            case .sent:
                all[index].state = .sent(at: at)
                all[index].lastError = nil
            case .retry(let next, let error):
                all[index].nextAttemptAt = next
                all[index].lastError = error
            case .gaveUp(let error):
                all[index].state = .failed
                all[index].lastError = error
            }
        }
    }

    public func entries(limit: Int) -> [OutboxEntry] { Array(outbox.withLock { $0.reversed() }.prefix(limit)) }

    public func entries(orderNumber: String) -> [OutboxEntry] { outbox.withLock { $0.filter { $0.orderNumber == orderNumber } } }

    public func entry(id: String) -> OutboxEntry? { outbox.withLock { $0.first { $0.id == id } } }
}
