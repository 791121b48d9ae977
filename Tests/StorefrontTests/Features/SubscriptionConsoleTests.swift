import Foundation
import ShopModels
import ShopPorts
import SnapshotTesting
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The console's subscriptions (`storefront admin`, key 6): listed by state with the renewals of the next 30 days and
/// their goods; `x` cancels one at the end of its period, in its history and told to its subscriber.
@MainActor
@Suite("The console's subscriptions")
struct SubscriptionConsoleTests {
    /// A console over a shop with three subscriptions to a Dusk Keycap Set ($64.00): two active every two weeks (due in
    /// 1 and 2 days) and one paused.
    func console(size: Size = Size(columns: 100, rows: 24)) async throws -> (ScriptedDriver, SQLSubscriptions) {
        var stack = TestStack()
        stack.console = .merchant(name: "local:ada")
        stack.backOffice = stack.liveBackOffice
        let store = SQLSubscriptions(database: stack.database)
        let now = Fixtures.fixedDates.now()
        for (day, status) in [(1, SubscriptionStatus.active), (2, .active), (3, .paused)] {
            try await store.create(
                Subscription(
                    id: "sub_\(day)", customerID: "acct_\(day)", productID: "keycap-dusk", quantity: 1, intervalWeeks: 2, status: status,
                    renewsAt: now.addingTimeInterval(Double(day) * RenewalSchedule.day), cardID: "card_ok_visa_4242", cardDescription: "Visa ••4242",
                    shipTo: Fixtures.jane, shippingMethodID: "standard"),
                event: SubscriptionEvent(at: now, actor: "shopper:acct_\(day)", kind: "created", detail: ""))
        }
        return (await ScriptedDriver(stack: stack, size: size), store)
    }

    @Test func theActiveOnesAndTheirRenewalsToComeThenTabThenACancel() async throws {
        let (admin, store) = try await console()
        try await admin.press("6")
        #expect(admin.state.screen == .merchantSubscriptions)
        let screen = try #require(admin.state.merchant?.subscriptions)
        #expect(screen.rows.map(\.id) == ["sub_1", "sub_2"])
        // In 30 days each active one renews three times (days 1, 15, 29 and 2, 16, 30 less the last past the window).
        #expect(screen.upcomingCount == 5 && screen.upcomingGoods.map(\.minorUnits) == [5 * 6_400])
        #expect(admin.frameText.contains("Subscriptions · active") && admin.frameText.contains("5 renewals in 30 days, $320.00 of goods"))
        try await admin.press("tab,tab")
        #expect(admin.state.merchant?.subscriptions.rows.map(\.id) == ["sub_3"], "paused")
        try await admin.press("tab,tab")
        #expect(admin.state.merchant?.subscriptions.rows.count == 3, "all")
        try await admin.press("x")
        let ending = try #require(try await store.subscription(id: "sub_1"))
        #expect(ending.endsAtPeriodEnd && ending.status == .active)
        #expect(admin.state.notice?.text.description.hasPrefix("sub_1 ends on ") == true)
        let told = try await store.dueMail(at: Fixtures.fixedDates.now(), limit: 10)
        #expect(told.map(\.event.actor) == ["merchant:local:ada"] && told.first?.event.kind == "canceled")
        #expect(!admin.frameText.contains("x cancel"), "ending already: nothing more to cancel")
    }

    /// The subscriptions screen at three sizes.
    @Test("console subscriptions at 80x24, 120x34 and 200x60", arguments: MerchantSnapshotTests.sizes)
    func snapshot(size: Size) async throws {
        let (admin, _) = try await console(size: size)
        try await admin.press("6")
        assertSnapshot(of: admin.frameText, as: .lines, named: "console-subscriptions-\(size)")
    }
}
