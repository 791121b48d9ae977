import Foundation
import LiveObjects
import StorefrontTesting
import Testing

/// The fake of the Stripe API the shop calls (`Support/stripe-fake.py`): what localstripe lacks (Checkout Sessions,
/// 3-D Secure, idempotency keys, raw card numbers refused). A real process on a loopback port; stopped when released.
final class StripeFake: @unchecked Sendable {
    static let secretKey = LocalStripe.secretKey

    private(set) var port = 0
    private var pid: pid_t = 0

    var base: String { "http://127.0.0.1:\(port)" }

    /// `rawCardData`: the account takes card numbers sent by the shop, as one with raw card data access does.
    init(rawCardData: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("stripe-fake.py").path
        (pid, port) = try LocalStripe.startServer(
            [script] + (rawCardData ? ["--raw-card-data"] : []), errorFile: TemporaryDirectory.make().path + "-stripe-fake.err",
            what: "the fake Stripe (it needs aiohttp; PyPI: localstripe brings it)", sourceLocation: sourceLocation
        )
    }

    deinit { LocalStripe.stopServer(pid) }

    /// One request the fake saw.
    struct Request {
        var method: String
        var path: String
        var status: Int
        var idempotencyKey: String?
        var stripeVersion: String?
    }

    /// Every Stripe API request the fake saw, in order.
    func requests() throws -> [Request] {
        let list = (try LocalStripe.get("/_fake/log", port: port)["requests"] as? [[String: Any]]) ?? []
        return list.map {
            Request(
                method: $0["method"] as? String ?? "", path: $0["path"] as? String ?? "", status: $0["status"] as? Int ?? 0,
                idempotencyKey: $0["idempotency_key"] as? String, stripeVersion: $0["stripe_version"] as? String
            )
        }
    }

    /// Waits until the fake has answered a `method` request whose path ends in `pathSuffix`, and returns it: for a
    /// call the shop makes after its screen is still, which no look at the screen would see arrive.
    @discardableResult
    func waitForRequest(
        _ method: String, pathEndingIn pathSuffix: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Request {
        blockingWaitAllowed("waiting for the fake Stripe's \(method) …\(pathSuffix)", sourceLocation: sourceLocation)
        let found = try LocalStripe.get("/_fake/wait?method=\(method)&path_suffix=\(pathSuffix)&timeout=\(timeout.components.seconds)", port: port)
        guard let path = found["path"] as? String else {
            let seen = (try? requests().map { "\($0.method) \($0.path)" }) ?? []
            Issue.record("no \(method) …\(pathSuffix) reached the fake Stripe in \(timeout); it saw: \(seen)", sourceLocation: sourceLocation)
            throw TmuxError(message: "no \(method) …\(pathSuffix) in \(timeout)")
        }
        return Request(
            method: method, path: path, status: found["status"] as? Int ?? 0, idempotencyKey: found["idempotency_key"] as? String,
            stripeVersion: found["stripe_version"] as? String)
    }

    /// The objects the fake holds, by kind ("payment_intents", "customers", "checkout_sessions").
    func objects(_ kind: String) throws -> [[String: Any]] {
        (try LocalStripe.get("/_fake/state", port: port)[kind] as? [[String: Any]]) ?? []
    }

    /// The shopper adds `card` (a test card number) on the Checkout Session's page.
    func completeCheckoutSession(_ id: String, card: String = "4242424242424242") throws {
        try command("/_fake/checkout/sessions/\(id)/complete", form: "card=\(card)")
    }

    /// The shopper's card lands on the session's SetupIntent while Stripe's page has not completed the session.
    func fillCheckoutSession(_ id: String, card: String) throws {
        try command("/_fake/checkout/sessions/\(id)/fill", form: "card=\(card)")
    }

    func expireCheckoutSession(_ id: String) throws {
        try command("/_fake/checkout/sessions/\(id)/expire", form: "")
    }

    /// The shopper passes (or fails) the 3-D Secure challenge of PaymentIntent `id`.
    func authenticate(_ id: String, succeed: Bool) throws {
        try command("/_fake/payment_intents/\(id)/authenticate", form: "result=\(succeed ? "succeed" : "fail")")
    }

    /// From now on every request is answered 401, quoting the secret key as Stripe's "Invalid API Key provided" does.
    func refuseTheKey() throws {
        try command("/_fake/unauthorized", form: "")
    }

    /// A POST over a plain socket, as `LocalStripe.get` does; fails when the fake refuses the command.
    private func command(_ path: String, form: String) throws {
        let request =
            "POST \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)"
        let text = try LocalStripe.exchange(request, port: port)
        guard text.hasPrefix("HTTP/1.1 200") || text.hasPrefix("HTTP/1.0 200") else {
            throw TmuxError(message: "the fake Stripe refused \(path): \(text.prefix(300))")
        }
    }
}

extension StripeFake: LiveObject {}
