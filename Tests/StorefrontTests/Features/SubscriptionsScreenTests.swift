import Foundation
import ShopLanguages
import ShopModels
import ShopPorts
import SnapshotTesting
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The shopper's subscriptions on the account screen (r): each with its next date, price, card and address; Enter
/// offers the changes, and each one is written in the subscription's history.
@MainActor
@Suite("Subscriptions on the account screen")
struct SubscriptionsScreenTests {
    /// A signed-in shopper who subscribed to Compile-Time Coffee every week, on their subscriptions screen.
    func subscribed(size: Size = Size(columns: 100, rows: 30)) async throws -> (ScriptedDriver, SQLSubscriptions) {
        let driver = try await SubscribeSheetTests().onCoffee(size: size)
        try await driver.press("r,p,enter,u,r")
        #expect(driver.state.screen == .subscriptions)
        return (driver, SQLSubscriptions(database: driver.stack.database))
    }

    /// Opens the changes of the selected subscription and applies the one titled `title`.
    func apply(_ title: String, on driver: ScriptedDriver) async throws {
        try await driver.press("enter")
        let options = try #require(driver.state.subscriptions.menu?.options.map(\.title))
        let index = try #require(options.firstIndex(of: Localized.lookup(title)), "\(options)")
        for _ in 0..<index { try await driver.press("down") }
        try await driver.press("enter")
    }

    @Test func theListShowsNextDatePriceCardAndAddress() async throws {
        let (driver, _) = try await subscribed()
        let row = try #require(driver.state.subscriptions.rows.first)
        #expect(row.name == "Compile-Time Coffee — Whole bean · 250 g" && row.goods?.minorUnits == 1_700 && row.offered == [1, 2, 4])
        let next = UTCTime(Fixtures.fixedDates.now().addingTimeInterval(RenewalSchedule.week)).calendarDate
        let frame = driver.frameText
        for text in [
            "Compile-Time Coffee — Whole bean · 250 g", "$17.00 every week", "Next delivery \(next), every week.", "Visa ••4242 · Jane Appleseed",
        ] {
            #expect(frame.contains(text), "\(text): \(frame)")
        }
    }

    @Test func eachChangeIsWrittenAndInTheHistory() async throws {
        let (driver, store) = try await subscribed()
        let id = try #require(driver.state.subscriptions.rows.first?.subscription.id)
        try await driver.press("enter")
        #expect(
            driver.state.subscriptions.menu?.options.prefix(4).map(\.title) == ["Skip the next delivery", "Pause", "Every 2 weeks", "Every 4 weeks"])
        try await driver.press("esc")
        try await apply("Skip the next delivery", on: driver)
        #expect(try await store.subscription(id: id)?.skipsNext == true)
        #expect(driver.state.notice?.text.description.hasPrefix("Saved. The delivery of ") == true)
        try await apply("Every 4 weeks", on: driver)
        try await apply("Ship to Sam Rivera, 42 Harbor Street, Portland OR 97201, US", on: driver)
        try await apply("Charge Mastercard ••4444  Test: succeeds", on: driver)
        try await apply("Pause", on: driver)
        #expect(driver.frameText.contains("Paused: nothing is sent until you resume it."))
        try await apply("Resume", on: driver)
        try await apply("Cancel at the end of the period", on: driver)
        let now = try #require(try await store.subscription(id: id))
        #expect(now.skipsNext && now.intervalWeeks == 4 && now.shipTo.name == "Sam Rivera" && now.cardDescription == "Mastercard ••4444")
        #expect(now.status == .active && now.endsAtPeriodEnd)
        let history = try await store.history(of: id)
        #expect(history.map(\.kind) == ["created", "changed", "changed", "changed", "changed", "paused", "resumed", "canceled"])
        #expect(history.dropFirst().allSatisfy { $0.actor == "shopper:\(SubscribeSheetTests.customer)" })
        #expect(history[2].detail == "every 4 weeks from the next period")
        try await apply("Cancel now", on: driver)
        #expect(try await store.subscription(id: id)?.status == .canceled)
        try await driver.press("enter")
        #expect(driver.state.subscriptions.menu == nil && driver.state.notice?.text == "This subscription is canceled: nothing more can change.")
    }

    @Test func aShopperCannotChangeAnotherCustomersSubscription() async throws {
        let (driver, store) = try await subscribed()
        let id = try #require(driver.state.subscriptions.rows.first?.subscription.id)
        let answer = try await store.change(id, .cancelNow, by: "shopper:acct_mallory", owner: "acct_mallory", at: Fixtures.fixedDates.now())
        #expect(answer == .failure(SubscriptionChangeRefusal("No subscription \(id).")))
        #expect(try await store.subscription(id: id)?.status == .active)
    }

    /// The list, and the changes Enter opens, at three sizes.
    @Test("subscriptions screens at 80x24, 40x12 and 200x60", arguments: ["subscriptions", "subscription-changes"], SnapshotTests.sizes)
    func snapshot(name: String, size: Size) async throws {
        let (driver, _) = try await subscribed(size: size)
        if name == "subscription-changes" { try await driver.press("enter") }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }
}
