import Foundation

/// Where a subscription stands.
public enum SubscriptionStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// Renews on its schedule.
    case active
    /// Renews no more until resumed.
    case paused
    /// Its last renewal failed (declined, or the bank wants the subscriber to authenticate); it is tried again on
    /// `RenewalSchedule.retryDelays`.
    case pastDue = "past_due"
    case canceled
}

/// A product (or one of its variants) bought every N weeks: what each delivery is, where it goes, the saved card it is
/// charged to off-session, and where its schedule stands.
public struct Subscription: Hashable, Sendable, Codable {
    public var id: String
    public var customerID: String
    public var productID: ProductID
    /// The variant's SKU, for a product with options.
    public var variantSKU: ProductID?
    public var quantity: Int
    public var intervalWeeks: Int
    public var status: SubscriptionStatus
    /// The period the next renewal is for: 1 is the order placed when subscribing, 2 the first renewal.
    public var period: Int
    /// When `period` is scheduled; retries of a failed renewal do not move it.
    public var renewsAt: Date
    /// When the worker next tries it: `renewsAt`, or a retry's time while past due.
    public var dueAt: Date
    /// Failed tries of `period` so far.
    public var failedAttempts: Int
    /// The next renewal delivers nothing and charges nothing; the one after is as usual.
    public var skipsNext: Bool
    /// Ends at `renewsAt` instead of renewing.
    public var endsAtPeriodEnd: Bool
    /// The saved card (its wallet id) and how receipts name it ("Visa ••4242").
    public var cardID: String
    public var cardDescription: String
    public var shipTo: Contact
    public var shippingMethodID: String
    /// A unit's price as the subscriber was last told it: what the next renewal charges. A price the catalog changes
    /// is charged from the period after the one it is noticed at, and the subscriber is told first (nil: the
    /// catalog's price, for a subscription made before prices were kept).
    public var unitPrice: Money?
    /// Why the last renewal failed when it was not the card's doing (the product no longer sold, sold out, not shipped
    /// there), in the subscriber's words; nil after a card's decline or a paid renewal. The screen and the mail say
    /// it instead of blaming the card.
    public var lastFailure: String?
    /// The locale its subscriber bought it in (`de-DE`): its renewals and mails are in it; nil for English.
    public var language: String?
    /// The period the subscriber was last reminded of before its renewal (nil: none yet), so each is reminded once.
    public var remindedPeriod: Int?
    /// When the subscriber stopped the reminders before renewals (from a reminder's link); nil while they come.
    public var remindersStopped: Date?

    public init(
        id: String, customerID: String, productID: ProductID, variantSKU: ProductID? = nil, quantity: Int, intervalWeeks: Int,
        status: SubscriptionStatus = .active, period: Int = 2, renewsAt: Date, dueAt: Date? = nil, failedAttempts: Int = 0, skipsNext: Bool = false,
        endsAtPeriodEnd: Bool = false, cardID: String, cardDescription: String, shipTo: Contact, shippingMethodID: String,
        unitPrice: Money? = nil
    ) {
        self.unitPrice = unitPrice
        self.id = id
        self.customerID = customerID
        self.productID = productID
        self.variantSKU = variantSKU
        self.quantity = quantity
        self.intervalWeeks = intervalWeeks
        self.status = status
        self.period = period
        self.renewsAt = renewsAt
        self.dueAt = dueAt ?? renewsAt
        self.failedAttempts = failedAttempts
        self.skipsNext = skipsNext
        self.endsAtPeriodEnd = endsAtPeriodEnd
        self.cardID = cardID
        self.cardDescription = cardDescription
        self.shipTo = shipTo
        self.shippingMethodID = shippingMethodID
    }

    /// The stock key a delivery takes: the variant's SKU, or the product's id.
    public var stockKey: ProductID { variantSKU ?? productID }

    /// The idempotency key of the renewal of `period`'s try number `failedAttempts + 1`: the same for every worker and
    /// every repeat of that try, so it is charged at most once however often it is run; a retry is a new charge.
    public var renewalKey: String { "sub_\(id)_p\(period)_t\(failedAttempts + 1)" }
}

/// How renewals are spaced and retried. Documented in docs/subscriptions.md.
public enum RenewalSchedule {
    /// The intervals a subscription may have, in weeks.
    public static let intervals = 1...26
    /// After a failed renewal, the next tries come these many days after the failure; when the last fails too, the
    /// subscription is canceled and the subscriber told.
    public static let retryDays = [1, 3, 5]
    public static let day: TimeInterval = 86_400
    public static let week: TimeInterval = 7 * day
    /// The due date of a subscription no worker tries again: it waits for its subscriber (another card, which makes it
    /// due at once, or the missed delivery paid on the sheet).
    public static let waitsForSubscriber = Date(timeIntervalSince1970: 32_503_680_000)

    /// What the worker does with a subscription at `now`.
    public enum Step: Hashable, Sendable {
        case notDue
        /// Renew: charge under `key` and place the period's order.
        case charge(key: String)
        /// Skip this period: nothing charged, nothing sent.
        case skip
        /// The subscriber canceled at the period's end, and it has come.
        case end
    }

    /// What a renewal came to.
    public enum Outcome: Hashable, Sendable {
        case paid(orderNumber: String)
        case skipped
        case ended
        /// Declined, or could not be charged: why, in words for the subscriber; tried again on `retryDays`.
        case failed(String)
        /// Not the card's doing (the product no longer sold, sold out, not shipped there): why; nothing was charged,
        /// and it is tried again on `retryDays` as a decline is.
        case undeliverable(String)
        /// A decline the card's bank says is final (lost, stolen, "do not try again", authorization revoked, expired),
        /// or the bank wants the subscriber there: no more tries off-session; past due until the subscriber adds
        /// another card or pays the missed delivery on the sheet.
        case stopped(String)
    }
}

extension Subscription {
    public func step(at now: Date) -> RenewalSchedule.Step {
        guard status == .active || status == .pastDue, dueAt <= now else { return .notDue }
        if endsAtPeriodEnd { return .end }
        if skipsNext, failedAttempts == 0 { return .skip }
        return .charge(key: renewalKey)
    }

    /// The subscription after its renewal came to `outcome` at `now`: the next period scheduled an interval after this
    /// one's date (the interval as it is now, so a change of interval takes effect from the next period), a failure
    /// retried on `RenewalSchedule.retryDays` and canceled after the last. A pause or cancel the subscriber made while
    /// the renewal was under way stays: only past due turns back to active.
    public func after(_ outcome: RenewalSchedule.Outcome, at now: Date) -> Subscription {
        var next = self
        switch outcome {
        case .paid, .skipped:
            next.period += 1
            next.failedAttempts = 0
            next.lastFailure = nil
            next.skipsNext = false
            if status == .pastDue { next.status = .active }
            next.renewsAt = nextSlot(after: renewsAt, at: now)
            next.dueAt = next.renewsAt
        case .ended:
            next.status = .canceled
        case .stopped:
            next.failedAttempts += 1
            next.lastFailure = nil
            guard status == .active || status == .pastDue else { break }
            next.status = .pastDue
            next.dueAt = RenewalSchedule.waitsForSubscriber
        case .failed, .undeliverable:
            next.failedAttempts += 1
            if case .undeliverable(let why) = outcome { next.lastFailure = why } else { next.lastFailure = nil }
            guard status == .active || status == .pastDue else { break }
            if next.failedAttempts > RenewalSchedule.retryDays.count {
                next.status = .canceled
            } else {
                next.status = .pastDue
                next.dueAt = now.addingTimeInterval(Double(RenewalSchedule.retryDays[next.failedAttempts - 1]) * RenewalSchedule.day)
            }
        }
        return next
    }

    /// The first date on this subscription's schedule after `date` that is still to come at `now`: a renewal paid late
    /// (after retries, or a worker that was down) never brings the next one due at once.
    public func nextSlot(after date: Date, at now: Date) -> Date {
        let interval = Double(intervalWeeks) * RenewalSchedule.week
        var next = date.addingTimeInterval(interval)
        if next <= now {
            let behind = (now.timeIntervalSince(next) / interval).rounded(.down) + 1
            next = next.addingTimeInterval(behind * interval)
        }
        return next
    }

    /// The unit price the next renewal charges when the catalog asks `catalogPrice`: the price the subscriber was told,
    /// in the shop's currency; else the catalog's.
    public func chargedPrice(catalogPrice: Money) -> Money {
        guard let told = unitPrice, told.currency == catalogPrice.currency else { return catalogPrice }
        return told
    }

    /// What one delivery is in `product` as the catalog has it now: its variant (nil for a product without options)
    /// and a unit's price; nil when the subscription's choice of it is no longer sold.
    public func offer(in product: Product) -> (variant: ProductVariant?, price: Money)? {
        guard let sku = variantSKU else { return (nil, product.price) }
        return product.variants.first { $0.sku == sku }.map { ($0, $0.price) }
    }

    /// Resumed at `now`: active again, due at the next date of its schedule still to come.
    public func resumed(at now: Date) -> Subscription {
        var next = self
        next.status = .active
        next.failedAttempts = 0
        if renewsAt <= now { next.renewsAt = nextSlot(after: renewsAt, at: now) }
        next.dueAt = next.renewsAt
        return next
    }
}

/// A renewal to come: when, which subscription, and what it charges for its goods at today's price.
public struct UpcomingRenewal: Hashable, Sendable {
    public var at: Date
    public var subscription: Subscription
    /// The goods (price × quantity) before tax and shipping; nil when the product or its choice is no longer sold.
    public var goods: Money?

    public init(at: Date, subscription: Subscription, goods: Money?) {
        self.at = at
        self.subscription = subscription
        self.goods = goods
    }
}

extension UpcomingRenewal {
    /// The goods of `renewals` summed, one amount per currency, by currency code; those no longer sold count nothing.
    public static func goodsTotals(_ renewals: [UpcomingRenewal]) -> [Money] {
        Dictionary(grouping: renewals.compactMap(\.goods), by: \.currency.code).sorted { $0.key < $1.key }
            .map { $0.value.sum(in: $0.value[0].currency) }
    }
}

extension RenewalSchedule {
    /// The renewals `subscriptions` make from `now` until `until`, soonest first: each active or past-due one at its
    /// due date and then every interval on its schedule (a skip charges nothing; one ending at the period's end makes
    /// none), priced by `price` (a unit's price today, nil when no longer sold).
    public static func upcoming(
        _ subscriptions: [Subscription], from now: Date, until end: Date, price: (Subscription) -> Money?
    ) -> [UpcomingRenewal] {
        var renewals: [UpcomingRenewal] = []
        for subscription in subscriptions where subscription.status == .active || subscription.status == .pastDue {
            guard !subscription.endsAtPeriodEnd else { continue }
            let goods = price(subscription).map { Money(minorUnits: $0.minorUnits * Int64(subscription.quantity), currency: $0.currency) }
            var at = max(subscription.dueAt, now)
            var skipping = subscription.skipsNext && subscription.failedAttempts == 0
            var scheduled = subscription.renewsAt
            while at < end {
                if !skipping { renewals.append(UpcomingRenewal(at: at, subscription: subscription, goods: goods)) }
                skipping = false
                scheduled = scheduled.addingTimeInterval(Double(subscription.intervalWeeks) * week)
                at = max(scheduled, at.addingTimeInterval(1))
            }
        }
        return renewals.sorted { ($0.at, $0.subscription.id) < ($1.at, $1.subscription.id) }
    }
}
