import Foundation
import HTTPTypes
import Hummingbird
import LiveObjects
import OpenAPIRuntime
import ShopIdentity
import ShopLanguages
import ShopMetrics
import ShopPorts
import Synchronization

/// Who is calling: the token the request carried, set for the handlers by `TokenGate`.
struct APICaller: Sendable {
    var token: APITokenRecord
    /// The client's address (the socket's peer), which limits that count per address use.
    var address = "unknown"
    @TaskLocal static var current: APICaller?
    /// Where the gate writes who called, for the request's log line, even when the handler then fails.
    @TaskLocal static var note: CallerNote?
    /// The request's `Idempotency-Key` as it was sent, once `IdempotencyGate` has claimed it.
    @TaskLocal static var idempotencyKey: String?
    /// The locale the request's `Accept-Language` asks for among the shop's languages (`de-AT`), kept with an order
    /// for its mails; nil for none.
    @TaskLocal static var locale: String?

    /// The caller, if its token has the `scope` this operation needs: each operation decides for itself, so no path
    /// spelling (`//`, `/./`, `%2F`) that the router folds onto a route can carry a token past its scope.
    static func required(_ scope: APITokenScope) throws -> APICaller {
        guard let current else { throw APIProblem(.unauthenticated, "No token was checked for this request.") }
        guard current.token.scope == scope else {
            switch scope {
            case .merchant: throw APIProblem(.forbidden, "This is a shop token; merchant endpoints need a merchant token (made with an admin key).")
            case .shop: throw APIProblem(.forbidden, "This is a merchant token; a shopper's endpoints need a shop token of that shopper.")
            }
        }
        return current
    }
}

/// The outermost middleware: gives each request an id, turns every error into problem details, and logs one line per
/// request (never a token's secret).
struct RequestLog<Context: RequestContext>: RouterMiddleware {
    let maxBodyBytes: Int
    let uptime: @Sendable () -> Duration
    let log: @Sendable (String) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = Encodings.randomID("req_")
        let started = uptime()
        var response: Response
        var failure: String?
        let note = CallerNote(requestID: id)
        let locale = Language.localeTag(fromHeader: request.headers[.acceptLanguage])
        do {
            response = try await APICaller.$note.withValue(note) {
                try await APICaller.$locale.withValue(locale) {
                    try await ShopMetrics.$taskFront.withValue("api") { try await next(request, context) }
                }
            }
        } catch {
            let problem = Self.problem(for: error, maxBodyBytes: maxBodyBytes, method: request.method, path: request.uri.path)
            if problem.kind == .internal || problem.kind == .unavailable { failure = "\(error)" }
            response = Self.response(problem, requestID: id, path: request.uri.path, locale: locale)
        }
        response.headers[.requestID] = id
        let elapsed = uptime() - started
        let operation = APIRoutes.operation(request.method.rawValue, at: request.uri.path)
        ShopMetrics.count(ShopMetrics.apiRequests, [("operation", operation), ("status", "\(response.status.code / 100)xx")])
        ShopMetrics.time(ShopMetrics.apiRequestDuration, [("operation", operation)], elapsed)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let caller = note.caller.map { " \($0)" } ?? ""
        log(
            "api: \(id) \(request.method) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", milliseconds)) ms\(caller)\(failure.map { ": \($0)" } ?? "")"
        )
        return response
    }

    /// The problem an error answers with: the API's own as they are; what the framework or the generated code threw
    /// (a malformed parameter or body, a body too large, no such route) as the matching kind; anything else a 500.
    static func problem(for error: Error, maxBodyBytes: Int, method: HTTPRequest.Method, path: String) -> APIProblem {
        switch error {
        case let problem as APIProblem: return problem
        case let failure as ServerError:
            // The generated code wraps what the handler threw too: only a request it could not read is the client's.
            if failure.causeDescription == handlerThrew {
                return problem(for: failure.underlyingError, maxBodyBytes: maxBodyBytes, method: method, path: path)
            }
            // The client's terms only: the generated code's own wording ("An error occurred while attempting to parse
            // the request") and Swift's types stay in the log.
            if let query = Self.queryProblem(failure) { return APIProblem(.invalidRequest, query) }
            return APIProblem(.invalidRequest, Self.describe(failure.underlyingError))
        case let failure as any HTTPResponseError where failure.status == .contentTooLarge:
            // A merchant's upload is refused past its own limit; every other body past the API's.
            let limit = APIBodyLimit.isPictureUpload(method: method, path: path) ? APIBodyLimit.pictureUploadBytes : maxBodyBytes
            return APIProblem(.tooLarge, "The body is over \(limit) bytes.")
        case let failure as any HTTPResponseError where failure.status == .notFound:
            let allowed = APIRoutes.methods(at: path)
            guard allowed.isEmpty else {
                return APIProblem(.methodNotAllowed, "\(path) takes \(allowed.joined(separator: ", ")), not \(method).", allow: allowed)
            }
            return APIProblem(.notFound, "No endpoint is at this path; see /v1/openapi.json.")
        case let failure as StorageError where failure.isUnavailable:
            return APIProblem(.unavailable, "The shop's database does not answer; try again in a minute.", retryAfter: 30)
        default:
            return APIProblem(.internal, "Something failed inside the shop; the request id names it in the shop's log.")
        }
    }

    /// What OpenAPIRuntime says when a handler, not the request, failed.
    private static var handlerThrew: String { "User handler threw an error." }

    /// A decoding error in a client's words: which value, and what was wrong with it; never Swift's type names or
    /// coding keys.
    static func describe(_ error: Error) -> String {
        guard let decoding = error as? DecodingError else {
            return "\(error)".replacingOccurrences(of: " (underlying error: <nil>)", with: "")
        }
        func path(_ context: DecodingError.Context) -> String {
            let names = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return names.isEmpty ? "the body" : String(names.drop { $0 == "." })
        }
        func found(_ context: DecodingError.Context) -> String {
            context.debugDescription.firstMatch(of: /found (an? \w+)/).map { ", not \($0.output.1)" } ?? ""
        }
        switch decoding {
        case .typeMismatch(let type, let context): return "\(path(context)) must be \(jsonKind(type))\(found(context))."
        case .valueNotFound(let type, let context): return "\(path(context)) must be \(jsonKind(type)), not null."
        case .keyNotFound(let key, let context):
            let within = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "\(key.stringValue) is missing\(within)."
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return
                "The body is not JSON this operation reads: not valid JSON, or a value that does not fit its field (a fraction where a whole number belongs)."
        case .dataCorrupted(let context): return "\(path(context)) has a value that is not allowed."
        @unknown default: return "The body cannot be read."
        }
    }

    /// A query parameter the generated code could not read, in the client's words ("limit must be a whole number, not
    /// \"abc\"."): its decoder names no field, so the parameter is the one whose value is not of the kind asked for.
    static func queryProblem(_ failure: ServerError) -> String? {
        guard case .typeMismatch(let type, let context)? = failure.underlyingError as? DecodingError, context.codingPath.isEmpty,
            let query = failure.request.path?.split(separator: "?", maxSplits: 1).dropFirst().first
        else { return nil }
        let items = query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            return (name: parts.first ?? "", value: parts.count > 1 ? parts[1] : "")
        }
        let wrong = items.filter { item in
            switch type {
            case is Int.Type, is Int64.Type, is Int32.Type: Int64(item.value) == nil
            case is Double.Type, is Float.Type: Double(item.value) == nil
            case is Bool.Type: !["true", "false"].contains(item.value)
            default: false
            }
        }
        guard let first = wrong.first else { return nil }
        let shown = first.value.prefix(40).unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
        return wrong.count == 1
            ? "\(first.name.prefix(40)) must be \(jsonKind(type)), not \"\(String(String.UnicodeScalarView(shown)))\"."
            : "A query parameter must be \(jsonKind(type)): one of \(wrong.map { String($0.name.prefix(40)) }.joined(separator: ", "))."
    }

    /// What a Swift type is called in JSON.
    private static func jsonKind(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type: "a whole number"
        case is Double.Type, is Float.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: "\(type)".hasPrefix("Dictionary") ? "an object" : "a value of the document's schema"
        }
    }

    static func response(_ problem: APIProblem, requestID: String, path: String, locale: String? = nil) -> Response {
        var headers = HTTPFields()
        var problem = problem
        // A shopper's problem in the language the request asked for, and saying which.
        if let words = problem.words, let locale {
            let translation = Translation.forLocale(locale)
            problem.detail = translation.string(words)
            headers[.contentLanguage] = translation.language.tag
        }
        headers[.contentType] = "application/problem+json"
        if let retryAfter = problem.retryAfter { headers[.retryAfter] = String(retryAfter) }
        if !problem.allow.isEmpty { headers[.allow] = problem.allow.joined(separator: ", ") }
        if problem.kind == .unauthenticated { headers[.wwwAuthenticate] = #"Bearer realm="storefront""# }
        return Response(
            status: problem.kind.status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: problem.body(requestID: requestID, instance: path))))
    }
}

/// Checks the bearer token of every request but the document's: known, not revoked and within its rate; then runs the
/// handler as that token's caller. Which scope an operation needs is the operation's own check (`APICaller.required`).
struct TokenGate<Context: PeerRequestContext>: RouterMiddleware {
    let tokens: any APITokenRepository
    let merchantKeys: any MerchantKeys
    let maxBodyBytes: Int
    let limiter: RateLimiter
    let uptime: @Sendable () -> Duration
    let now: @Sendable () -> Date
    /// Paths anyone may read.
    static var openPaths: Set<String> { ["/v1/openapi.json"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !Self.openPaths.contains(request.uri.path) else { return try await next(request, context) }
        // The body is read only once the token is known: a caller without one cannot make the server hold its body.
        guard let header = request.headers[.authorization] else {
            throw APIProblem(
                .unauthenticated,
                "Send a token as `Authorization: Bearer sfp_…`; make one on the Account screen of the SSH shop or with `storefront tokens create`.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIProblem(.unauthenticated, "Only `Authorization: Bearer` is taken.")
        }
        guard let secret = PersonalAccessToken(String(parts[1]).trimmingCharacters(in: .whitespaces)) else {
            throw APIProblem(.unauthenticated, "This is not a Storefront token (`sfp_` and 43 letters and digits, the last 6 a checksum).")
        }
        guard let token = try await tokens.token(secretHash: secret.hash), !token.isRevoked else {
            throw APIProblem(.unauthenticated, "This token is unknown or revoked.")
        }
        // A token made in a browser tab ends with that tab's sign-in, wherever and however it ended.
        guard try await tokens.sessionHolds(token, at: now()) else {
            throw APIProblem(
                .unauthenticated,
                "This token ended with the browser sign-in it was made in (signed out). Make a new one, or a lasting one while signed in.")
        }
        APICaller.note?.caller = "\(token.id) \(token.scope.rawValue) \(token.owner)"
        // A merchant token acts only while its key is an admin key: removing the key takes the token's power too.
        if token.scope == .merchant, let refusal = merchantKeys.allows(token.owner) {
            throw APIProblem(.forbidden, "\(refusal); the token acts again once its key is listed again.")
        }
        if let wait = limiter.take(token.id, at: uptime()) {
            ShopMetrics.count(ShopMetrics.rateLimited, [("front", "api")])
            throw APIProblem(.rateLimited, "This token may make \(limiter.perMinute) requests a minute; try again in \(wait) s.", retryAfter: wait)
        }
        let time = now()
        if token.lastUsedAt.map({ time.timeIntervalSince($0) >= 60 }) ?? true {
            try await tokens.markUsed(id: token.id, at: time)
        }
        // Who may send a picture is known before its 8 MiB are read: only a merchant's token reads past the usual limit.
        if APIBodyLimit.isPictureUpload(method: request.method, path: request.uri.path), token.scope != .merchant {
            throw APIProblem(.forbidden, "Uploading pictures needs a merchant token.")
        }
        var request = request
        _ = try await request.collectBody(upTo: APIBodyLimit.bytes(method: request.method, path: request.uri.path, usual: maxBodyBytes))
        return try await APICaller.$current.withValue(APICaller(token: token, address: context.peer)) { try await next(request, context) }
    }
}

/// A request context that knows the client's address.
protocol PeerRequestContext: RequestContext {
    var peer: String { get }
}

/// The API's request context: the socket's peer, read as the connection is accepted.
struct APIRequestContext: PeerRequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

/// The caller of one request as its log line names it (a token's id, scope and owner; never its secret).
final class CallerNote: Sendable, LiveObject {
    let requestID: String
    private let value = Mutex<String?>(nil)

    init(requestID: String) {
        self.requestID = requestID
    }

    var caller: String? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("Request-Id")!
}
