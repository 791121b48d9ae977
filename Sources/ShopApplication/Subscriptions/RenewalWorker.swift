import Foundation
import ShopMetrics
import ShopModels
import ShopPorts

/// Renews the subscriptions that are due: each renewal a normal order (stock, tax and shipping as the shop's own
/// orders have them), charged off-session to the subscriber's saved card under a key made from the subscription, the
/// period and the try, so no renewal is charged twice whichever workers run it and however often.
///
/// Order of calls per pass: `store.claimDue` (a lease on each due subscription) → per subscription: its step
/// (charge, skip, end) → for a charge, the application's `PlaceOrder` (a token from the saved card, then the
/// merchant backend's charge, off-session) → `store.update` with the outcome, as the subscription stands then.
public struct RenewalWorker: Sendable {
    /// What one pass did.
    public struct Pass: Equatable, Sendable {
        public var renewed: [String] = []
        public var skipped: [String] = []
        public var failed: [String] = []
        public var ended: [String] = []
        /// Claimed and left to their lease: the provider did not answer, or the shop's storage failed.
        public var leftForLater: [String] = []
        /// Subscribers told of a renewal to come (`RenewalReminders.swift`).
        public var reminded: [String] = []
        public var claimed: Int { renewed.count + skipped.count + failed.count + ended.count + leftForLater.count }
    }

    public var store: any SubscriptionRepository
    public var catalog: any CatalogRepository
    public var wallets: any WalletRepository
    public var provider: any PaymentProvider
    public var backend: any MerchantBackend
    /// What the provider needs to make a token from a saved card (the sandbox: its card id).
    public var methodData: @Sendable (PaymentMethod) -> String
    /// This worker's name in the leases it holds: unique per process.
    public var name: String
    /// How long a claim holds a subscription before another worker may take it (its worker stopped).
    public var lease: Duration
    /// Subscriptions claimed at a time.
    public var batch: Int
    /// The verified email of the account `customerID`, which a renewal's message goes to when the subscription's
    /// address carries no email (nil: none).
    public var accountEmail: @Sendable (_ customerID: String) async -> MailAddress? = { _ in nil }

    public init(
        store: any SubscriptionRepository, catalog: any CatalogRepository, wallets: any WalletRepository, provider: any PaymentProvider,
        backend: any MerchantBackend, methodData: @escaping @Sendable (PaymentMethod) -> String, name: String, lease: Duration = .seconds(300),
        batch: Int = 50
    ) {
        self.store = store
        self.catalog = catalog
        self.wallets = wallets
        self.provider = provider
        self.backend = backend
        self.methodData = methodData
        self.name = name
        self.lease = lease
        self.batch = batch
    }

    /// Renews everything due at `now`, a batch at a time, until nothing due is left to claim; then reminds the
    /// subscribers of the renewals the shop's `renewalReminderDays` ahead.
    public func pass(at now: Date) async throws(SubscriptionRepositoryError) -> Pass {
        var pass = Pass()
        while true {
            let claimed = try await store.claimDue(
                at: now, limit: batch, worker: name, leaseUntil: now.addingTimeInterval(Double(lease.components.seconds)))
            for subscription in claimed { await renew(subscription, at: now, into: &pass) }
            // Left to its lease, a subscription is not claimable again in this pass: the loop ends when all are.
            if claimed.count < batch { break }
        }
        try await remind(at: now, days: catalog.shop.renewalReminderDays, into: &pass)
        return pass
    }

    private func renew(_ subscription: Subscription, at now: Date, into pass: inout Pass) async {
        let id = subscription.id
        let outcome: RenewalSchedule.Outcome
        switch subscription.step(at: now) {
        case .notDue:
            return
        case .end:
            outcome = .ended
        case .skip:
            outcome = .skipped
        case .charge(let key):
            guard let charged = await charge(subscription, key: key) else {
                pass.leftForLater.append(id)
                return
            }
            outcome = charged
        }
        let period = subscription.period
        var told = subscription
        if told.subscriber == nil, let email = await accountEmail(subscription.customerID) {
            told.shipTo.email = email.address
            if told.shipTo.name.isEmpty { told.shipTo.name = email.name }
        }
        let event = Self.event(outcome, of: told, at: now)
        do {
            let settled = try await store.update(id, worker: name, event: event) { current in
                // Changed meanwhile by another worker (its lease ran out and it renewed): nothing to apply.
                current.period == period && current.failedAttempts == subscription.failedAttempts ? current.after(outcome, at: now) : nil
            }
            guard settled != nil else {
                pass.leftForLater.append(id)
                return
            }
        } catch {
            pass.leftForLater.append(id)
            return
        }
        if case .paid = outcome { await tellNewPrice(id, at: now) }
        if case .skipped = outcome { await tellNewPrice(id, at: now) }
        switch outcome {
        case .paid: pass.renewed.append(id)
        case .skipped: pass.skipped.append(id)
        case .ended: pass.ended.append(id)
        case .failed, .stopped, .undeliverable: pass.failed.append(id)
        }
    }

    /// When the catalog's price of subscription `id`'s delivery is not the one its subscriber was told, tells them the
    /// new one, which the next renewal charges: a period ahead, so nobody is charged a price they were not told.
    /// Not told now (the storage failed), it is told after the next renewal, which still charges the old price.
    private func tellNewPrice(_ id: String, at now: Date) async {
        guard let subscription = try? await store.subscription(id: id), subscription.status != .canceled, let told = subscription.unitPrice,
            let product = (try? await renewing(subscription).catalog.product(id: subscription.productID)) ?? nil,
            let offer = subscription.offer(in: product)
        else { return }
        guard told != offer.price else { return }
        let event = SubscriptionEvent(
            at: now, actor: "renewals", kind: "price",
            detail: "from period \(subscription.period): \(offer.price.formatted) each (was \(told.formatted))", tells: subscription.subscriber)
        _ = try? await store.update(id, worker: nil, event: event) { current in
            guard current.unitPrice == subscription.unitPrice else { return nil }
            var next = current
            next.unitPrice = offer.price
            return next
        }
    }

    /// The catalog a subscription renews from, and the rate of its market: the market of the address it ships to, where
    /// it was sold in that market's currency, so it renews in the currency it was sold in; else the shop's own.
    private func renewing(_ subscription: Subscription) -> (catalog: any CatalogRepository, exchange: OrderExchange?) {
        guard let home = catalog as? MarketCatalog, let market = home.pricing.market(for: subscription.shipTo.address), market.id != home.market.id,
            subscription.unitPrice?.currency == market.currency
        else { return (catalog, nil) }
        return (MarketCatalog(home, pricing: home.pricing, market: market), home.pricing.exchange(in: market))
    }

    /// The period's order, charged off-session under `key`: paid, failed and why, or nil when no answer came (the
    /// same key asks again at the next claim).
    private func charge(_ subscription: Subscription, key: String) async -> RenewalSchedule.Outcome? {
        let (catalog, exchange) = renewing(subscription)
        let shop = catalog.shop
        let found: Product?
        do { found = try await catalog.product(id: subscription.productID) } catch { return nil }
        // Not the card's doing: said as what it is, never as a decline.
        guard let product = found else { return .undeliverable("\(subscription.productID) is no longer sold.") }
        guard let offer = subscription.offer(in: product) else { return .undeliverable("That choice of \(product.name) is no longer sold.") }
        // At the price the subscriber was told: a new one is charged from the period after it is told.
        var line = CartLine(product: product, variant: offer.variant, quantity: subscription.quantity)
        line.unitPrice = subscription.chargedPrice(catalogPrice: offer.price)
        var draft: OrderDraft
        do {
            draft = try PlaceOrder.draft(
                lines: [line], shippingMethodID: subscription.shippingMethodID, contact: subscription.shipTo, customerID: subscription.customerID,
                shop: shop, offSession: true, exchange: exchange)
            draft.language = subscription.language
        } catch {
            return .undeliverable(error.message)
        }
        // The provider's own rules (its smallest charge, the steps it counts a currency in) fail every try alike: said
        // as what they are, never tried as a decline or left to the lease.
        if let refusal = provider.chargeRefusal(draft.totals.total) { return .undeliverable(refusal) }
        guard let wallet = try? await wallets.wallet(forCustomer: subscription.customerID) else { return nil }
        guard let card = wallet.cards.first(where: { $0.id == subscription.cardID }) else {
            return .failed("The card \(subscription.cardDescription) is no longer saved.")
        }
        let payment = Payment(
            method: card, methodData: methodData(card), shippingContact: draft.shippingContact, shippingMethod: draft.shippingMethod,
            transactionIdentifier: key)
        let (step, _) = await ShopMetrics.$taskFront.withValue("renewals") {
            await PlaceOrder(provider: provider, backend: backend).charge(draft, paying: payment, key: key, token: nil)
        }
        switch step {
        case .paid(let confirmation): return .paid(orderNumber: confirmation.orderNumber)
        case .noAnswer: return nil
        // The bank wants the subscriber there: brought on-session (the sheet), never tried off-session again.
        case .bankCheck: return .stopped(DeclineReason.authenticationRequired.message)
        case .tokenRefused(let error): return .failed("\(error)")
        case .refused(.declined(let reason)) where reason.isHard: return .stopped(reason.message)
        case .refused(.declined(let reason)): return .failed(reason.message)
        case .refused(.soldOut(let name, _)): return .undeliverable("\(name) is sold out.")
        case .refused(.timedOut), .refused(.providerUnreachable), .refused(.unavailable): return nil
        // Not the card's doing: said as what it is, on the retry schedule, never blamed on the card.
        case .refused(.providerRefused(let why)): return .undeliverable("The payment service refused the renewal, not the card: \(why)")
        case .refused(let error): return .undeliverable("The renewal could not be charged (\(error)); the card was not charged.")
        }
    }

    /// The history's line for `outcome` of `subscription`'s renewal; a failure is told to the subscriber, and the last
    /// one, which cancels it, is a cancel.
    static func event(_ outcome: RenewalSchedule.Outcome, of subscription: Subscription, at now: Date) -> SubscriptionEvent {
        let period = subscription.period
        if case .stopped(let why) = outcome {
            return SubscriptionEvent(
                at: now, actor: "renewals", kind: "failed", detail: "period \(period): \(why) Not tried again without the subscriber.",
                tells: subscription.subscriber)
        }
        if case .undeliverable(let why) = outcome {
            let last = subscription.failedAttempts + 1 > RenewalSchedule.retryDays.count
            return SubscriptionEvent(
                at: now, actor: "renewals", kind: last ? "canceled" : "undeliverable",
                detail: "period \(period): \(why)\(last ? " The last try failed: it is canceled." : "")", tells: subscription.subscriber)
        }
        if case .failed(let why) = outcome {
            let last = subscription.failedAttempts + 1 > RenewalSchedule.retryDays.count
            return SubscriptionEvent(
                at: now, actor: "renewals", kind: last ? "canceled" : "failed",
                detail: "period \(period): \(why)\(last ? " The last try failed: it is canceled." : "")", tells: subscription.subscriber)
        }
        return switch outcome {
        case .paid(let number): SubscriptionEvent(at: now, actor: "renewals", kind: "renewed", detail: "period \(period): order \(number)")
        case .skipped: SubscriptionEvent(at: now, actor: "renewals", kind: "skipped", detail: "period \(period) skipped")
        case .ended: SubscriptionEvent(at: now, actor: "renewals", kind: "ended", detail: "ended at the end of period \(period - 1)")
        case .failed, .stopped, .undeliverable: SubscriptionEvent(at: now, actor: "renewals", kind: "failed", detail: "")
        }
    }
}
