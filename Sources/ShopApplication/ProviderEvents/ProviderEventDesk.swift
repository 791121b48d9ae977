import Foundation
import ShopModels
import ShopPorts

/// Hears the payment provider: each signed event is checked and kept at once, then applied to its order once and
/// logged, so the provider is answered before any of the shop's slower work (Stripe stops retrying at the first 2xx).
///
/// Order of calls per delivery: `receive` → `webhook.verify` (a refusal changes nothing) → `events.handledEvent` (a
/// redelivery is acknowledged and not applied again) → `events.keep` → the provider is answered. Then, in a worker:
/// `processDue` → `events.claimDue` → `webhook.notice` (the provider's records now) → the order's change →
/// `events.recordEvent` → `events.logged`. Every change is itself safe to make twice (a settled order stays settled, a
/// refund is recorded once per provider id, a dispute once per dispute id), so a crash between the change and the
/// log, or two workers on one event, still change the order once.
public struct ProviderEventDesk: Sendable {
    /// What a delivery came to, and what the provider is answered.
    public enum Reply: Hashable, Sendable {
        /// Kept, to be applied next.
        case accepted(ProviderEventHeader)
        /// Handled or kept before: acknowledged, nothing done.
        case duplicate(ProviderEventHeader)
        /// A bad or stale signature, or not an event: nothing done, never retried by the provider to any effect.
        case refused(WebhookRefusal)
        /// The shop's records could not be written: nothing kept, so the provider's next delivery tries again.
        case retryLater(ProviderEventHeader, reason: String)

        /// The HTTP status the provider gets: 2xx stops its retries, 400 says the request was bad, 503 asks again.
        public var httpStatus: Int {
            switch self {
            case .accepted, .duplicate: 200
            case .refused: 400
            case .retryLater: 503
            }
        }

        /// One line for the log: the event and what became of it.
        public var logLine: String {
            switch self {
            case .accepted(let event): "\(event.type) \(event.id): kept, to be applied"
            case .duplicate(let event): "\(event.type) \(event.id): received before, acknowledged again"
            case .refused(let refusal): "refused: \(refusal)"
            case .retryLater(let event, let reason): "\(event.type) \(event.id): not kept, the provider will send it again: \(reason)"
            }
        }
    }

    /// What one try at a kept event came to.
    public enum Outcome: Hashable, Sendable {
        /// Applied (or nothing to do, or an event that can never be read), with what was done; logged as handled.
        case applied(ProviderEventHeader, orderNumber: String?, outcome: String)
        /// Not applied: the provider's records or the shop's own could not be read or written. Tried again at `next`.
        case postponed(ProviderEventHeader, reason: String, next: Date)
        /// Not applied for `giveUpAfter`: kept as failed until the provider delivers it again.
        case gaveUp(ProviderEventHeader, reason: String)

        /// One line for the log: the event, its order and what was done.
        public var logLine: String {
            switch self {
            case .applied(let event, let number, let outcome): "\(event.type) \(event.id)" + (number.map { " for \($0)" } ?? "") + ": \(outcome)"
            case .postponed(let event, let reason, let next):
                "\(event.type) \(event.id): not applied, tried again at \(UTCTime(next).iso8601): \(reason)"
            case .gaveUp(let event, let reason): "\(event.type) \(event.id): given up, applied again only when the provider resends it: \(reason)"
            }
        }
    }

    public typealias Orders = OrderRepository & RefundRepository
    /// How long a worker holds an event it claimed from the others: longer than the provider's slowest answers.
    public static let claimHold = Duration.seconds(300)
    private let webhook: any ProviderWebhook
    private let events: any ProviderEvents
    private let backend: LiveMerchantBackend
    private let orders: any Orders
    private let dates: DateSource
    private let wallets: (any WalletRepository)?
    private let giveUpAfter: Duration
    private let firstBackoffSeconds: Int

    /// `wallets` keeps the cards shoppers finish adding on the provider's page; without it such events are only
    /// logged. An event not applied is tried again after `firstBackoffSeconds`, doubling to an hour, for `giveUpAfter`
    /// (Stripe's own retries last three days).
    public init(
        webhook: any ProviderWebhook, events: any ProviderEvents, backend: LiveMerchantBackend, orders: any Orders, dates: DateSource,
        wallets: (any WalletRepository)? = nil, giveUpAfter: Duration = .seconds(3 * 86_400), firstBackoffSeconds: Int = 30
    ) {
        self.wallets = wallets
        self.webhook = webhook
        self.events = events
        self.backend = backend
        self.orders = orders
        self.dates = dates
        self.giveUpAfter = giveUpAfter
        self.firstBackoffSeconds = firstBackoffSeconds
    }

    /// Checks and keeps one delivery of `payload` signed by `signature`; what the provider is answered.
    public func receive(payload: [UInt8], signature: String?) async -> Reply {
        let header: ProviderEventHeader
        do {
            header = try webhook.verify(payload: payload, signature: signature, now: dates.now())
        } catch {
            return .refused(error)
        }
        do {
            if try await events.handledEvent(header.id, provider: webhook.provider) { return .duplicate(header) }
            let kept = try await events.keep(
                WaitingProviderEvent(provider: webhook.provider, header: header, payload: payload, receivedAt: dates.now()))
            return kept ? .accepted(header) : .duplicate(header)
        } catch {
            return .retryLater(header, reason: "\(error)")
        }
    }

    /// Applies the kept events due now, at most `limit`, oldest first, telling `each` what became of each as it
    /// happens; throws only when the inbox cannot be read or written.
    @discardableResult
    public func processDue(limit: Int = 50, each: (Outcome) -> Void = { _ in }) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        for event in try await events.claimDue(at: dates.now(), hold: Self.claimHold, limit: limit) {
            let outcome = try await process(event)
            each(outcome)
            outcomes.append(outcome)
        }
        return outcomes
    }

    private func process(_ event: WaitingProviderEvent) async throws -> Outcome {
        let (header, provider) = (event.header, event.provider)
        do {
            // Logged but not yet dropped when a worker stopped between the two.
            if try await events.handledEvent(header.id, provider: provider) {
                try await events.logged(header.id, provider: provider)
                return .applied(header, orderNumber: nil, outcome: "handled before")
            }
            let (number, outcome): (String?, String)
            do {
                (number, outcome) = try await apply(try await webhook.notice(for: event.payload))
            } catch let refusal as WebhookRefusal {
                // Signed, but it will never read better: logged, never tried again.
                (number, outcome) = (nil, "refused: \(refusal)")
            }
            try await events.recordEvent(header, provider: provider, orderNumber: number, outcome: outcome, at: dates.now())
            try await events.logged(header.id, provider: provider)
            return .applied(header, orderNumber: number, outcome: outcome)
        } catch is CancellationError {
            // Stopping: the claim runs out and another pass takes the event.
            throw CancellationError()
        } catch {
            let now = dates.now()
            let reason = "\(error)"
            if now.timeIntervalSince(event.receivedAt) >= Double(giveUpAfter.components.seconds) {
                try await events.setBack(header.id, provider: provider, .gaveUp(error: reason))
                return .gaveUp(header, reason: reason)
            }
            let next = now.addingTimeInterval(
                Double(RetrySchedule.backoff(afterAttempts: event.attempts, first: firstBackoffSeconds).components.seconds))
            try await events.setBack(header.id, provider: provider, .retry(next: next, error: reason))
            return .postponed(header, reason: reason, next: next)
        }
    }

    /// Makes the change `notice` calls for; returns the order and what was done.
    private func apply(_ notice: ProviderNotice) async throws -> (String?, String) {
        switch notice {
        case .ignored(let why):
            return (nil, "ignored: \(why)")
        case .chargeEnded(let number):
            guard let status = try await backend.settleFromProvider(orderNumber: number) else { return (number, "settled already") }
            return (number, status.isOpen ? "still open: the provider has not decided" : "settled as \(status.rawValue)")
        case .refunds(let number, let refunds):
            // A refund of an order whose charge is still open means the charge went through: settle it first.
            _ = try await backend.settleFromProvider(orderNumber: number)
            return (number, try await record(refunds, of: number))
        case .cardSaved(let customer, let card):
            // A guest keeps nothing, and a shop without a wallet store has nowhere to put it.
            guard let wallets, !customer.hasPrefix("ssh-guest:"), !customer.hasPrefix("web-guest:") else {
                return (nil, "ignored: card \(card.id) of a guest")
            }
            let wallet = try await wallets.wallet(forCustomer: customer)
            guard !wallet.cards.contains(where: { $0.id == card.id }) else { return (nil, "card \(card.id) saved already") }
            try await wallets.addCard(card, forCustomer: customer, makeDefault: wallet.cards.isEmpty)
            return (nil, "card \(card.id) (\(card.network.displayName) ••\(card.lastFour)) saved for \(customer)")
        case .disputeClosed(let number, let amount, let reason, let reference, let outcome):
            let events = try await orders.events(orderNumber: number)
            let known = events.contains { if case .disputeClosed(reference, _) = $0.change { true } else { false } }
            guard !known else { return (number, "dispute \(reference) closed already") }
            // Stripe does not keep its events in order: an end heard first records the dispute's start from it too.
            var opened = ""
            if !events.contains(where: { if case .disputed(_, _, reference) = $0.change { true } else { false } }) {
                opened = try await recordDispute(number, amount, reason, reference) + "; "
            }
            return (
                number,
                try await refusalAsOutcome(opened + "dispute \(reference) closed: \(outcome)") {
                    _ = try await orders.apply(
                        .disputeClosed(reference: reference, outcome: outcome), toOrder: number, by: .provider, at: dates.now(), expecting: nil)
                }
            )
        case .disputed(let number, let amount, let reason, let reference):
            let known = try await orders.events(orderNumber: number).contains {
                if case .disputed(_, _, reference) = $0.change { true } else { false }
            }
            guard !known else { return (number, "dispute \(reference) recorded already") }
            return (number, try await recordDispute(number, amount, reason, reference))
        }
    }

    /// Flags order `number` with the dispute `reference`, its charge settled first (a dispute means it was paid).
    private func recordDispute(_ number: String, _ amount: Money, _ reason: String, _ reference: String) async throws -> String {
        _ = try await backend.settleFromProvider(orderNumber: number)
        return try await refusalAsOutcome("flagged: dispute \(reference) of \(amount.formatted)") {
            _ = try await orders.apply(
                .disputed(amount, reason: reason, reference: reference), toOrder: number, by: .provider, at: dates.now(), expecting: nil)
        }
    }

    /// Settles the shop's own refunds the provider made (an answer the shop lost) and records those made elsewhere.
    private func record(_ refunds: [ProviderRefund], of number: String) async throws -> String {
        let filed = try await orders.refunds(orderNumber: number)
        var done: [String] = []
        // The shop's own refund the provider gave up on: closed as declined, the order as it was, the merchant shown why.
        for refund in refunds where !refund.succeeded {
            guard let failure = refund.failure, let id = refund.shopRefundID, filed.contains(where: { $0.id == id && $0.state == .pending }) else {
                continue
            }
            _ = try await orders.settleRefund(id: id, as: .declined(reason: "\(refund.reference) \(failure)"), at: dates.now())
            done.append("declined \(id): \(refund.reference) \(failure)")
        }
        for refund in refunds where refund.succeeded {
            if let id = refund.shopRefundID, let mine = filed.first(where: { $0.id == id }) {
                if mine.state == .pending {
                    _ = try await orders.settleRefund(id: id, as: .refunded(reference: refund.reference), at: dates.now())
                    done.append("settled \(id) as \(refund.reference)")
                }
                continue
            }
            guard !filed.contains(where: { $0.state == .refunded(reference: refund.reference) }) else { continue }
            // A refund made elsewhere while one of the shop's is pending: recorded now, the pending one (a cancel,
            // say) would be sent after it and refund twice. Asked again later, once the shop's own has settled.
            if let pending = filed.first(where: { $0.state == .pending }) { throw RefundAwaited(refundID: pending.id) }
            done.append(
                try await refusalAsOutcome("recorded \(refund.reference) of \(refund.amount.formatted)") {
                    _ = try await orders.recordProviderRefund(refund.amount, reference: refund.reference, toOrder: number, at: dates.now())
                })
        }
        return done.isEmpty ? "no new refunds" : done.joined(separator: "; ")
    }

    /// Runs `change`; a change the order's lifecycle refuses is an outcome to log (asking again would be refused
    /// again), every other failure is thrown so the provider asks again.
    private func refusalAsOutcome(_ outcome: String, _ change: () async throws -> Void) async throws -> String {
        do {
            try await change()
            return outcome
        } catch let error as OrderChangeError {
            guard case .refused(let refusal) = error else { throw error }
            return "refused: \(refusal)"
        }
    }
}

/// A provider's refund that waits for the shop's own pending refund of the order to settle first.
struct RefundAwaited: Error, CustomStringConvertible {
    var refundID: String
    var description: String { "refund \(refundID) of this order is waiting for the provider's answer; this event is applied after it" }
}
