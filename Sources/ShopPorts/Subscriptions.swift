import Foundation
import ShopLanguages
import ShopModels

/// One line of a subscription's history: who changed it, when, and how, in words.
public struct SubscriptionEvent: Hashable, Sendable {
    public var at: Date
    /// `shopper:<customer>`, `merchant:<name>` or `renewals`.
    public var actor: String
    /// `created`, `renewed`, `skipped`, `failed`, `ended`, `canceled`, `paused`, `resumed`, `changed`.
    public var kind: String
    public var detail: String
    /// Whom the event is told to by mail (its subscriber), or nil: the message is written with the event, in its
    /// transaction, so none is lost.
    public var tells: MailAddress?

    public init(at: Date, actor: String, kind: String, detail: String, tells: MailAddress? = nil) {
        self.tells = tells
        self.at = at
        self.actor = actor
        self.kind = kind
        self.detail = detail
    }
}

/// Why a subscription could not be kept, read or changed.
public struct SubscriptionRepositoryError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The shop's subscriptions and their histories, the same on every host.
///
/// Order of calls for a renewal: `claimDue` (each due subscription taken by one worker, for a lease) → the charge and
/// the order → `settle` (the outcome applied to the subscription as it is then, the lease let go). A worker that stops
/// between the two leaves its lease to run out; the next claim takes the subscription again and repeats the same try
/// under the same idempotency key, which never charges twice.
public protocol SubscriptionRepository: Sendable {
    func create(_ subscription: Subscription, event: SubscriptionEvent) async throws(SubscriptionRepositoryError)
    func subscription(id: String) async throws(SubscriptionRepositoryError) -> Subscription?
    /// A customer's subscriptions, newest first.
    func subscriptions(customer: String) async throws(SubscriptionRepositoryError) -> [Subscription]
    /// Every subscription in `status` (all when nil), soonest due first: `limit` of them after the first `offset`.
    func subscriptions(status: SubscriptionStatus?, offset: Int, limit: Int) async throws(SubscriptionRepositoryError) -> [Subscription]
    /// Its history, oldest first.
    func history(of id: String) async throws(SubscriptionRepositoryError) -> [SubscriptionEvent]
    /// Takes up to `limit` subscriptions due at `now` (active or past due, `dueAt` come, no lease or one run out) for
    /// `worker` until `leaseUntil`, soonest due first. Two workers never take the same one: PostgreSQL skips rows
    /// another transaction has locked (`FOR UPDATE SKIP LOCKED`); SQLite takes them in one write transaction.
    func claimDue(at now: Date, limit: Int, worker: String, leaseUntil: Date) async throws(SubscriptionRepositoryError) -> [Subscription]
    /// Applies `change` to subscription `id` as it stands, under its row's lock, with `event`: for `worker`'s renewal
    /// only while it holds the lease (nil worker: a shopper's or merchant's change, made whoever holds it). The lease is
    /// let go by a worker's change. Nil when there is no such subscription, `worker` no longer holds it, or `change`
    /// declines (answers nil).
    func update(
        _ id: String, worker: String?, event: SubscriptionEvent, _ change: @escaping @Sendable (Subscription) -> Subscription?
    ) async throws(SubscriptionRepositoryError) -> Subscription?
}

extension SubscriptionRepository {
    /// The first `limit` subscriptions in `status`, soonest due first.
    public func subscriptions(status: SubscriptionStatus?, limit: Int) async throws(SubscriptionRepositoryError) -> [Subscription] {
        try await subscriptions(status: status, offset: 0, limit: limit)
    }

    /// Makes `change` to subscription `id` for `actor` (`shopper:<customer>`, `merchant:<name>`) at `date`, written in
    /// its history; or why it cannot be made. `offered` are the intervals its product is sold at today. Every front
    /// changes subscriptions through this. With an `owner`, only that customer's subscription is changed: another's
    /// reads as no such subscription, so nothing tells a shopper which ids exist. With a `period`, it is made only while
    /// the next renewal is that period's (a reminder's skip skips the renewal it reminded of, never the one after).
    public func change(
        _ id: String, _ change: SubscriptionChange, offered: [Int] = [], by actor: String, owner: String? = nil, period: Int? = nil, at date: Date
    ) async throws(SubscriptionRepositoryError) -> Result<Subscription, SubscriptionChangeRefusal> {
        guard let current = try await subscription(id: id), owner == nil || current.customerID == owner else {
            return .failure(.init("No subscription \(id.prefix(100))."))
        }
        if let period, current.period != period { return .failure(.renewedAlready) }
        if case .failure(let refusal) = current.applying(change, at: date, offered: offered) { return .failure(refusal) }
        // A cancel the shop makes is told to the subscriber; their own changes they made themselves.
        let tells = change.kind == "canceled" && !actor.hasPrefix("shopper:") ? current.subscriber : nil
        let event = SubscriptionEvent(at: date, actor: actor, kind: change.kind, detail: change.detail, tells: tells)
        let changed = try await update(id, worker: nil, event: event) { subscription in
            guard period == nil || subscription.period == period else { return nil }
            return try? subscription.applying(change, at: date, offered: offered).get()
        }
        // Read, then changed under the row's lock: a renewal or another front got there between the two.
        guard let changed else { return .failure(.init("The subscription changed meanwhile: look at it again.")) }
        return .success(changed)
    }

    /// The renewals due from `now` for `days` days, priced at `catalog`'s prices today (a product or choice no longer
    /// sold: no price), soonest first. Every front lists them through this.
    public func upcomingRenewals(catalog: any CatalogRepository, from now: Date, days: Int) async throws -> [UpcomingRenewal] {
        var due: [Subscription] = []
        for status in [SubscriptionStatus.active, .pastDue] { due += try await subscriptions(status: status, limit: 1_000_000) }
        var prices: [ProductID: Money] = [:]
        for subscription in due where prices[subscription.stockKey] == nil {
            guard let product = try await catalog.product(id: subscription.productID) else { continue }
            prices[subscription.stockKey] = subscription.offer(in: product)?.price
        }
        return RenewalSchedule.upcoming(due, from: now, until: now.addingTimeInterval(Double(days) * RenewalSchedule.day)) { prices[$0.stockKey] }
    }
}

/// One message a subscription's event sends its subscriber: the event, to whom, and how its sending stands.
public struct SubscriptionMailEntry: Hashable, Sendable {
    public var subscriptionID: String
    /// The event's place in the subscription's history, from 1.
    public var sequence: Int
    public var event: SubscriptionEvent
    public var recipient: MailAddress
    public var attempts: Int

    public init(subscriptionID: String, sequence: Int, event: SubscriptionEvent, recipient: MailAddress, attempts: Int) {
        self.subscriptionID = subscriptionID
        self.sequence = sequence
        self.event = event
        self.recipient = recipient
        self.attempts = attempts
    }

    /// The `Message-ID` every attempt of it carries: the subscription, the event, and when it happened.
    public var messageID: String { "<\(subscriptionID).e\(sequence).\(Int64(event.at.timeIntervalSince1970))@storefront.invalid>" }
}

/// The messages subscriptions' events send: what the mail worker reads and records. They are written by the store's
/// `create` and `update`, with the event that tells of them.
public protocol SubscriptionMailbox: Sendable {
    /// Messages not sent yet and due at `now`, oldest first.
    func dueMail(at now: Date, limit: Int) async throws(SubscriptionRepositoryError) -> [SubscriptionMailEntry]
    /// Records an attempt on the message of event `sequence` of subscription `id`.
    func recordMail(_ attempt: OutboxAttempt, subscription id: String, sequence: Int, at: Date) async throws(SubscriptionRepositoryError)
}

extension Subscription {
    /// Where its messages go: the email of the contact it ships to.
    public var subscriber: MailAddress? { shipTo.email.isEmpty ? nil : MailAddress(name: shipTo.name, address: shipTo.email) }
}

extension SubscriptionChangeRefusal {
    /// A change made for a renewal (a reminder's skip) once that renewal has happened: every front says it alike.
    /// Written as `Localized` so the catalogs keep its words, which every front looks up.
    public static let renewedAlready = SubscriptionChangeRefusal(
        Localized("That delivery has been renewed already: change the next one in your account.").description)
}
