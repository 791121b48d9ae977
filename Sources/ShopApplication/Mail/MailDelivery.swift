import Foundation
import ShopMetrics
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
    let transport: any MailTransport
    let shop: ShopProfile
    let sender: MailSender
    let dates: DateSource
    private let giveUpAfter: Duration
    private let firstBackoff: Int
    let reached: @Sendable (Step) -> Void
    /// The subscriptions' messages, sent in the same passes; nil where the shop keeps none.
    let subscriptionMail: SubscriptionMailSource?
    /// Reads the shop's clock again before each pass: a message written at a moved clock's time is due at that time.
    private let readTheClock: @Sendable () async -> Void
    /// The link to an order's status page a receipt carries; nil where the shop has no web front to open it.
    private let statusLink: (@Sendable (Order) -> String)?
    /// Each of an order's lines' picture addresses, for its receipt; nil where the shop has no web front to serve them.
    private let linePictures: (@Sendable (Order) async -> [String?])?

    public init(
        outbox: any MailOutbox, orders: any OrderHistory, transport: any MailTransport, shop: ShopProfile, sender: MailSender,
        dates: DateSource, giveUpAfter: Duration = .seconds(3 * 86_400), firstBackoffSeconds: Int = 30,
        subscriptionMail: SubscriptionMailSource? = nil, readTheClock: @escaping @Sendable () async -> Void = {},
        statusLink: (@Sendable (Order) -> String)? = nil, linePictures: (@Sendable (Order) async -> [String?])? = nil,
        reached: @escaping @Sendable (Step) -> Void = { _ in }
    ) {
        self.statusLink = statusLink
        self.linePictures = linePictures
        self.subscriptionMail = subscriptionMail
        self.readTheClock = readTheClock
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
        await readTheClock()
        var pass = Pass()
        for entry in try await outbox.due(at: dates.now(), limit: limit) {
            let failure: String
            do {
                guard let order = try await orders.order(number: entry.orderNumber) else {
                    throw MailTransportError("order \(entry.orderNumber) is gone")
                }
                let message = OrderMail.compose(
                    entry, order: order, events: try await orders.events(orderNumber: entry.orderNumber), shop: shop, sender: sender,
                    statusLink: statusLink?(order), linePictures: entry.kind == .receipt ? await linePictures?(order) ?? [] : [])
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
            try await failed(entry.id, failure, createdAt: entry.createdAt, attempts: entry.attempts, into: &pass) { attempt, now in
                try await outbox.record(attempt, for: entry.id, at: now)
            }
        }
        if let subscriptionMail { try await deliverDue(subscriptionMail, limit: limit, into: &pass) }
        ShopMetrics.count(ShopMetrics.mailSent, by: Int64(pass.sent.count))
        ShopMetrics.count(ShopMetrics.mailFailures, by: Int64(pass.retried.count + pass.gaveUp.count))
        // The order messages' backlog; a subscription's message is kept with its subscription.
        let backlog = try await outbox.backlog()
        ShopMetrics.gauge(ShopMetrics.mailPending, [], Double(backlog.pending))
        ShopMetrics.gauge(ShopMetrics.mailOldestPending, [], backlog.oldest.map { max(0, dates.now().timeIntervalSince($0)) } ?? 0)
        return pass
    }

    /// Records a message that was not sent: tried again after a backoff, or given up on once it is `giveUpAfter` old.
    func failed(
        _ id: String, _ failure: String, createdAt: Date, attempts: Int, into pass: inout Pass,
        record: (OutboxAttempt, Date) async throws -> Void
    ) async throws {
        let now = dates.now()
        if now.timeIntervalSince(createdAt) >= Double(giveUpAfter.components.seconds) {
            try await record(.gaveUp(error: failure), now)
            pass.gaveUp[id] = failure
        } else {
            let wait = Double(RetrySchedule.backoff(afterAttempts: attempts, first: firstBackoff).components.seconds)
            try await record(.retry(next: now.addingTimeInterval(wait), error: failure), now)
            pass.retried[id] = failure
        }
    }
}
