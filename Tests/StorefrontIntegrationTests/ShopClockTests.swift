import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts
import Testing

/// The shop's clock: moved on one host, followed by the others at their next read; a year of renewals in seconds
/// with `storefront clock advance`; never moved on a live shop.
@Suite("The shop's clock", .ownThreads)
struct ShopClockTests {
    @Test(arguments: CodeSignInTests.Kind.allCases)
    func aMoveOnOneHostIsTheTimeOfEveryHostAtItsNextReadAndAResetPutsItBack(_ kind: CodeSignInTests.Kind) async throws {
        let (here, there, _) = try await CodeSignInTests().storages(kind)
        #expect(try await here.clockStore.offsetSeconds() == 0, "a clock never moved runs on the wall clock")
        let before = Date()
        try await here.clockStore.setOffsetSeconds(14 * 86_400, at: before)
        let moved = await there.currentTime()
        #expect(moved >= before.addingTimeInterval(14 * 86_400) && moved < Date().addingTimeInterval(14 * 86_400 + 60), "\(moved)")
        #expect(there.clock.offsetSeconds == 14 * 86_400)
        try await here.clockStore.setOffsetSeconds(0, at: Date())
        #expect(await there.currentTime() <= Date(), "back on the wall clock")
    }

    @Test func aYearOfRenewalsRunsInSecondsAndALiveShopNeitherMovesNorRenewsOnAMovedClock() async throws {
        let shop = SubscriptionsCommandTests()
        try await shop.seed()
        #expect(try shop.storefront(["stock", "set", "keycap-dusk", "100"]).status == 0, "enough keycaps for a year")
        #expect(try shop.storefront(["clock"]).stdout.contains("the wall clock's time"))
        #expect(try shop.storefront(["subscriptions-worker", "--once"]).stdout.hasPrefix("renewed 1,"), "the one due a day ago")
        // Every two weeks for a year: both subscriptions renew at each pass, each once.
        for week in stride(from: 2, through: 52, by: 2) {
            let moved = try shop.storefront(["clock", "advance", "--days", "14"])
            #expect(moved.status == 0 && moved.stdout.contains("\(week * 7) days ahead of the wall clock"), "\(moved)")
            let pass = try shop.storefront(["subscriptions-worker", "--once"])
            #expect(pass.stdout == "renewed 2, skipped 0, failed 0, ended 0, left for later 0, reminded 0\n", "week \(week): \(pass)")
        }
        let orders = try shop.storefront(["orders", "--json"])
        #expect(orders.stdout.components(separatedBy: "\"number\"").count - 1 == 53, "one order, then two a fortnight for a year")
        let shown = try shop.storefront(["subscriptions", "show", "sub_due", "--json"])
        let subscription = try #require(
            (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["subscription"] as? [String: Any])
        let renews = try #require(subscription["renewsAt"] as? String)
        #expect(renews.hasPrefix(UTCTime(Date().addingTimeInterval(377 * 86_400)).calendarDate.prefix(7)), "next renewal a year on: \(renews)")

        let live = ["STOREFRONT_PAYMENTS": "stripe", "STOREFRONT_STRIPE_SECRET_KEY": "sk_live_" + String(repeating: "4", count: 24)]
        let refusedMove = try shop.storefront(["clock", "advance", "--days", "1"], environment: live)
        #expect(refusedMove.status == 78 && refusedMove.stderr.contains("takes live payments"), "\(refusedMove)")
        let refusedPass = try shop.storefront(["subscriptions-worker", "--once"], environment: live)
        #expect(refusedPass.status == 78 && refusedPass.stderr.contains("`storefront clock reset` before renewing"), "\(refusedPass)")
        #expect(try shop.storefront(["clock", "advance"]).status == 64, "a move of nothing")
        #expect(try shop.storefront(["clock", "advance", "--days", "4000"]).status == 64)
        let reset = try shop.storefront(["clock", "reset"])
        #expect(reset.status == 0 && reset.stdout.contains("the wall clock's time"), "\(reset)")
        #expect(try shop.storefront(["subscriptions-worker", "--once"]).stdout == "nothing due\n", "back on the wall clock, nothing is due")
    }
}
