import Foundation
import ShopApplication
import ShopBootstrap
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

/// The reminders before renewals, on SQLite and PostgreSQL with a moving clock: each period reminded once, the shop's
/// days ahead, whichever workers pass; none for a subscription that skips, pauses, ends or stopped them; and a
/// reminder's skip that skips only the renewal it reminded of.
@Suite("Renewal reminders", .ownThreads)
struct RenewalReminderTests {
    let renewals = SubscriptionRenewalTests()
    var start: Date { renewals.start }
    let day = RenewalSchedule.day

    func reminders(_ storage: ShopStorage, _ id: String) async throws -> [SubscriptionEvent] {
        try await storage.subscriptions.history(of: id).filter { $0.kind == "reminder" }
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func eachRenewalIsRemindedOnceThreeDaysAheadWhicheverWorkersPass(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, other, _) = try await CodeSignInTests().storages(kind)
        _ = try await renewals.subscribe(storage, "acct_jane")
        let one = renewals.worker(storage, "one")
        let two = renewals.worker(other, "two")
        #expect(try await one.pass(at: start.addingTimeInterval(-3 * day - 60)).reminded == [], "four days ahead: not yet")
        let first = try await one.pass(at: start.addingTimeInterval(-3 * day + 60)).reminded
        let second = try await two.pass(at: start.addingTimeInterval(-3 * day + 120)).reminded
        #expect(first == ["sub_acct_jane"] && second == [], "once, whichever worker")
        let told = try await reminders(storage, "sub_acct_jane")
        #expect(told.map(\.detail) == ["period 2: renews on \(UTCTime(start).calendarDate)"])
        // Its message waits in the mailbox, to the subscriber.
        let mail = try await storage.subscriptions.dueMail(at: start, limit: 10).filter { $0.event.kind == "reminder" }
        #expect(mail.map(\.recipient.address) == [Fixtures.jane.email])
        #expect(try await storage.subscriptions.subscription(id: "sub_acct_jane")?.remindedPeriod == 2)

        // Renewed, the next period is reminded three days before its own date, and only then.
        #expect(try await one.pass(at: start.addingTimeInterval(60)).renewed == ["sub_acct_jane"])
        let next = start.addingTimeInterval(2 * RenewalSchedule.week)
        #expect(try await two.pass(at: next.addingTimeInterval(-4 * day)).reminded == [])
        #expect(try await two.pass(at: next.addingTimeInterval(-2 * day)).reminded == ["sub_acct_jane"])
        #expect(try await reminders(other, "sub_acct_jane").count == 2)
    }

    @Test func noReminderForARenewalThatChargesNothingOrForASubscriberWhoStoppedThem() async throws {
        let (storage, _, _) = try await CodeSignInTests().storages(.sqlite)
        let worker = renewals.worker(storage, "one")
        let at = start.addingTimeInterval(-day)
        for (customer, change) in [
            ("skips", SubscriptionChange.skipNext), ("pauses", .pause), ("ends", .cancelAtPeriodEnd), ("quiet", .reminders(on: false)),
        ] {
            _ = try await renewals.subscribe(storage, customer)
            let changed = try await storage.subscriptions.change("sub_\(customer)", change, by: "shopper:\(customer)", at: at)
            #expect((try? changed.get()) != nil, "\(customer): \(changed)")
        }
        _ = try await renewals.subscribe(storage, "told")
        #expect(try await worker.pass(at: at).reminded == ["sub_told"])
        // The reminders come again when asked for, for a renewal not yet reminded.
        _ = try await storage.subscriptions.change("sub_quiet", .reminders(on: true), by: "shopper:quiet", at: at)
        #expect(try await worker.pass(at: at.addingTimeInterval(60)).reminded == ["sub_quiet"])
    }

    @Test func aRemindersSkipSkipsOnlyTheRenewalItRemindedOf() async throws {
        let (storage, _, _) = try await CodeSignInTests().storages(.sqlite)
        let subscription = try await renewals.subscribe(storage, "acct_jane")
        let worker = renewals.worker(storage, "one")
        _ = try await worker.pass(at: start.addingTimeInterval(-day))
        #expect(try await worker.pass(at: start.addingTimeInterval(60)).renewed == ["sub_acct_jane"], "the reminded renewal came first")
        // The link for period 2, followed after period 2 renewed: refused, and period 3 is not skipped.
        let late = try await storage.subscriptions.change(
            subscription.id, .skipNext, by: "shopper:acct_jane", period: 2, at: start.addingTimeInterval(120))
        #expect(late == .failure(SubscriptionChangeRefusal("That delivery has been renewed already: change the next one in your account.")))
        #expect(try await storage.subscriptions.subscription(id: subscription.id)?.skipsNext == false)
        // Period 3's link, in time: period 3 alone is skipped.
        let skipped = try await storage.subscriptions.change(
            subscription.id, .skipNext, by: "shopper:acct_jane", period: 3, at: start.addingTimeInterval(180))
        #expect((try? skipped.get())?.skipsNext == true)
        let third = start.addingTimeInterval(2 * RenewalSchedule.week)
        #expect(try await worker.pass(at: third.addingTimeInterval(60)).skipped == ["sub_acct_jane"])
        #expect(try await worker.pass(at: third.addingTimeInterval(2 * RenewalSchedule.week + 60)).renewed == ["sub_acct_jane"])
    }
}
