import AsyncHTTPClient
import Foundation
import LiveObjects
import NIOCore
import NIOHTTP1
import NIOPosix

/// How a call to Stripe failed, sorted by what the shop may conclude from it.
public enum StripeFailure: Error, Sendable, Equatable {
    /// Stripe answered and refused: the HTTP status and Stripe's error object. Definite.
    case refused(status: Int, StripeError)
    /// The call never reached Stripe (no connection, or Stripe said 429 before doing anything).
    case notSent(String)
    /// The call may or may not have been carried out: no answer in time, or a 5xx.
    case noAnswer(String)
}

extension StripeFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .refused(let status, let error): "Stripe refused (\(status)): \(error.message ?? error.code ?? "no reason given")"
        case .notSent(let why): "Stripe could not be reached: \(why)"
        case .noAnswer(let why): "Stripe did not answer: \(why)"
        }
    }
}

/// Stripe's error object (`{"error": {...}}`).
public struct StripeError: Decodable, Sendable, Equatable {
    public var type: String?
    public var code: String?
    public var declineCode: String?
    public var message: String?

    enum CodingKeys: String, CodingKey {
        case type, code, message
        case declineCode = "decline_code"
    }

    public init(type: String? = nil, code: String? = nil, declineCode: String? = nil, message: String? = nil) {
        self.type = type
        self.code = code
        self.declineCode = declineCode
        self.message = message
    }
}

/// Stripe's HTTP API over AsyncHTTPClient: form-encoded bodies, the secret key as a bearer token,
/// a timeout on connecting and on every request, and retries with backoff for calls that did
/// not get a definite answer, always with the same `Idempotency-Key`.
public final class StripeClient: Sendable {
    /// Where the API lives; tests point it at a local server.
    public static let defaultBase = URL(string: "https://api.stripe.com")!
    /// The API version the adapter was written against, so Stripe's answers keep their shape.
    public static let apiVersion = "2024-06-20"

    /// How many times and how far apart a call without a definite answer is tried again.
    public struct RetryPolicy: Sendable {
        public var retries: Int
        public var firstDelay: Duration
        public init(retries: Int = 2, firstDelay: Duration = .milliseconds(500)) {
            self.retries = retries
            self.firstDelay = firstDelay
        }
    }

    private let http: HTTPClient
    private let base: String
    private let key: StripeSecretKey
    /// The Stripe account the key belongs to, as the shop files its Stripe records under.
    var account: String { key.account }
    private let requestTimeout: TimeAmount
    private let retry: RetryPolicy
    private let clock: any Clock<Duration>

    /// `base` is checked by `StripeClient.validatedBase` first; the client must be shut down with `shutdown()`.
    public init(
        key: StripeSecretKey, base: URL = StripeClient.defaultBase,
        connectTimeout: Duration = .seconds(3), requestTimeout: Duration = .seconds(30),
        retry: RetryPolicy = RetryPolicy(), clock: any Clock<Duration> = ContinuousClock()
    ) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: Self.timeAmount(connectTimeout), read: Self.timeAmount(requestTimeout))
        configuration.redirectConfiguration = .disallow
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        // Requests are addressed as text, the base and a path.
        let text = base.absoluteString
        self.base = text.hasSuffix("/") ? String(text.dropLast()) : text
        self.key = key
        self.requestTimeout = Self.timeAmount(requestTimeout)
        self.retry = retry
        self.clock = clock
    }

    /// Refuses a base URL that is not http(s)://host[:port] with no credentials, query or fragment, and plain
    /// http to any host but this one: the secret key and card data would cross the network in clear.
    public static func validatedBase(_ url: URL) throws(BaseURLProblem) -> URL {
        let text = url.absoluteString
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil, url.query == nil, url.fragment == nil
        else { throw BaseURLProblem(text: text, reason: .notAnAPIBase) }
        guard scheme == "https" || isLoopback(host: host) else { throw BaseURLProblem(text: text, reason: .cleartextOffLoopback) }
        return url
    }

    /// True for `localhost`, 127.0.0.0/8 and ::1: names that never leave this machine.
    static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// A base URL `validatedBase` refused.
    public struct BaseURLProblem: Error, CustomStringConvertible {
        public enum Reason: Sendable { case notAnAPIBase, cleartextOffLoopback }
        public var text: String
        public var reason: Reason
        public var description: String {
            switch reason {
            case .notAnAPIBase:
                "the Stripe API base must be an http(s) URL such as https://api.stripe.com, without user, query or fragment: \"\(text)\""
            case .cleartextOffLoopback:
                "the Stripe API base \"\(text)\" is plain http to another host: the secret key and card data would travel in clear; use https, or http only on loopback (localhost, 127.0.0.1, [::1])"
            }
        }
    }

    public func shutdown() async throws { try await http.shutdown() }

    /// A cheap authenticated call (`GET /v1/balance`): returns when Stripe accepts the key.
    public func verifyKey() async throws(StripeFailure) {
        let _: StripeAnyObject = try await get("/v1/balance")
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// POSTs `form` to `path` (such as "/v1/customers"), with `idempotencyKey` on every try.
    func post<T: Decodable>(_ path: String, _ form: [(String, String)], idempotencyKey: String?, as: T.Type = T.self) async throws(StripeFailure) -> T
    {
        try await send(.POST, path, body: FormEncoding.encode(form), idempotencyKey: idempotencyKey)
    }

    /// GETs `path`.
    func get<T: Decodable>(_ path: String, as: T.Type = T.self) async throws(StripeFailure) -> T {
        try await send(.GET, path, body: nil, idempotencyKey: nil)
    }

    private func send<T: Decodable>(_ method: HTTPMethod, _ path: String, body: String?, idempotencyKey: String?) async throws(StripeFailure) -> T {
        try await retrying { () async throws(StripeFailure) -> T in try await sendOnce(method, path, body: body, idempotencyKey: idempotencyKey) }
    }

    /// Runs `attempt` until it answers, is refused, or the retry policy is spent, waiting longer each time.
    private func retrying<T>(_ attempt: () async throws(StripeFailure) -> T) async throws(StripeFailure) -> T {
        var delay = retry.firstDelay
        var tries = 0
        // Once any try may have been carried out, the call as a whole may have been: a last
        // "not sent" must not hide an earlier unanswered try.
        var unanswered: StripeFailure?
        while true {
            do {
                return try await attempt()
            } catch {
                if case .refused = error { throw error }
                if case .noAnswer = error { unanswered = error }
                tries += 1
                guard tries <= retry.retries, !Task.isCancelled else { throw unanswered ?? error }
                try? await clock.sleep(for: delay)
                delay *= 2
            }
        }
    }

    /// POSTs `path` as `post` does, but asks `lookup` before each try whether an earlier try was carried out, and
    /// takes what it finds instead of sending again: a creation is made once even by a server that ignores
    /// `Idempotency-Key` (localstripe does), after an answer that was lost.
    func postLookingFirst<T: Decodable>(
        _ path: String, _ form: [(String, String)], idempotencyKey: String, lookup: () async throws(StripeFailure) -> T?
    ) async throws(StripeFailure) -> T {
        try await retrying { () async throws(StripeFailure) -> T in
            if let made = try await lookup() { return made }
            return try await sendOnce(.POST, path, body: FormEncoding.encode(form), idempotencyKey: idempotencyKey)
        }
    }

    private func sendOnce<T: Decodable>(_ method: HTTPMethod, _ path: String, body: String?, idempotencyKey: String?) async throws(StripeFailure) -> T
    {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: key.authorization)
        request.headers.add(name: "Stripe-Version", value: Self.apiVersion)
        request.headers.add(name: "User-Agent", value: "Storefront/0.1 (terminal storefront)")
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let status: Int
        let data: ByteBuffer
        let shouldRetry: Bool?
        do {
            let response = try await http.execute(request, timeout: requestTimeout)
            status = Int(response.status.code)
            shouldRetry = response.headers.first(name: "Stripe-Should-Retry").map { $0 == "true" }
            data = try await response.body.collect(upTo: 4 << 20)
        } catch {
            throw Self.transportFailure(error)
        }
        let bytes = Data(data.readableBytesView)
        // A 5xx is indeterminate whatever else it says: the work may have been done. "Stripe-Should-Retry: false" says
        // only that the same request will get the same answer (Stripe keeps it under the key), not that nothing
        // happened; so it is "no answer", and what happened is read from Stripe's objects (the caller's lookup)
        // before anything is decided. "true" means the same request may go again (a key's lock, say).
        if shouldRetry == false, status >= 500 {
            throw .noAnswer("Stripe answered \(status) and said a repeat would get the same answer; whether it was done is not known yet")
        }
        if shouldRetry == true, !(200..<300).contains(status) {
            throw .noAnswer("Stripe answered \(status) and asked for the request again")
        }
        switch status {
        case 200..<300:
            do {
                return try JSONDecoder().decode(T.self, from: bytes)
            } catch {
                // A 2xx Stripe did carry out, whose answer this shop cannot read: not knowing is not "not sent".
                throw .noAnswer("Stripe's answer to \(path) could not be read")
            }
        case 429:
            throw .notSent("Stripe is limiting requests (429)")
        case 409:
            // Another request with the same idempotency key is still under way at Stripe: asked again, its answer
            // comes back; never taken as a refusal, since the first may yet be carried out.
            throw .noAnswer("Stripe is still working on a request with this key (409)")
        case 500...:
            throw .noAnswer("Stripe answered \(status)")
        default:
            var error =
                (try? JSONDecoder().decode(ErrorEnvelope.self, from: bytes))?.error
                ?? StripeError(message: "Stripe answered \(status)")
            // Stripe's messages about a bad key quote part of it; none of it is passed on.
            if status == 401 { error.message = "Stripe did not accept the secret key" }
            error.message = error.message.map(key.redacted)
            throw .refused(status: status, error)
        }
    }

    /// Connecting failed (nothing was sent) or the answer never came (anything may have happened).
    private static func transportFailure(_ error: any Error) -> StripeFailure {
        if let client = error as? HTTPClientError,
            client == .connectTimeout || client == .tlsHandshakeTimeout || client == .getConnectionFromPoolTimeout
        {
            return .notSent("could not connect to Stripe (\(client))")
        }
        if error is NIOConnectionError {
            return .notSent("could not connect to Stripe")
        }
        if let io = error as? IOError, [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(io.errnoCode) {
            return .notSent("could not connect to Stripe (\(io.description))")
        }
        return .noAnswer("no answer from Stripe (\(error))")
    }

    private struct ErrorEnvelope: Decodable { var error: StripeError }
}

/// `application/x-www-form-urlencoded`, as Stripe reads it: `card[number]=…`, brackets and all.
enum FormEncoding {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    static func encode(_ form: [(String, String)]) -> String {
        form.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

extension StripeClient: LiveObject {}
