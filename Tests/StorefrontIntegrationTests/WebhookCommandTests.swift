import Foundation
import ShopStripe
import StorefrontTesting
import Testing

/// `storefront webhooks` and `serve --webhook-listen` as an operator meets them: refused at once, with the reason,
/// when they could not check a signature; and, started right, a listener that answers Stripe and logs each event.
@Suite("Webhook commands")
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
}
