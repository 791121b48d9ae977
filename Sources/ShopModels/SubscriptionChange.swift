import Foundation
import ShopLanguages

/// A change a subscriber (or, for a cancel, the merchant) makes to a subscription: the same on every front.
public enum SubscriptionChange: Hashable, Sendable {
    /// The next renewal delivers and charges nothing; the one after is as usual.
    case skipNext
    /// Takes back a skip of the next renewal.
    case keepNext
    case pause
    /// Active again, due at the next date of its schedule still to come.
    case resume
    /// Ends at its next renewal date instead of renewing.
    case cancelAtPeriodEnd
    case cancelNow
    /// A new interval, from the next period on.
    case interval(weeks: Int)
    /// Deliveries from the next renewal on go to this address.
    case shipTo(Contact)
    /// Renewals from the next one on are charged to this saved card (its wallet id, and how receipts name it).
    case card(id: String, description: String)
    /// The subscriber is paying the missed renewal on the payment sheet: the worker's next try waits until `until`, so
    /// the period is not charged twice.
    case payingMissed(until: Date)
    /// The reminders before renewals stop (false) or come again (true).
    case reminders(on: Bool)

    /// The history's kind for it.
    public var kind: String {
        switch self {
        case .skipNext, .keepNext, .interval, .shipTo, .card, .payingMissed, .reminders: "changed"
        case .pause: "paused"
        case .resume: "resumed"
        case .cancelAtPeriodEnd, .cancelNow: "canceled"
        }
    }

    /// The history's detail for it, in words.
    public var detail: String {
        switch self {
        case .skipNext: "the next delivery is skipped"
        case .keepNext: "the next delivery is kept"
        case .pause: "paused"
        case .resume: "resumed"
        case .cancelAtPeriodEnd: "at the end of the period"
        case .cancelNow: "at once"
        case .interval(let weeks): "every \(RenewalSchedule.every(weeks)) from the next period"
        case .shipTo(let contact): "ships to \(contact.shipToLine)"
        case .card(_, let description): "charged to \(description)"
        case .payingMissed: "the subscriber pays the missed delivery on the payment sheet"
        case .reminders(let on): on ? "reminders before renewals come again" : "reminders before renewals stopped"
        }
    }
}

/// Why a change cannot be made to a subscription as it stands, in one line for whoever asked.
public struct SubscriptionChangeRefusal: Error, Hashable, Sendable {
    public var line: String
    public init(_ line: String) { self.line = line }
}

extension RenewalSchedule {
    /// "week", "2 weeks".
    public static func every(_ weeks: Int) -> String { everyWords(weeks).description }
    /// `every(_:)` in the shopper's language: "Every" goes before it.
    public static func everyWords(_ weeks: Int) -> Localized { .plural("week", "\(weeks) weeks", count: weeks) }
    /// A new subscription's schedule as the sheet and the API's preview say it: "every 2 weeks, next on …" (its first
    /// renewal an interval after `today`), or "every 2 weeks" where the day is not known.
    public static func scheduleWords(everyWeeks weeks: Int, today: Date?) -> Localized {
        let every = everyWords(weeks)
        guard let today else { return Localized("every \(every)") }
        return Localized("every \(every), next on \(day: today.addingTimeInterval(Double(weeks) * week))")
    }
}

extension Subscription {
    /// Why `shop` cannot renew this subscription to `contact`: it does not ship there, or not by the subscription's
    /// shipping method; nil when it can. Asked before a move is saved, on every front, so a renewal never fails for it.
    public func shipToRefusal(_ contact: Contact, shop: ShopProfile) -> SubscriptionChangeRefusal? {
        if let line = shop.shippingRefusal(address: contact.address) { return SubscriptionChangeRefusal(line.description) }
        guard let region = shop.region(for: contact.address), region.rates.contains(where: { $0.id == shippingMethodID }) else {
            return SubscriptionChangeRefusal("Its deliveries cannot go there by the method they go by now: subscribe again to that address.")
        }
        return nil
    }

    /// The subscription after `change` at `now`, or why it cannot be made. `offered` are the intervals its product is
    /// sold at today (an interval change must be one of them).
    public func applying(_ change: SubscriptionChange, at now: Date, offered: [Int]) -> Result<Subscription, SubscriptionChangeRefusal> {
        guard status != .canceled else { return .failure(.init("This subscription is canceled.")) }
        var next = self
        switch change {
        case .skipNext, .keepNext:
            guard status == .active else { return .failure(.init("Only an active subscription's next delivery can be skipped or kept.")) }
            guard !endsAtPeriodEnd else { return .failure(.init("This subscription ends at its next date: nothing is left to skip.")) }
            next.skipsNext = change == .skipNext
        case .pause:
            guard status != .paused else { return .failure(.init("This subscription is paused already.")) }
            next.status = .paused
        case .resume:
            guard status == .paused || endsAtPeriodEnd else { return .failure(.init("This subscription is not paused.")) }
            next = status == .paused ? resumed(at: now) : next
            next.endsAtPeriodEnd = false
        case .cancelAtPeriodEnd:
            guard !endsAtPeriodEnd else { return .failure(.init("This subscription ends at its next date already.")) }
            next.endsAtPeriodEnd = true
        case .cancelNow:
            next.status = .canceled
        case .interval(let weeks):
            guard offered.contains(weeks) else {
                let every = offered.map(String.init).joined(separator: ", ")
                return .failure(.init(offered.isEmpty ? "This product is no longer sold by subscription." : "Choose every \(every) weeks."))
            }
            next.intervalWeeks = weeks
        case .shipTo(let contact):
            next.shipTo = contact
        case .payingMissed(let until):
            guard status == .pastDue else { return .failure(.init("This subscription has no missed delivery to pay.")) }
            next.dueAt = max(dueAt, until)
        case .reminders(let on):
            guard (remindersStopped == nil) != on else {
                return .failure(.init(on ? "Reminders before renewals come already." : "Reminders before renewals are stopped already."))
            }
            next.remindersStopped = on ? nil : now
        case .card(let id, let description):
            next.cardID = id
            next.cardDescription = description
            // A renewal that failed on the old card is tried on the new one at once, not at its next retry.
            if status == .pastDue { next.dueAt = min(dueAt, now) }
        }
        return .success(next)
    }
}

extension Subscription {
    /// Where the subscription stands, in one line for its subscriber: what comes next.
    public var standing: String { standingWords.description }

    /// `standing` in the shopper's language.
    public var standingWords: Localized {
        let s = self
        let next = UTCTime(s.renewsAt).calendarDate
        switch s.status {
        case .canceled: return Localized("Canceled: nothing more is charged.")
        case .paused: return Localized("Paused: nothing is sent until you resume it.")
        case .pastDue where s.dueAt >= RenewalSchedule.waitsForSubscriber:
            return Localized("Past due: \(s.cardDescription) cannot be charged again without you: add another card, or pay the missed delivery.")
        case .pastDue where s.lastFailure != nil:
            return Localized("Past due: \(s.lastFailure ?? "") Nothing was charged; tried again on \(UTCTime(s.dueAt).calendarDate).")
        case .pastDue: return Localized("Past due: the last charge to \(s.cardDescription) failed; tried again on \(UTCTime(s.dueAt).calendarDate).")
        case .active where s.endsAtPeriodEnd: return Localized("Ends on \(next) instead of renewing.")
        case .active where s.skipsNext: return Localized("The delivery of \(next) is skipped; the one after comes as usual.")
        case .active: return Localized("Next delivery \(next), every \(RenewalSchedule.everyWords(s.intervalWeeks)).")
        }
    }
}
