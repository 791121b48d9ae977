import Foundation
import ShopModels
import StorefrontTesting
import Testing

/// A subscription's schedule as the renewal worker follows it: dates kept from the schedule, retries spaced as
/// documented, the key of each try.
@Suite("Subscription schedule")
struct SubscriptionScheduleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func subscription(weeks: Int = 2) -> Subscription {
        Subscription(
            id: "sub_1", customerID: "acct", productID: "keycap-dusk", quantity: 1, intervalWeeks: weeks, renewsAt: start,
            cardID: "card_ok_visa_4242",
            cardDescription: "Visa ••4242", shipTo: Fixtures.jane, shippingMethodID: "standard")
    }

    @Test func aRenewalPaidLateKeepsTheScheduleAndNeverBringsTheNextDueAtOnce() {
        let base = subscription()
        // Paid on time: the next is two weeks after this one's date, not after the moment it ran.
        let onTime = base.after(.paid(orderNumber: "SF-1"), at: start.addingTimeInterval(3_600))
        #expect(onTime.renewsAt == start.addingTimeInterval(2 * RenewalSchedule.week) && onTime.period == 3)
        // Paid five weeks late (a worker down): the next is the schedule's first date still to come.
        let late = base.after(.paid(orderNumber: "SF-1"), at: start.addingTimeInterval(5 * RenewalSchedule.week))
        #expect(late.renewsAt == start.addingTimeInterval(6 * RenewalSchedule.week))
        for weeks in RenewalSchedule.intervals {
            for lateness in [0.0, 1, 86_399, 86_400, 1e6, 3e7] {
                let now = start.addingTimeInterval(lateness)
                let next = subscription(weeks: weeks).after(.skipped, at: now)
                #expect(next.renewsAt > now && next.dueAt == next.renewsAt)
                let steps = next.renewsAt.timeIntervalSince(start) / (Double(weeks) * RenewalSchedule.week)
                #expect(steps == steps.rounded() && steps >= 1, "on the schedule: \(weeks) weeks, \(lateness) s late")
            }
        }
    }

    @Test func eachTryHasItsOwnKeyAndEveryRepeatOfATryTheSame() {
        var s = subscription()
        #expect(s.step(at: start) == .charge(key: "sub_sub_1_p2_t1"))
        #expect(s.step(at: start.addingTimeInterval(-1)) == .notDue)
        s = s.after(.failed("Your card was declined."), at: start)
        #expect(s.status == .pastDue && s.dueAt == start.addingTimeInterval(RenewalSchedule.day))
        #expect(s.step(at: s.dueAt) == .charge(key: "sub_sub_1_p2_t2"))
        #expect(s.renewsAt == start, "a retry does not move the period's date")
        s.skipsNext = true
        #expect(s.step(at: s.dueAt) == .charge(key: "sub_sub_1_p2_t2"), "a skip asked while past due waits for the next period")
        s.endsAtPeriodEnd = true
        #expect(s.step(at: s.dueAt) == .end)
        s.status = .paused
        #expect(s.step(at: s.dueAt) == .notDue)
    }

    /// A pause or a cancel made while a renewal was being charged is kept when its outcome is applied.
    @Test func aPauseMadeDuringARenewalStays() {
        var paused = subscription()
        paused.status = .paused
        #expect(paused.after(.paid(orderNumber: "SF-1"), at: start).status == .paused)
        #expect(paused.after(.failed("declined"), at: start).status == .paused)
        var canceled = subscription()
        canceled.status = .canceled
        #expect(canceled.after(.paid(orderNumber: "SF-1"), at: start).status == .canceled)
        var pastDue = subscription()
        pastDue.status = .pastDue
        #expect(pastDue.after(.paid(orderNumber: "SF-1"), at: start).status == .active)
    }

    @Test func theLastFailedRetryCancels() {
        var s = subscription()
        var now = start
        for retry in RenewalSchedule.retryDays {
            s = s.after(.failed("declined"), at: now)
            #expect(s.status == .pastDue && s.dueAt == now.addingTimeInterval(Double(retry) * RenewalSchedule.day))
            now = s.dueAt
        }
        s = s.after(.failed("declined"), at: now)
        #expect(s.status == .canceled && s.step(at: now.addingTimeInterval(1e9)) == .notDue)
    }

    @Test func eachChangeOnlyWhereItMakesSenseAndWhyNotInOneLine() {
        let base = subscription()
        func refusal(_ s: Subscription, _ change: SubscriptionChange) -> String? {
            if case .failure(let why) = s.applying(change, at: start, offered: [1, 2, 4]) { return why.line }
            return nil
        }
        var canceled = base
        canceled.status = .canceled
        for change in [SubscriptionChange.skipNext, .pause, .resume, .cancelNow, .interval(weeks: 4)] {
            #expect(refusal(canceled, change) == "This subscription is canceled.")
        }
        #expect(refusal(base, .resume) == "This subscription is not paused.")
        #expect(refusal(base, .interval(weeks: 3)) == "Choose every 1, 2, 4 weeks.")
        #expect(base.applying(.interval(weeks: 3), at: start, offered: []) == .failure(.init("This product is no longer sold by subscription.")))
        #expect(refusal(base, .payingMissed(until: start)) == "This subscription has no missed delivery to pay.")
        var paused = base
        paused.status = .paused
        #expect(refusal(paused, .pause) == "This subscription is paused already.")
        #expect(refusal(paused, .skipNext) == "Only an active subscription's next delivery can be skipped or kept.")
        var ending = base
        ending.endsAtPeriodEnd = true
        #expect(refusal(ending, .cancelAtPeriodEnd) == "This subscription ends at its next date already.")
        #expect((try? ending.applying(.resume, at: start, offered: []).get())?.endsAtPeriodEnd == false, "kept: it renews again")
    }

    @Test func aMissedRenewalBeingPaidHoldsTheWorkersNextTryAndANewCardIsTriedAtOnce() {
        let failed = subscription().after(.failed("declined"), at: start)
        #expect(failed.status == .pastDue && failed.dueAt == start.addingTimeInterval(RenewalSchedule.day))
        let later = start.addingTimeInterval(2 * RenewalSchedule.day)
        let held = try? failed.applying(.payingMissed(until: later), at: start, offered: []).get()
        #expect(held?.dueAt == later, "the worker waits while the subscriber pays")
        let newCard = try? failed.applying(.card(id: "card_ok_mastercard_4444", description: "Mastercard ••4444"), at: start, offered: []).get()
        #expect(newCard?.dueAt == start && newCard?.cardDescription == "Mastercard ••4444")
    }
}
