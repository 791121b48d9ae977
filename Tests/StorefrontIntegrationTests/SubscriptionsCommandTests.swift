import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontTesting
import SystemPackage
import Testing

/// `storefront subscriptions` and `storefront subscriptions-worker --once` on a shop's data directory: the merchant lists
/// them by state, sees one's history and the renewals to come with their goods, cancels one; the worker renews what is due.
@Suite("storefront subscriptions", .ownThreads)
struct SubscriptionsCommandTests {
    let data = TemporaryDirectory.make().path

    func storefront(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        let run = try Subprocess.run(try BuiltProduct.requireStorefront(), arguments + ["--data-dir", data], environment: environment)
        return (run.status, run.stdout, run.stderr)
    }

    /// Two subscriptions to a Dusk Keycap Set ($64.00) every two weeks, one due a day ago and one due in ten days.
    func seed() async throws {
        try #require(try storefront(["headless", "--keys", "q"]).status == 0)
        let storage = try await ShopStorage.openShop(
            at: .sqlite(directory: FilePath(data)), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        let now = Date()
        for (name, due) in [("due", now.addingTimeInterval(-RenewalSchedule.day)), ("later", now.addingTimeInterval(10 * RenewalSchedule.day))] {
            let card = SandboxCard.all[0]
            try await storage.wallets.addCard(card.paymentMethod, forCustomer: "acct_\(name)", makeDefault: true)
            try await storage.subscriptions.create(
                Subscription(
                    id: "sub_\(name)", customerID: "acct_\(name)", productID: "keycap-dusk", quantity: 1, intervalWeeks: 2, renewsAt: due,
                    cardID: card.walletID, cardDescription: card.paymentMethod.shortName, shipTo: Fixtures.jane, shippingMethodID: "standard"),
                event: SubscriptionEvent(at: now, actor: "shopper:acct_\(name)", kind: "created", detail: "every 2 weeks"))
        }
        storage.close()
    }

    @Test func theMerchantListsSeesTheRenewalsToComeAndCancelsAndTheWorkerRenewsWhatIsDue() async throws {
        try await seed()
        let listed = try storefront(["subscriptions", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("sub_due") && listed.stdout.contains("sub_later"), "\(listed)")
        // In 30 days: the due one now, +14 and +28 days; the later one at +10 and +24 days: five renewals of $64.00.
        let upcoming = try storefront(["subscriptions", "upcoming", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(upcoming.stdout.utf8)) as? [String: Any])
        #expect((document["renewals"] as? [[String: Any]])?.count == 5, "\(upcoming.stdout)")
        #expect((document["goods"] as? [[String: Any]])?.first?["amount"] as? Int == 5 * 6_400)

        let renewed = try storefront(["subscriptions-worker", "--once"])
        #expect(renewed.status == 0 && renewed.stdout == "renewed 1, skipped 0, failed 0, ended 0, left for later 0, reminded 0\n", "\(renewed)")
        #expect(try storefront(["subscriptions-worker", "--once"]).stdout == "nothing due\n", "a second pass charges nothing")
        let orders = try storefront(["orders", "--json"])
        #expect(orders.stdout.components(separatedBy: "\"number\"").count - 1 == 1, "one order: \(orders.stdout)")

        let canceled = try storefront(["subscriptions", "cancel", "sub_later", "--at-period-end"])
        #expect(canceled.status == 0 && canceled.stdout.hasPrefix("sub_later ends on "), "\(canceled)")
        #expect(try storefront(["subscriptions", "cancel", "sub_nope"]).status == 65)
        let shown = try storefront(["subscriptions", "show", "sub_later", "--json"])
        let later = try #require(
            (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["subscription"] as? [String: Any])
        #expect(later["endsAtPeriodEnd"] as? Bool == true)
        #expect((later["history"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["created", "canceled"])
        let active = try storefront(["subscriptions", "list", "--status", "active", "--json"])
        #expect(active.stdout.contains("sub_due") && active.stdout.contains("sub_later"), "ending at its period's end, it is active until then")
        #expect(try storefront(["subscriptions", "upcoming", "--days", "0"]).status == 64)
    }
}
