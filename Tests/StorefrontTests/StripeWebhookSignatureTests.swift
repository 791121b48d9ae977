import Crypto
import Foundation
import ShopPorts
import ShopStripe
import Testing

/// `Stripe-Signature` as Stripe documents it: HMAC-SHA256 over `t.payload` with the endpoint secret, any `v1` of any
/// secret held, within 300 s either way.
@Suite("Stripe webhook signatures")
struct StripeWebhookSignatureTests {
    let secret = "whsec_test_0123456789abcdef"
    let payload = Array(#"{"id":"evt_1","type":"payment_intent.succeeded"}"#.utf8)
    let now = Date(timeIntervalSince1970: 1_795_339_800)

    /// Stripe's scheme written out here, independently of the code under test.
    func v1(_ payload: [UInt8], secret: String, at time: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(time).".utf8) + payload, using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    @Test func aSignatureMadeWithTheSecretPasses() throws {
        let time = Int(now.timeIntervalSince1970) - 299
        try StripeWebhookSignature(secrets: [secret]).check(payload, header: "t=\(time),v1=\(v1(payload, secret: secret, at: time))", now: now)
        #expect(
            StripeWebhookSignature.header(for: payload, secret: secret, at: now)
                == "t=\(Int(now.timeIntervalSince1970)),v1=\(v1(payload, secret: secret, at: Int(now.timeIntervalSince1970)))")
    }

    @Test func anyV1OfAnySecretHeldPassesWhileASecretIsRotated() throws {
        let time = Int(now.timeIntervalSince1970)
        let old = "whsec_old_secret_00000000"
        // Stripe signs with the old and the new secret during a rotation; the shop may hold either, or both.
        let header = "t=\(time),v1=\(v1(payload, secret: old, at: time)),v1=\(v1(payload, secret: secret, at: time)),v0=deadbeef"
        try StripeWebhookSignature(secrets: [secret]).check(payload, header: header, now: now)
        try StripeWebhookSignature(secrets: [old]).check(payload, header: header, now: now)
        try StripeWebhookSignature(secrets: ["whsec_unrelated_000000", secret]).check(payload, header: header, now: now)
    }

    @Test func everyWrongSignatureIsRefusedSayingWhy() {
        let time = Int(now.timeIntervalSince1970)
        let good = v1(payload, secret: secret, at: time)
        let check = StripeWebhookSignature(secrets: [secret])
        let cases: [(String?, [UInt8], WebhookRefusal)] = [
            (nil, payload, .badSignature("no Stripe-Signature header")),
            ("", payload, .badSignature("no Stripe-Signature header")),
            ("v1=\(good)", payload, .badSignature("the Stripe-Signature header has no timestamp (t=, whole seconds since 1970)")),
            ("t=\(time)", payload, .badSignature("the Stripe-Signature header has no v1 signature")),
            ("t=\(time),v0=\(good)", payload, .badSignature("the Stripe-Signature header has no v1 signature")),
            (
                "t=\(time),v1=\(v1(payload, secret: "whsec_someone_else_000", at: time))", payload,
                .badSignature("no v1 signature matches the endpoint's secret")
            ),
            ("t=\(time),v1=\(good)", payload + Array(" ".utf8), .badSignature("no v1 signature matches the endpoint's secret")),
            ("t=\(time + 1),v1=\(good)", payload, .badSignature("no v1 signature matches the endpoint's secret")),
            ("t=\(time),v1=\(good.prefix(63))", payload, .badSignature("the Stripe-Signature header has no v1 signature")),
        ]
        for (header, body, refusal) in cases {
            #expect(throws: refusal, "\(header ?? "nil")") { try check.check(body, header: header, now: now) }
        }
    }

    @Test func aSignatureOlderOrNewerThanTheToleranceIsStale() {
        let check = StripeWebhookSignature(secrets: [secret])
        for offset in [-301, 301, -86_400] {
            let time = Int(now.timeIntervalSince1970) + offset
            let signedAt = Date(timeIntervalSince1970: TimeInterval(time))
            #expect(throws: WebhookRefusal.stale(signedAt: signedAt, now: now)) {
                try check.check(payload, header: "t=\(time),v1=\(v1(payload, secret: secret, at: time))", now: now)
            }
        }
    }

    /// A `t=` past year 9999 is no time Stripe signs: refused before any date arithmetic, never a trap.
    @Test(arguments: ["9300000000000000", "9223372036854775807", "-1", "253402300800", "1e20"])
    func aTimestampFarOutOfRangeIsRefusedAsNoTimestamp(_ time: String) {
        #expect(throws: WebhookRefusal.badSignature("the Stripe-Signature header has no timestamp (t=, whole seconds since 1970)")) {
            try StripeWebhookSignature(secrets: [secret]).check(payload, header: "t=\(time),v1=\(String(repeating: "ab", count: 32))", now: now)
        }
    }

    @Test func aStaleRefusalOfTheLastTimeTakenDescribesItWithoutTrapping() {
        let far = Date(timeIntervalSince1970: 253_402_300_799)
        #expect(WebhookRefusal.stale(signedAt: far, now: now).description.contains("9999-12-31T23:59:59Z"))
        #expect(WebhookRefusal.stale(signedAt: Date(timeIntervalSince1970: 1e300), now: now).description.contains("9999-12-31"))
    }
}
