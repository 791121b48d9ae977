import Foundation
import HTTPTypes
import Hummingbird
import LiveObjects
import ShopIdentity
import ShopPorts

/// Makes every POST that carries an `Idempotency-Key` safe to repeat, as the IETF Idempotency-Key draft describes: the
/// first request under a key runs; a repeat while it runs gets a 409 with `Retry-After`; a repeat after it answered
/// gets that answer again (`Idempotent-Replayed: true`); the same key with another method, path or body is a 422.
///
/// Order of calls per request: the key read as sent (never percent-decoded) → claimed for the token's owner with the
/// request's fingerprint → the handler → its answer filed when it is one a retry must see again (a success, a decline),
/// else the key released so that a retry runs the request anew.
struct IdempotencyGate<Context: RequestContext>: RouterMiddleware {
    let keys: any IdempotencyRepository
    let maxBodyBytes: Int
    let now: @Sendable () -> Date
    /// How long a request may run unanswered before a repeat takes its key over (its process died with it).
    static var abandonedAfter: TimeInterval { 120 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let key = request.headers[.idempotencyKey], let caller = APICaller.current else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (32..<127).contains($0) }) else {
            throw APIProblem(.invalidRequest, "Idempotency-Key must be 1 to 255 printable ASCII characters; a UUID is a good one.")
        }
        var request = request
        let body = try await request.collectBody(upTo: APIBodyLimit.bytes(method: request.method, path: request.uri.path, usual: maxBodyBytes))
        let owner = "\(caller.token.scope.rawValue):\(caller.token.owner)"
        let fingerprint = Encodings.sha256Hex("\(request.method)\n\(request.uri.path)\n" + String(decoding: body.readableBytesView, as: UTF8.self))
        let time = now()
        switch try await keys.claim(owner: owner, key: key, fingerprint: fingerprint, at: time, abandonedBefore: time - Self.abandonedAfter) {
        case .reused:
            throw APIProblem(.idempotencyKeyReused, "This Idempotency-Key came before with another request; use a new key for a new one.")
        case .inFlight:
            throw APIProblem(
                .requestInFlight, "A request with this Idempotency-Key is still running; ask again in a moment for its answer.", retryAfter: 1)
        case .answered(let answer):
            var headers = HTTPFields()
            headers[.contentType] = answer.contentType
            headers[.idempotentReplayed] = "true"
            return Response(status: .init(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        case .granted:
            break
        }
        let response: Response
        do {
            response = try await APICaller.$idempotencyKey.withValue(key) { try await next(request, context) }
        } catch let problem as APIProblem where problem.kind == .paymentFailed {
            // A decline is an answer: the same request again would be declined again, or worse, charged.
            let answered = RequestLog<Context>.response(problem, requestID: APICaller.note?.requestID ?? "", path: request.uri.path)
            return try await file(answered, owner: owner, key: key)
        } catch {
            try? await keys.release(owner: owner, key: key)
            throw error
        }
        guard (200..<300).contains(response.status.code) else {
            try? await keys.release(owner: owner, key: key)
            return response
        }
        return try await file(response, owner: owner, key: key)
    }

    /// Files `response`'s status, type and body under the key, and returns it to be sent.
    private func file(_ response: Response, owner: String, key: String) async throws -> Response {
        let collector = BodyCollector()
        var response = response
        try await response.body.write(collector)
        let bytes = collector.bytes
        try await keys.answer(
            IdempotentAnswer(status: response.status.code, contentType: response.headers[.contentType] ?? "application/json", body: bytes),
            owner: owner, key: key)
        response.body = ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        return response
    }
}

/// Gathers a response body's bytes as Hummingbird writes them.
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable, LiveObject {
    // @unchecked: written by one writer at a time, read after `write` returned.
    var bytes: [UInt8] = []
    func write(_ buffer: ByteBuffer) async throws { bytes += buffer.readableBytesView }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}
