import Foundation
import ShopModels

/// What an API token may reach: a shopper's own cart, wallet and orders, or the merchant's endpoints.
public enum APITokenScope: String, Hashable, Sendable, CaseIterable {
    case shop, merchant
}

/// A personal access token as the shop keeps it: never its secret, only the secret's SHA-256 and a hint to tell it by.
public struct APITokenRecord: Hashable, Sendable {
    /// The one rule for a token's name, whichever front makes the token (the account screen, `storefront tokens
    /// create`): 1 to 60 characters on one line, nothing a terminal would act on. Checked after trimming spaces.
    public static func isValidName(_ name: String) -> Bool {
        (1...60).contains(name.count) && MerchantEntry.isPlainLine(name)
    }

    /// The token's public id (`tok_` and 16 hex digits), for listing and revoking it.
    public var id: String
    /// What its owner called it ("fulfilment script").
    public var name: String
    /// Whose it is: the shopper's customer id for `shop`, the admin key's fingerprint (`ssh:SHA256:…`) for `merchant`.
    public var owner: String
    public var scope: APITokenScope
    /// The SHA-256 of the whole secret, in lowercase hex.
    public var secretHash: String
    /// The secret's last 4 characters, shown beside its name so its owner can tell which one a script holds.
    public var lastFour: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
    /// The browser session (`ses_…`) the token was made in and ends with; nil for a token that lasts until revoked.
    public var session: String?

    public init(
        id: String, name: String, owner: String, scope: APITokenScope, secretHash: String, lastFour: String,
        createdAt: Date, lastUsedAt: Date? = nil, revokedAt: Date? = nil, session: String? = nil
    ) {
        self.id = id
        self.name = name
        self.owner = owner
        self.scope = scope
        self.secretHash = secretHash
        self.lastFour = lastFour
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.session = session
    }

    public var isRevoked: Bool { revokedAt != nil }
}

/// Keeps the shop's API tokens.
public protocol APITokenRepository: Sendable {
    func add(_ token: APITokenRecord) async throws
    /// The token whose secret hashes to `secretHash`, revoked or not.
    func token(secretHash: String) async throws -> APITokenRecord?
    /// `owner`'s tokens (every token when nil), revoked ones too, oldest first.
    func tokens(owner: String?) async throws -> [APITokenRecord]
    /// Revokes token `id` (when `owner` is given, only if it is theirs); returns it as it is after, nil when no such
    /// token. Revoking a revoked token keeps its first revocation time.
    func revoke(id: String, owner: String?, at time: Date) async throws -> APITokenRecord?
    /// Notes that the token was used at `time`.
    func markUsed(id: String, at time: Date) async throws
    /// Whether the browser session `token` ends with is live at `time` and holds the token's owner (a merge moves both);
    /// true for a lasting token.
    func sessionHolds(_ token: APITokenRecord, at time: Date) async throws -> Bool
}

/// The answer a request under an `Idempotency-Key` gave, kept to be sent again to every repeat.
public struct IdempotentAnswer: Hashable, Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]

    public init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// A request filed under its owner's `Idempotency-Key`: what it was (a fingerprint of method, path and body), when it
/// started, and its answer once it has one.
public struct FiledIdempotentRequest: Hashable, Sendable {
    public var fingerprint: String
    public var startedAt: Date
    public var answer: IdempotentAnswer?

    public init(fingerprint: String, startedAt: Date, answer: IdempotentAnswer?) {
        self.fingerprint = fingerprint
        self.startedAt = startedAt
        self.answer = answer
    }
}

/// What a request under a key may do, as the IETF Idempotency-Key draft has it.
public enum IdempotentClaim: Hashable, Sendable {
    /// The key is this request's now: run it, then file its answer (or release the key).
    case granted
    /// The same request is still running: ask again shortly (409).
    case inFlight
    /// The key came first with another request (422).
    case reused
    /// The request finished: its answer, sent again.
    case answered(IdempotentAnswer)

    /// The one rule every store applies to what it holds under the key: a request started before `abandonedBefore`
    /// without an answer was lost with its process, and a repeat takes it over.
    public static func decide(_ filed: FiledIdempotentRequest?, fingerprint: String, abandonedBefore: Date) -> IdempotentClaim {
        guard let filed else { return .granted }
        guard filed.fingerprint == fingerprint else { return .reused }
        if let answer = filed.answer { return .answered(answer) }
        return filed.startedAt < abandonedBefore ? .granted : .inFlight
    }
}

/// Keeps each owner's idempotency keys: the first request filed under a key is the one every repeat is held to.
///
/// Order of calls per request: `claim` → (granted) run it → `answer` with what it answered, or `release` when it
/// failed in a way a retry may mend.
public protocol IdempotencyRepository: Sendable {
    /// Decides by `IdempotentClaim.decide`, in one transaction; when granted, files the request as started at `time`.
    func claim(owner: String, key: String, fingerprint: String, at time: Date, abandonedBefore: Date) async throws -> IdempotentClaim
    /// Files the answer of the request under `key`.
    func answer(_ answer: IdempotentAnswer, owner: String, key: String) async throws
    /// Forgets the unanswered request under `key`, so that a retry runs it again.
    func release(owner: String, key: String) async throws
}

/// What the account screen needs to make and revoke its shopper's API tokens.
public struct APITokenAccess: Sendable {
    public var repository: any APITokenRepository
    /// The browser session the tokens made here end with unless their owner asks for a lasting one; nil where every
    /// token lasts (an SSH key, a terminal).
    public var session: String?
    /// A new secret for `owner`, named `name`, and the record to keep for it (never the secret).
    public var mint: @Sendable (_ name: String, _ owner: String, _ at: Date) -> (secret: String, record: APITokenRecord)

    public init(
        repository: any APITokenRepository, session: String? = nil,
        mint: @escaping @Sendable (_ name: String, _ owner: String, _ at: Date) -> (secret: String, record: APITokenRecord)
    ) {
        self.repository = repository
        self.session = session
        self.mint = mint
    }
}
