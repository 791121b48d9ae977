import Foundation
import StorefrontTesting
import Testing

/// The subscriber's year, over SSH in a real terminal with the shop's clock moved by `storefront clock advance`: a
/// coffee every two weeks; a renewal; a card that declines, its message and a retry date; a new card, charged at once;
/// a skipped delivery; a pause and a resume; a move to an address outside the shop's regions (refused in words) and to
/// one inside (the next delivery ships there); and a cancel, after which nothing renews. Each renewal is left to
/// whichever worker passes first (serve's own, each minute, or `subscriptions-worker --once`): the subscription and the
/// orders say what happened, as the subscriber's screen and inbox do.
@Suite("Journey: the subscriber's year", .ownThreads)
struct SubscriberYearJourneyTests {
    let root = TemporaryDirectory.make().path

    @Test func subscribeRenewDeclineRecoverSkipPauseMoveAndCancel() async throws {
        let mail = try JourneyMail(in: root)
        let shop = try ServeProcess()
        let key = try shop.makeClientKey("sam")
        let cli = ShopCommandLine(dataDirectory: shop.dataDirectory)
        let terminal = try TmuxTerminal(columns: 120, rows: 34)
        func subjects() throws -> [String] { try mail.deliver(dataDirectory: shop.dataDirectory).map { $0["subject"] ?? "" } }

        // Subscribe: the sheet has an Every row above the card; two weeks; the thanks names the schedule.
        try shop.connect(terminal, key: key)
        let sheet = try terminal.openCoffeeSheetEveryTwoWeeks()
        let each = try #require(amounts(in: sheet)["Pay Storefront"])
        try terminal.press("p")
        try terminal.waitFor("and every 2 weeks until you cancel?")
        try terminal.press("Enter")
        let thanks = try terminal.waitFor("Repeats", timeout: .seconds(30))
        let first = String(try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1))
        #expect(thanks.contains("Every 2 weeks · next on"), "\(thanks)")
        try shop.leave(terminal)
        let id = "sub_\(first)"
        #expect(try subjects() == ["Your receipt for order \(first) from Storefront"])

        // Two weeks on: renewed at the price told, a second order and its receipt.
        try cli.advanceAndRenew(days: 14)
        var subscription = try cli.subscription(id)
        #expect(subscription["period"] as? Int == 3 && subscription["status"] as? String == "active", "\(subscription)")
        let renewal = try #require(try cli.orders().last)
        #expect(renewal["number"] as? String != first && renewal["total"] as? Int == each, "\(renewal)")
        // Its receipt says it is a renewal, not a purchase the subscriber just made.
        #expect(try subjects() == ["Your subscription renewed: receipt for order \(renewal["number"] ?? "") from Storefront"])

        // The card is changed to one with no money; the next renewal fails, and the subscriber is told when it is tried again.
        try changeSubscription(shop, terminal, key: key, to: "Charge Visa ••9995", saying: "Saved.")
        try cli.advanceAndRenew(days: 14)
        subscription = try cli.subscription(id)
        #expect(subscription["status"] as? String == "past_due" && subscription["failedAttempts"] as? Int == 1, "\(subscription)")
        let dunning = try mail.deliver(dataDirectory: shop.dataDirectory)
        try #require(dunning.count == 1, "\(dunning)")
        #expect(dunning[0]["subject"] == "Your Compile-Time Coffee — Whole bean · 250 g subscription could not be renewed")
        let told = dunning[0]["body"] ?? ""
        #expect(told.contains("We could not charge Visa ••9995") && told.contains("We try again on"), "\(told)")
        #expect(try cli.orders().count == 2, "nothing was charged")

        // The subscriber sees it past due, charges another card, and the missed delivery is renewed at the next pass.
        try shop.connect(terminal, key: key)
        try openSubscriptions(terminal)
        try terminal.waitFor("Past due")
        try shop.leave(terminal)
        try changeSubscription(shop, terminal, key: key, to: "Charge Visa ••4242", saying: "Saved.")
        try cli.advanceAndRenew(days: 0)
        subscription = try cli.subscription(id)
        #expect(subscription["status"] as? String == "active" && subscription["failedAttempts"] as? Int == 0, "\(subscription)")
        #expect(try cli.orders().count == 3, "the missed delivery, once")
        #expect(try mail.deliver(dataDirectory: shop.dataDirectory).count == 1, "its receipt")

        // Skip: the next period charges and sends nothing; the one after is as usual.
        try changeSubscription(shop, terminal, key: key, to: "Skip the next delivery", saying: "Saved.")
        let periodBeforeSkip = try #require(try cli.subscription(id)["period"] as? Int)
        try cli.advanceAndRenew(days: 14)
        #expect(try cli.orders().count == 3, "a skipped delivery is no order")
        #expect(try cli.subscription(id)["period"] as? Int == periodBeforeSkip + 1, "the period passed")

        // Pause: nothing renews however long; resumed, it is due at the schedule's next date.
        try changeSubscription(shop, terminal, key: key, to: "Pause", saying: "Paused")
        try cli.advanceAndRenew(days: 42)
        #expect(try cli.orders().count == 3)
        #expect(try cli.subscription(id)["status"] as? String == "paused")
        try changeSubscription(shop, terminal, key: key, to: "Resume", saying: "Saved.")
        #expect(try cli.subscription(id)["status"] as? String == "active")

        // A move outside the regions is refused in words; inside, the next delivery ships there.
        try changeSubscription(shop, terminal, key: key, to: "Ship to Ines Okafor", saying: "Storefront ships only to")
        try changeSubscription(shop, terminal, key: key, to: "Ship to Sam Rivera", saying: "Saved.")
        #expect(try cli.subscription(id)["shipTo"] as? String == "Sam Rivera, 42 Harbor Street, Portland OR 97201, US")
        try cli.advanceAndRenew(days: 14)
        let moved = try #require(try cli.orders().last)
        #expect(try cli.orders().count == 4 && "\(moved)".contains("Portland"), "\(moved)")
        let movedReceipt = try mail.deliver(dataDirectory: shop.dataDirectory)
        #expect(movedReceipt.count == 1 && (movedReceipt.first?["body"] ?? "").contains("Ships to: Sam Rivera, 42 Harbor Street"), "\(movedReceipt)")

        // Cancel now: nothing renews after, however far the clock goes.
        try changeSubscription(shop, terminal, key: key, to: "Cancel now", saying: "Canceled")
        try cli.advanceAndRenew(days: 56)
        #expect(try cli.subscription(id)["status"] as? String == "canceled")
        #expect(try cli.orders().count == 4, "four orders in the year: the first, two renewals and the move's")
        #expect(try cli.run(["clock", "reset"]).status == 0)
    }

    /// The account's subscriptions screen, from the shop's list, once it has read the subscription (its title comes first).
    func openSubscriptions(_ terminal: TmuxTerminal) throws {
        try terminal.press("u")
        try terminal.waitFor("Your account")
        try terminal.press("r")
        try terminal.waitFor("› Compile-Time Coffee — Whole bean · 250 g")
    }

    /// One visit over SSH: the subscription's changes, the one whose line holds `change`, and what the screen says after.
    func changeSubscription(_ shop: ServeProcess, _ terminal: TmuxTerminal, key: String, to change: String, saying: String) throws {
        try shop.connect(terminal, key: key)
        try openSubscriptions(terminal)
        try terminal.press("Enter")
        try terminal.waitFor("Change Compile-Time Coffee")
        try terminal.selectRow(containing: change)
        try terminal.press("Enter")
        try terminal.waitFor(saying)
        try shop.leave(terminal)
    }
}
