import Foundation
import StorefrontTesting
import Testing

/// `storefront orders refund` and `cancel` on a shop's data directory: money back through the sandbox, stock back
/// on the shelf, refusals with their reasons, and a refund left pending by a killed process finished by the next.
@Suite("Refunds from the command line", .ownThreads)
struct OrdersRefundCommandTests {
    /// A shop with one paid order of two Dusk Keycap Sets; returns the binary and the data directory.
    func shopWithAnOrder() throws -> (String, String) {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        let bought = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "enter,a,a,c,enter,p,enter"])
        try #require(bought.status == 0 && bought.stdout.contains("Thank you"), "\(bought.stderr)")
        return (binary, directory)
    }

    func onHand(_ binary: String, _ directory: String, _ product: String) throws -> Int? {
        let listed = try Subprocess.run(binary, ["stock", "list", "--json", "--data-dir", directory])
        let levels = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["stock"] as? [[String: Any]]
        return levels?.first { $0["productId"] as? String == product }?["onHand"] as? Int
    }

    func order(_ binary: String, _ directory: String) throws -> [String: Any] {
        let shown = try Subprocess.run(binary, ["orders", "show", "SF-000001", "--json", "--data-dir", directory])
        return try #require((try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["order"] as? [String: Any])
    }

    @Test func aLineIsRefundedAndRestockedThenTheRestCanceled() throws {
        let (binary, directory) = try shopWithAnOrder()
        let before = try #require(try onHand(binary, directory, "keycap-dusk"))
        let refunded = try Subprocess.run(
            binary,
            ["orders", "refund", "SF-000001", "--line", "keycap-dusk:1", "--restock", "--reason", "arrived bent", "--json", "--data-dir", directory])
        #expect(refunded.status == 0, "\(refunded.stderr)")
        var order = try order(binary, directory)
        #expect(order["status"] as? String == "partiallyRefunded")
        // One keycap set and its share of the tax: $64.00 + $5.28.
        #expect(order["refunded"] as? Int == 6_864)
        #expect(try onHand(binary, directory, "keycap-dusk") == before + 1)
        let refunds = try #require(order["refunds"] as? [[String: Any]])
        #expect(refunds.map { $0["state"] as? String } == ["refunded"])
        #expect(refunds.first?["providerReference"] as? String == "re_sandbox_RF-000001")

        let tooMuch = try Subprocess.run(binary, ["orders", "refund", "SF-000001", "--amount", "500", "--reason", "x", "--data-dir", directory])
        #expect(tooMuch.status == 65)
        #expect(tooMuch.stderr.contains("A refund of $500.00 is more than is left to refund ($68.64)."), "\(tooMuch.stderr)")

        let canceled = try Subprocess.run(binary, ["orders", "cancel", "SF-000001", "--data-dir", directory])
        #expect(canceled.status == 0, "\(canceled.stderr)")
        order = try self.order(binary, directory)
        #expect(order["status"] as? String == "canceled")
        #expect(order["refunded"] as? Int == order["total"] as? Int)
        #expect((order["events"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["placed", "charged", "refunded", "canceled"])
        #expect(try onHand(binary, directory, "keycap-dusk") == before + 2, "the cancel put back the line the refund had not")
        let again = try Subprocess.run(binary, ["orders", "cancel", "SF-000001", "--data-dir", directory])
        #expect(again.status == 65 && again.stderr.contains("only a paid order that has not shipped can be canceled"), "\(again.stderr)")

        // The shopper's order page: the refund and what is left.
        let seen = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--size", "100x30", "--keys", "o,enter"])
        #expect(seen.stdout.contains("Refunded $68.64: arrived bent") && seen.stdout.contains("Net"), "\(seen.stdout.suffix(2_000))")
    }

    @Test func badRequestsAreUsageErrorsAndWriteNothing() throws {
        let (binary, directory) = try shopWithAnOrder()
        for (arguments, message) in [
            (["--reason", "x"], "say what to refund"),
            (["--amount", "1", "--restock", "--reason", "x"], "--restock puts back the --line lines"),
            (["--amount", "12.345", "--reason", "x"], "--amount must be a plain amount"),
            (["--line", "keycap-dusk:0", "--reason", "x"], "--line must be PRODUCT-ID or PRODUCT-ID:QUANTITY"),
            (["--amount", "1", "--reason", "two\nlines"], "--reason must be 1 to 100 characters on one line"),
        ] {
            let result = try Subprocess.run(binary, ["orders", "refund", "SF-000001"] + arguments + ["--data-dir", directory])
            #expect(result.status == 64 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let moreThanBought = try Subprocess.run(
            binary, ["orders", "refund", "SF-000001", "--line", "keycap-dusk:3", "--restock", "--reason", "x", "--data-dir", directory])
        #expect(moreThanBought.status == 65)
        #expect(
            moreThanBought.stderr.contains("Cannot put back 3 of Dusk Keycap Set: only 2 of those bought are left to put back."),
            "\(moreThanBought.stderr)")
        #expect((try order(binary, directory)["refunds"] as? [Any])?.isEmpty == true)
    }

    @Test(
        "a refund filed by a process killed before the provider answered is finished by the next command",
        arguments: ["after-filing-refund", "after-refunding"])
    func aKilledRefundIsFinishedOnce(step: String) throws {
        let (binary, directory) = try shopWithAnOrder()
        let killed = try Subprocess.run(
            binary, ["orders", "refund", "SF-000001", "--amount", "10", "--reason", "goodwill", "--data-dir", directory],
            environment: ProcessInfo.processInfo.environment.merging(["STOREFRONT_FAULT": "kill-\(step)"]) { $1 })
        #expect(killed.status != 0)
        #expect((try order(binary, directory)["refunds"] as? [[String: Any]])?.map { $0["state"] as? String } == ["pending"])
        let blocked = try order(binary, directory)["status"] as? String
        #expect(blocked == "paid")

        // The next change first asks the provider about the pending refund, under its own key: refunded once.
        let soon = try Subprocess.run(
            binary, ["orders", "ship", "SF-000001", "--carrier", "UPS", "--tracking-number", "1Z", "--data-dir", directory])
        #expect(
            soon.status == 75 && !soon.stderr.contains("left pending by an earlier run"),
            "a refund just filed is its filer's for two minutes: \(soon.stderr)")
        let settleNow = ProcessInfo.processInfo.environment.merging(["STOREFRONT_SETTLE_AFTER_SECONDS": "0"]) { $1 }
        let shipped = try Subprocess.run(
            binary, ["orders", "ship", "SF-000001", "--carrier", "UPS", "--tracking-number", "1Z", "--data-dir", directory], environment: settleNow)
        #expect(shipped.status == 0, "\(shipped.stderr)")
        #expect(shipped.stderr.contains("refund RF-000001 of SF-000001, left pending by an earlier run: refunded now"), "\(shipped.stderr)")
        let order = try order(binary, directory)
        #expect(order["refunded"] as? Int == 1_000)
        #expect((order["events"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["placed", "charged", "refunded", "shipped"])
    }
}
