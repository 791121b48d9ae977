import Foundation
import HTTPTypes
import ShopLanguages

/// An error the API answers with: RFC 9457 problem details, each kind with a stable `type` (docs/api.md lists them).
struct APIProblem: Error, Equatable, Sendable {
    /// One value of a body that is not allowed, for a 422.
    struct FieldError: Equatable, Sendable, Encodable {
        var field: String
        var message: String
    }

    var kind: Kind
    var detail: String
    var errors: [FieldError] = []
    /// Seconds until a rate-limited token may ask again.
    var retryAfter: Int?
    /// For a 405: the methods the path takes.
    var allow: [String] = []

    enum Kind: String, Sendable, CaseIterable {
        case invalidRequest = "invalid-request"
        case unauthenticated
        case forbidden
        case notFound = "not-found"
        case methodNotAllowed = "method-not-allowed"
        case conflict
        case pricesChanged = "prices-changed"
        case idempotencyKeyReused = "idempotency-key-reused"
        case requestInFlight = "request-in-flight"
        case paymentFailed = "payment-failed"
        case tooLarge = "request-too-large"
        case validation = "validation-failed"
        case rateLimited = "rate-limited"
        case unavailable
        case `internal`

        var status: HTTPResponse.Status {
            switch self {
            case .invalidRequest: .badRequest
            case .unauthenticated: .unauthorized
            case .forbidden: .forbidden
            case .notFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .conflict, .pricesChanged: .conflict
            case .idempotencyKeyReused: .unprocessableContent
            case .requestInFlight: .conflict
            case .paymentFailed: HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required")
            case .tooLarge: .contentTooLarge
            case .validation: .unprocessableContent
            case .rateLimited: .tooManyRequests
            case .unavailable: .serviceUnavailable
            case .internal: .internalServerError
            }
        }

        var title: String {
            switch self {
            case .invalidRequest: "The request cannot be read"
            case .unauthenticated: "A valid token is needed"
            case .forbidden: "This token may not do that"
            case .notFound: "Not found"
            case .methodNotAllowed: "This path does not take this method"
            case .conflict: "The order changed"
            case .pricesChanged: "The prices changed since the cart was filled"
            case .idempotencyKeyReused: "This Idempotency-Key was used for another request"
            case .requestInFlight: "Another request on the same thing is still running"
            case .paymentFailed: "The payment did not go through"
            case .tooLarge: "The request is too large"
            case .validation: "A value is not allowed"
            case .rateLimited: "Too many requests"
            case .unavailable: "The shop cannot answer just now"
            case .internal: "The shop failed to answer"
            }
        }

        /// The stable `type` member: a URN, so clients can match it and it never moves.
        var type: String { "urn:storefront:problem:\(rawValue)" }
    }

    /// `detail` in the shopper's words, for a problem a client shows its shopper as it is (a decline, a refused code):
    /// written in the language the request's `Accept-Language` asks for. Nil for the API's own (English) problems.
    var words: Localized?

    init(
        _ kind: Kind, _ detail: String, errors: [FieldError] = [], retryAfter: Int? = nil, allow: [String] = [], words: Localized? = nil
    ) {
        self.words = words
        self.kind = kind
        self.detail = detail
        self.errors = errors
        self.retryAfter = retryAfter
        self.allow = allow
    }

    /// The body, as `application/problem+json`.
    func body(requestID: String, instance: String) -> Data {
        struct Body: Encodable {
            var type: String
            var title: String
            var status: Int
            var detail: String
            var instance: String
            var requestId: String
            var errors: [FieldError]?
        }
        let body = Body(
            type: kind.type, title: kind.title, status: kind.status.code, detail: detail, instance: instance, requestId: requestID,
            errors: errors.isEmpty ? nil : errors
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(body)) ?? Data()
    }
}
