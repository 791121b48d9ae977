import StoreClients

/// Keeps the access and refresh tokens in the injected credential store.
public struct AuthManager: Sendable {
    public static let accessTokenKey = "storefront.auth.access-token"
    public static let refreshTokenKey = "storefront.auth.refresh-token"

    private let store: any CredentialStore

    public init(store: any CredentialStore) { self.store = store }

    public func save(accessToken: String, refreshToken: String) throws {
        try store.set(accessToken, forKey: Self.accessTokenKey)
        try store.set(refreshToken, forKey: Self.refreshTokenKey)
    }

    public func accessToken() throws -> String? { try store.string(forKey: Self.accessTokenKey) }
    public func refreshToken() throws -> String? { try store.string(forKey: Self.refreshTokenKey) }

    /// Forgets both tokens (sign-out, or a revoked credential).
    public func clear() throws {
        try store.removeValue(forKey: Self.accessTokenKey)
        try store.removeValue(forKey: Self.refreshTokenKey)
    }
}
