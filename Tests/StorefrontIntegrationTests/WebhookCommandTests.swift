import Foundation
import GRDB
import ShopStripe
import StorefrontTesting
import Testing

/// `storefront webhooks` and `serve --webhook-listen` as an operator meets them: refused at once, with the reason,
/// when they could not check a signature; and, started right, a listener that answers Stripe and logs each event.
@Suite("Webhook commands", .ownThreads)
struct WebhookCommandTests {
    let scratch = TemporaryDirectory.make().path
    let secret = "whsec_command_test_secret_7c1e"

    func webhooks(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Subprocess {
        var environment = ["PATH": "/usr/bin:/bin", "HOME": scratch, "STOREFRONT_STRIPE_SECRET_KEY": LocalStripe.secretKey]
        environment.merge(extra) { $1 }
        return try Subprocess.run(try BuiltProduct.requireStorefront(), ["webhooks", "--data-dir", scratch] + arguments, environment: environment)
    }

    @Test func aListenerThatCouldNotCheckSignaturesNeverStarts() throws {
        let stripe = ["--payments", "stripe", "--stripe-raw-card-data", "--listen", "127.0.0.1:0"]
        let unsigned = try webhooks(stripe)
        #expect(unsigned.status == 78)
        #expect(unsigned.stderr.contains("set STOREFRONT_STRIPE_WEBHOOK_SECRET, or name a file with --webhook-secret-file"), "\(unsigned.stderr)")

        let notASecret = try webhooks(stripe, environment: ["STOREFRONT_STRIPE_WEBHOOK_SECRET": "sk_test_oops_this_is_the_api_key"])
        #expect(notASecret.status == 78)
        #expect(notASecret.stderr.contains("is not a Stripe webhook signing secret (they start whsec_)"), "\(notASecret.stderr)")
        #expect(!notASecret.stderr.contains("this_is_the_api_key"), "the value is not echoed whole")

        let sandbox = try webhooks(["--listen", "127.0.0.1:0"], environment: ["STOREFRONT_STRIPE_WEBHOOK_SECRET": secret])
        #expect(sandbox.status == 78)
        #expect(sandbox.stderr.contains("webhooks come from Stripe: start with --payments stripe"), "\(sandbox.stderr)")

        let badAddress = try webhooks(stripe.dropLast(2) + ["--listen", "localhost"], environment: ["STOREFRONT_STRIPE_WEBHOOK_SECRET": secret])
        #expect(badAddress.status == 64)
        #expect(badAddress.stderr.contains("\"localhost\" is not HOST:PORT"), "\(badAddress.stderr)")
    }

    @Test func serveHearsStripeBesideTheShopAndLogsEachEvent() throws {
        let server = try LocalStripe()
        let serve = try ServeProcess(
            arguments: ["--payments", "stripe", "--stripe-api-base", server.base, "--stripe-raw-card-data", "--webhook-listen", "127.0.0.1:0"],
            environment: ["STOREFRONT_STRIPE_SECRET_KEY": LocalStripe.secretKey, "STOREFRONT_STRIPE_WEBHOOK_SECRET": secret]
        )
        let port = Int(try serve.waitForLog(#/webhooks: listening on 127\.0\.0\.1:(\d+)/#).output.1) ?? 0
        let payload = Array(#"{"id":"evt_cli_1","type":"customer.created","data":{"object":{"id":"cus_1"}}}"#.utf8)
        let signed = StripeWebhookSignature.header(for: payload, secret: secret, at: Date())
        func post(_ signature: String) throws -> String {
            try LocalStripe.exchange(
                "POST /webhooks/stripe HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nStripe-Signature: \(signature)\r\nContent-Length: \(payload.count)\r\n\r\n"
                    + String(decoding: payload, as: UTF8.self), port: port
            )
        }
        #expect(try post(signed).hasPrefix("HTTP/1.1 200"))
        _ = try serve.waitForLog(#/webhook customer\.created evt_cli_1: ignored: Stripe events of type customer\.created are not acted on/#)
        #expect(try post("t=1,v1=" + String(repeating: "0", count: 64)).hasPrefix("HTTP/1.1 400"))
        _ = try serve.waitForLog(#/webhook refused: stale signature/#)
        #expect(try serve.terminate() == 0)
    }

    @Test func waitingListsTheEventsKeptButNotAppliedAndPrintsNoEscapeSequence() throws {
        let binary = try BuiltProduct.requireStorefront()
        let empty = try Subprocess.run(
            binary, ["webhooks", "waiting", "--data-dir", scratch], environment: ["PATH": "/usr/bin:/bin", "HOME": scratch])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains("Event") && !empty.stdout.contains("evt_"), "\(empty.stdout)")
        // An error as Stripe's API could word it, with an OSC 0 title change in it.
        let queue = try DatabaseQueue(path: scratch + "/storefront.sqlite")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO provider_event_inbox (provider, id, type, payload, received_at, attempts, next_attempt_at, last_error, state)
                    VALUES ('stripe', 'evt_late', 'charge.refunded', x'7B7D', 1795339800, 3, 1795349800, ?, 'given-up'),
                           ('stripe', 'evt_next', 'payment_intent.succeeded', x'7B7D', 1795339900, 1, 1795339930, 'Stripe did not answer', 'waiting')
                    """, arguments: ["said \u{1B}]0;pwned\u{07}"])
        }
        try queue.close()
        let table = try Subprocess.run(
            binary, ["webhooks", "waiting", "--data-dir", scratch], environment: ["PATH": "/usr/bin:/bin", "HOME": scratch])
        let rows = table.stdout.split(separator: "\n").filter { $0.contains("evt_") }
        #expect(
            rows.count == 2 && rows[0].contains("evt_late") && rows[0].contains("given up") && rows[1].contains("evt_next")
                && rows[1].contains("waiting"), "\(table.stdout)")
        #expect(!table.stdout.contains("\u{1B}") && !table.stdout.contains("\u{07}"), "\(table.stdout.debugDescription)")
        let json = try Subprocess.run(
            binary, ["webhooks", "waiting", "--json", "--data-dir", scratch], environment: ["PATH": "/usr/bin:/bin", "HOME": scratch])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let events = try #require(document["events"] as? [[String: Any]])
        #expect(events.map { $0["id"] as? String } == ["evt_late", "evt_next"])
        #expect(events.map { $0["attempts"] as? Int } == [3, 1] && events.map { $0["state"] as? String } == ["given up", "waiting"])
        #expect(events[0]["receivedAt"] as? String == "2026-11-22T09:30:00Z")
    }
}
