import Foundation
import ShopModels
import ShopPorts

/// The reminders before renewals: each active subscription's subscriber is told once, `days` before its next renewal
/// (the shop's `renewalReminderDays`), what it will charge and how to skip, pause or cancel it.
///
/// Order of calls: the soonest-due active subscriptions are read a page at a time until one is due after the window →
/// each one to remind gets a `reminder` event, written under its row's lock with `remindedPeriod` set, so that
/// whichever workers pass, each period is reminded once; the mail worker sends what the event tells.
extension RenewalWorker {
    /// Subscriptions read at a time while looking for those to remind: pages read by offset cost more the further they
    /// go, so fewer, larger ones (scripts/bench-reminders).
    static let reminderPage = 500

    /// Reminds the subscribers whose renewal comes within `days` after `now` and who were not reminded of it yet.
    func remind(at now: Date, days: Int, into pass: inout Pass) async throws(SubscriptionRepositoryError) {
        guard days > 0 else { return }
        let windowEnd = now.addingTimeInterval(Double(days) * RenewalSchedule.day)
        var offset = 0
        while true {
            let page = try await store.subscriptions(status: .active, offset: offset, limit: Self.reminderPage)
            for subscription in page where subscription.dueAt <= windowEnd && Self.wantsReminder(subscription, at: now) {
                if await remind(subscription, at: now) { pass.reminded.append(subscription.id) }
            }
            // Soonest due first: past the window, nothing later in the list is due within it either.
            guard page.count == Self.reminderPage, let last = page.last, last.dueAt <= windowEnd else { return }
            offset += page.count
        }
    }

    /// Whether `subscription` is one to remind at `now`: it renews (charges) next, not yet due, and was not reminded of
    /// this period; its subscriber did not stop the reminders.
    static func wantsReminder(_ subscription: Subscription, at now: Date) -> Bool {
        subscription.status == .active && subscription.dueAt > now && subscription.failedAttempts == 0 && !subscription.skipsNext
            && !subscription.endsAtPeriodEnd && subscription.remindersStopped == nil && subscription.remindedPeriod != subscription.period
    }

    /// Writes `subscription`'s reminder event, told to its subscriber (or the account's email); false when another
    /// worker reminded it first, or it changed meanwhile.
    private func remind(_ subscription: Subscription, at now: Date) async -> Bool {
        var told = subscription
        if told.subscriber == nil, let email = await accountEmail(subscription.customerID) {
            told.shipTo.email = email.address
            if told.shipTo.name.isEmpty { told.shipTo.name = email.name }
        }
        guard let subscriber = told.subscriber else { return false }
        let event = SubscriptionEvent(
            at: now, actor: "renewals", kind: "reminder",
            detail: "period \(subscription.period): renews on \(UTCTime(subscription.renewsAt).calendarDate)", tells: subscriber)
        let period = subscription.period
        let written = try? await store.update(subscription.id, worker: nil, event: event) { current in
            guard current.period == period, Self.wantsReminder(current, at: now) else { return nil }
            var next = current
            next.remindedPeriod = period
            return next
        }
        return written != nil
    }
}
