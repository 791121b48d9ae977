import Foundation
import ShopModels
import ShopPorts

/// Sends the outbox's due messages: each composed from its order, handed to the mail command, and recorded.
///
/// Order of calls per message: `outbox.due` → the order and its history → `OrderMail.compose` → `transport.send`
/// → `outbox.record`. A process killed between sending and recording sends that message again on the next pass,
/// with the same Message-ID: at most one duplicate, never a loss.
public struct MailDelivery: Sendable {
    /// The steps between which a process can die; fault tests stop the worker there.
    public enum Step: String, Sendable, CaseIterable {
        case afterSending = "after-sending"
    }

    private let outbox: any MailOutbox
    private let orders: any OrderHistory
    private let transport: any MailTransport
    private let shop: ShopProfile
    private let sender: MailSender
    private let dates: DateSource
    private let giveUpAfter: Duration
    private let firstBackoff: Int
    private let reached: @Sendable (Step) -> Void

    public init(
        outbox: any MailOutbox, orders: any OrderHistory, transport: any MailTransport, shop: ShopProfile, sender: MailSender,
        dates: DateSource, giveUpAfter: Duration = .seconds(3 * 86_400), firstBackoffSeconds: Int = 30,
        reached: @escaping @Sendable (Step) -> Void = { _ in }
    ) {
        self.firstBackoff = firstBackoffSeconds
        self.outbox = outbox
        self.orders = orders
        self.transport = transport
        self.shop = shop
        self.sender = sender
        self.dates = dates
        self.giveUpAfter = giveUpAfter
        self.reached = reached
    }

    /// What one pass over the due messages did.
    public struct Pass: Hashable, Sendable {
        public var sent: [String] = []
        /// Messages that failed this time, with why; tried again later.
        public var retried: [String: String] = [:]
        /// Messages given up on, with why.
        public var gaveUp: [String: String] = [:]

        public init() {}

        /// "sent ID" for each message that went.
        public var sentLines: [String] { sent.map { "sent \($0)" } }

        /// One line for each message not sent: tried again later, or given up, with why.
        public var problemLines: [String] {
            retried.sorted { $0.key < $1.key }.map { "\($0.key) not sent, tried again later: \($0.value)" }
                + gaveUp.sorted { $0.key < $1.key }.map { "\($0.key) given up: \($0.value)" }
        }
    }

    /// Sends every message due now, at most `limit`.
    public func deliverDue(limit: Int = 100) async throws -> Pass {
        var pass = Pass()
        for entry in try await outbox.due(at: dates.now(), limit: limit) {
            let failure: String
            do {
                guard let order = try await orders.order(number: entry.orderNumber) else {
                    throw MailTransportError("order \(entry.orderNumber) is gone")
                }
                let message = OrderMail.compose(
                    entry, order: order, events: try await orders.events(orderNumber: entry.orderNumber), shop: shop, sender: sender)
                try await transport.send(message)
                reached(.afterSending)
                try await outbox.record(.sent, for: entry.id, at: dates.now())
                pass.sent.append(entry.id)
                continue
            } catch let error as MailTransportError {
                failure = error.description
            } catch {
                failure = "\(error)"
            }
            let now = dates.now()
            if now.timeIntervalSince(entry.createdAt) >= Double(giveUpAfter.components.seconds) {
                try await outbox.record(.gaveUp(error: failure), for: entry.id, at: now)
                pass.gaveUp[entry.id] = failure
            } else {
                let wait = Double(RetrySchedule.backoff(afterAttempts: entry.attempts, first: firstBackoff).components.seconds)
                try await outbox.record(.retry(next: now.addingTimeInterval(wait), error: failure), for: entry.id, at: now)
                pass.retried[entry.id] = failure
            }
        }
        return pass
    }
}
