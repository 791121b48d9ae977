import Foundation
import ShopPorts

/// Keeps the signed-in user and their access and refresh tokens in the injected credential repository.
///
/// Every method is `async`, so a reducer's effect reads and writes the file off the UI loop.
public struct AuthManager: Sendable {
    public static let userKey = "storefront.auth.user"
    public static let accessTokenKey = "storefront.auth.access-token"
    public static let refreshTokenKey = "storefront.auth.refresh-token"
    public static let accessExpiryKey = "storefront.auth.access-token-expires"
    public static let refreshExpiryKey = "storefront.auth.refresh-token-expires"

    /// A stored sign-in: whose it is and the tokens that prove it.
    public struct StoredSignIn: Equatable, Sendable {
        public var userID: String
        public var tokens: SignInTokens
        public init(userID: String, tokens: SignInTokens) {
            self.userID = userID
            self.tokens = tokens
        }
    }

    private let credentials: any CredentialRepository

    public init(credentials: any CredentialRepository) { self.credentials = credentials }

    public func save(accessToken: String, refreshToken: String) async throws {
        try credentials.set(accessToken, forKey: Self.accessTokenKey)
        try credentials.set(refreshToken, forKey: Self.refreshTokenKey)
    }

    public func accessToken() async throws -> String? { try credentials.string(forKey: Self.accessTokenKey) }
    public func refreshToken() async throws -> String? { try credentials.string(forKey: Self.refreshTokenKey) }

    /// Stores a sign-in. The user id goes last, so a session is never found half-written.
    public func save(_ tokens: SignInTokens, userID: String) async throws {
        try await save(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken)
        try credentials.set(String(tokens.accessTokenExpiresAt.timeIntervalSince1970), forKey: Self.accessExpiryKey)
        try credentials.set(String(tokens.refreshTokenExpiresAt.timeIntervalSince1970), forKey: Self.refreshExpiryKey)
        try credentials.set(userID, forKey: Self.userKey)
    }

    /// The stored sign-in, or nil when nobody is signed in (or what is stored is incomplete).
    public func storedSession() async throws -> StoredSignIn? {
        guard let user = try credentials.string(forKey: Self.userKey),
            let access = try await accessToken(), let refresh = try await refreshToken(),
            let accessExpiry = try credentials.string(forKey: Self.accessExpiryKey).flatMap(Double.init),
            let refreshExpiry = try credentials.string(forKey: Self.refreshExpiryKey).flatMap(Double.init)
        else { return nil }
        return StoredSignIn(
            userID: user,
            tokens: SignInTokens(
                accessToken: access, accessTokenExpiresAt: Date(timeIntervalSince1970: accessExpiry),
                refreshToken: refresh, refreshTokenExpiresAt: Date(timeIntervalSince1970: refreshExpiry)
            ))
    }

    /// Forgets the user and both tokens (sign-out, or a revoked credential).
    public func clear() async throws {
        for key in [Self.userKey, Self.accessTokenKey, Self.refreshTokenKey, Self.accessExpiryKey, Self.refreshExpiryKey] {
            try credentials.removeValue(forKey: key)
        }
    }
}
