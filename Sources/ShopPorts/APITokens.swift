import Foundation

/// What an API token may reach: a shopper's own cart, wallet and orders, or the merchant's endpoints.
public enum APITokenScope: String, Hashable, Sendable, CaseIterable {
    case shop, merchant
}

/// A personal access token as the shop keeps it: never its secret, only the secret's SHA-256 and a hint to tell it by.
public struct APITokenRecord: Hashable, Sendable {
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

    public init(
        id: String, name: String, owner: String, scope: APITokenScope, secretHash: String, lastFour: String,
        createdAt: Date, lastUsedAt: Date? = nil, revokedAt: Date? = nil
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
}

/// A client's request made safe to repeat by its `Idempotency-Key`: the first request's body (as a hash), and the
/// order it made, once it has made one.
public struct IdempotentRequest: Hashable, Sendable {
    public var owner: String
    public var key: String
    public var requestHash: String
    public var orderNumber: String?

    public init(owner: String, key: String, requestHash: String, orderNumber: String? = nil) {
        self.owner = owner
        self.key = key
        self.requestHash = requestHash
        self.orderNumber = orderNumber
    }
}

/// Keeps each owner's idempotency keys: the first request filed under a key is the one every repeat is held to.
public protocol IdempotencyRepository: Sendable {
    /// Files `key` for `owner` with the body's hash, or returns what was filed under it first (perhaps with another
    /// hash: the caller refuses that).
    func claim(_ request: IdempotentRequest, at time: Date) async throws -> IdempotentRequest
    /// Notes the order the request under `key` made.
    func attach(orderNumber: String, owner: String, key: String) async throws
}

/// What the account screen needs to make and revoke its shopper's API tokens.
public struct APITokenAccess: Sendable {
    public var repository: any APITokenRepository
    /// A new secret for `owner`, named `name`, and the record to keep for it (never the secret).
    public var mint: @Sendable (_ name: String, _ owner: String, _ at: Date) -> (secret: String, record: APITokenRecord)

    public init(repository: any APITokenRepository, mint: @escaping @Sendable (_ name: String, _ owner: String, _ at: Date) -> (secret: String, record: APITokenRecord)) {
        self.repository = repository
        self.mint = mint
    }
}
