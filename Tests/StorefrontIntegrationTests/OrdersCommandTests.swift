import Foundation
import StorefrontTesting
import Testing

/// `storefront orders show`, `ship` and `deliver` on a shop's data directory, as a merchant's script runs them.
@Suite("Orders from the command line", .ownThreads)
struct OrdersCommandTests {
    @Test func aBoughtOrderIsShippedAndDeliveredAndItsHistoryListsEveryStep() throws {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        let bought = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "enter,a,c,enter,p,enter"])
        try #require(bought.status == 0 && bought.stdout.contains("Thank you"), "\(bought.stderr)")

        let ship = [
            "orders", "ship", "SF-000001", "--carrier", "UPS", "--tracking-number", "1Z999AA10123456784",
            "--tracking-url", "https://ups.example/t/1Z999AA10123456784", "--data-dir", directory,
        ]
        let shipped = try Subprocess.run(binary, ship)
        #expect(shipped.status == 0, "\(shipped.stderr)")
        #expect(shipped.stdout.contains("SF-000001  Shipped"))
        let again = try Subprocess.run(binary, ship)
        #expect(again.status == 65)
        #expect(again.stderr.contains("The order is shipped: it was shipped already."))
        // The shopper's order page says so, with the tracking number.
        let seen = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--size", "100x30", "--keys", "o,enter"])
        #expect(seen.stdout.contains("Shipped with UPS, tracking 1Z999AA10123456784"), "\(seen.stdout.suffix(2_000))")
        #expect(try Subprocess.run(binary, ["orders", "deliver", "SF-000001", "--data-dir", directory]).status == 0)

        let shown = try Subprocess.run(binary, ["orders", "show", "SF-000001", "--json", "--data-dir", directory])
        #expect(shown.status == 0, "\(shown.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let order = try #require(document["order"] as? [String: Any])
        #expect(order["status"] as? String == "delivered")
        let events = try #require(order["events"] as? [[String: Any]])
        #expect(events.map { $0["kind"] as? String } == ["placed", "charged", "shipped", "delivered"])
        #expect(
            events.map { $0["actor"] as? String } == [
                "shopper:local:\(NSUserName())", "provider", "merchant:\(NSUserName())", "merchant:\(NSUserName())",
            ])
        #expect((events[2]["details"] as? [String: String])?["trackingURL"] == "https://ups.example/t/1Z999AA10123456784")
    }

    @Test func badInputIsRefusedWithItsReasonAndNothingIsWritten() throws {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        let bought = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "enter,a,c,enter,p,enter"])
        try #require(bought.status == 0, "\(bought.stderr)")
        let unknown = try Subprocess.run(binary, ["orders", "show", "SF-999999", "--data-dir", directory])
        #expect(unknown.status == 65 && unknown.stderr.contains("There is no order SF-999999."))
        let notShipped = try Subprocess.run(binary, ["orders", "deliver", "SF-000001", "--data-dir", directory])
        #expect(notShipped.status == 65 && notShipped.stderr.contains("only a shipped order can be delivered"), "\(notShipped.stderr)")
        let badURL = try Subprocess.run(
            binary,
            [
                "orders", "ship", "SF-000001", "--carrier", "UPS", "--tracking-number", "1Z", "--tracking-url", "javascript:alert(1)", "--data-dir",
                directory,
            ])
        #expect(badURL.status == 64 && badURL.stderr.contains("--tracking-url must be a web address"))
        let noShop = try Subprocess.run(binary, ["orders", "show", "SF-000001", "--data-dir", directory + "/nowhere"])
        #expect(noShop.status == 66)
        let shown = try Subprocess.run(binary, ["orders", "show", "SF-000001", "--json", "--data-dir", directory])
        let events =
            ((try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["order"] as? [String: Any])?["events"]
            as? [[String: Any]]
        #expect(events?.count == 2, "placed and charged only: the refused changes wrote nothing")
    }
}
