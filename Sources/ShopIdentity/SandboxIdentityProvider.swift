import Crypto
import Foundation
import LiveObjects
import ShopPorts

/// Sandbox ID: sign in with an email and a one-time code that the sandbox shows on screen.
///
/// It signs identity and access tokens with a per-install Ed25519 key and checks the signature
/// and expiry on every use. Like Sign in with Apple, it gives the name and email on a user's
/// first sign-in only.
///
/// Order of calls for one sign-in: `requestCode(email:)` → `verify(challengeID:code:name:nonce:)`
/// → the credential's tokens are stored by the app → `verifyAccessToken` / `refresh` on later use.
public actor SandboxIdentityProvider: SignInProviding {
    public static let issuer = "storefront-sandbox-id"
    public static let audience = "storefront"
    /// The credential key the per-install signing key is kept under.
    public static let signingKeyCredential = "storefront.sandbox-id.signing-key"

    /// How long each kind of token and code lives.
    public struct Lifetimes: Sendable {
        public var code: TimeInterval = 10 * 60
        public var identityToken: TimeInterval = 10 * 60
        public var accessToken: TimeInterval = 60 * 60
        public var refreshToken: TimeInterval = 30 * 24 * 60 * 60
        public init() {}
    }

    /// Wrong codes allowed before the code stops working.
    public static let maximumAttempts = 5

    /// A code sent to an email address, waiting for the shopper to type it.
    public struct Challenge: Hashable, Sendable {
        public var id: String
        public var email: String
        /// Shown on screen: a sandbox has no mail server.
        public var code: String
        public var isNewUser: Bool
        public var expiresAt: Date
    }

    /// Why a code was not accepted.
    public enum VerificationError: Error, Hashable, Sendable {
        case wrongCode(attemptsLeft: Int)
        case expired
        case tooManyAttempts
        case unavailable(String)
    }

    private let key: Curve25519.Signing.PrivateKey
    private let keyID: String
    private let directory: any IdentityDirectory
    private let dates: DateSource
    private let ids: IDGenerator
    private let makeCode: @Sendable () -> String
    private let lifetimes: Lifetimes
    private var challenges: [String: (challenge: Challenge, attempts: Int)] = [:]

    /// The public half of the signing key, for anyone verifying tokens.
    public nonisolated let publicKey: Curve25519.Signing.PublicKey

    public init(
        signingKey: Curve25519.Signing.PrivateKey, directory: any IdentityDirectory, dates: DateSource,
        ids: IDGenerator = .random, lifetimes: Lifetimes = Lifetimes(),
        makeCode: @escaping @Sendable () -> String = { String(format: "%06d", Int.random(in: 0..<1_000_000)) }
    ) {
        self.key = signingKey
        self.publicKey = signingKey.publicKey
        self.keyID = Encodings.base64URL(Data(SHA256.hash(data: signingKey.publicKey.rawRepresentation))).prefix(16).description
        self.directory = directory
        self.dates = dates
        self.ids = ids
        self.lifetimes = lifetimes
        self.makeCode = makeCode
    }

    /// Loads the per-install signing key from `credentials`, making and storing one on first use.
    public static func signingKey(in credentials: any CredentialRepository) throws -> Curve25519.Signing.PrivateKey {
        if let stored = try credentials.string(forKey: signingKeyCredential),
            let raw = Data(base64Encoded: stored), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        {
            return key
        }
        let key = Curve25519.Signing.PrivateKey()
        try credentials.set(key.rawRepresentation.base64EncodedString(), forKey: signingKeyCredential)
        return key
    }

    // MARK: - Signing in

    /// "Sends" a code to `email` (the sandbox hands it back to be shown on screen).
    public func requestCode(email: String) async throws -> Challenge {
        let normalized = email.lowercased()
        let challenge = Challenge(
            id: ids.next(), email: normalized, code: makeCode(),
            isNewUser: try await directory.userID(email: normalized) == nil, expiresAt: dates.now().addingTimeInterval(lifetimes.code)
        )
        challenges[challenge.id] = (challenge, 0)
        return challenge
    }

    /// Checks the code; on success issues the credential, with name and email on the first sign-in only.
    public func verify(challengeID: String, code: String, name: String?, nonce: String?) async throws(VerificationError) -> SandboxIDCredential {
        guard let (challenge, attempts) = challenges[challengeID] else { throw .expired }
        guard dates.now() < challenge.expiresAt else {
            challenges[challengeID] = nil
            throw .expired
        }
        guard code.trimmingCharacters(in: .whitespaces) == challenge.code else {
            let used = attempts + 1
            if used >= Self.maximumAttempts {
                challenges[challengeID] = nil
                throw .tooManyAttempts
            }
            challenges[challengeID] = (challenge, used)
            throw .wrongCode(attemptsLeft: Self.maximumAttempts - used)
        }
        challenges[challengeID] = nil
        do {
            let userID = try await directory.authorize(email: challenge.email, newID: "sbx_" + ids.next().replacingOccurrences(of: "-", with: ""))
            var claims: [String: Any] = [
                "iss": Self.issuer, "aud": Self.audience, "sub": userID, "typ": "id",
                "iat": dates.now().timeIntervalSince1970, "exp": dates.now().addingTimeInterval(lifetimes.identityToken).timeIntervalSince1970,
            ]
            if let nonce { claims["nonce"] = nonce }
            if challenge.isNewUser { claims["email"] = challenge.email }
            let identityToken = try SignedToken.make(claims: claims, key: key, keyID: keyID)
            let trimmedName = name?.trimmingCharacters(in: .whitespaces)
            return SandboxIDCredential(
                user: userID,
                email: challenge.isNewUser ? challenge.email : nil,
                fullName: challenge.isNewUser ? (trimmedName?.isEmpty == false ? trimmedName : nil) : nil,
                identityToken: identityToken,
                tokens: try await issueTokens(userID: userID)
            )
        } catch let error as VerificationError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// Revokes every credential of `userID`: the next launch finds it revoked and signs out.
    public func revoke(userID: String) async throws {
        try await directory.revoke(userID: userID)
    }

    // MARK: - SignInProviding

    public func credentialState(forUserID user: String) async -> CredentialState {
        (try? await directory.status(userID: user)) ?? .notFound
    }

    public func verifyAccessToken(_ token: String) async -> AccessTokenCheck {
        check(token, type: "access", nonce: nil)
    }

    /// Checks an identity token: this install's signature, issuer, audience, expiry and nonce.
    public func verifyIdentityToken(_ token: String, nonce: String?) async -> AccessTokenCheck {
        check(token, type: "id", nonce: nonce)
    }

    public func refresh(refreshToken: String) async throws(SignInError) -> SignInTokens {
        do {
            guard let filed = try await directory.takeRefreshToken(hash: Self.hash(refreshToken)) else {
                throw SignInError.failed("Your sign-in is no longer valid. Sign in again.")
            }
            guard dates.now() < filed.expiresAt else { throw SignInError.failed("Your sign-in expired. Sign in again.") }
            guard try await directory.status(userID: filed.userID) == .authorized else {
                throw SignInError.failed("Your Sandbox ID was revoked. Sign in again.")
            }
            return try await issueTokens(userID: filed.userID)
        } catch let error as SignInError {
            throw error
        } catch {
            throw .failed("Sandbox ID is unavailable: \(error)")
        }
    }

    public func revoke(refreshToken: String) async {
        _ = try? await directory.takeRefreshToken(hash: Self.hash(refreshToken))
    }

    // MARK: - Tokens

    private func issueTokens(userID: String) async throws -> SignInTokens {
        let now = dates.now()
        let accessExpiry = now.addingTimeInterval(lifetimes.accessToken)
        let access = try SignedToken.make(
            claims: [
                "iss": Self.issuer, "aud": Self.audience, "sub": userID, "typ": "access",
                "iat": now.timeIntervalSince1970, "exp": accessExpiry.timeIntervalSince1970, "jti": ids.next(),
            ], key: key, keyID: keyID)
        let refresh = "rt_" + Encodings.base64URL(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        let refreshExpiry = now.addingTimeInterval(lifetimes.refreshToken)
        try await directory.storeRefreshToken(hash: Self.hash(refresh), userID: userID, expiresAt: refreshExpiry)
        return SignInTokens(accessToken: access, accessTokenExpiresAt: accessExpiry, refreshToken: refresh, refreshTokenExpiresAt: refreshExpiry)
    }

    private func check(_ token: String, type: String, nonce: String?) -> AccessTokenCheck {
        guard let claims = SignedToken.claims(of: token, key: publicKey) else { return .invalid("the signature does not match this install's key") }
        guard claims["iss"] as? String == Self.issuer, claims["aud"] as? String == Self.audience, claims["typ"] as? String == type,
            let user = claims["sub"] as? String, let expiry = claims["exp"] as? Double
        else { return .invalid("the token is not a Sandbox ID \(type) token") }
        if let nonce, claims["nonce"] as? String != nonce { return .invalid("the nonce does not match the request") }
        guard dates.now().timeIntervalSince1970 < expiry else { return .expired }
        return .valid(user: user)
    }

    /// Refresh tokens are kept only as hashes, so the provider's records cannot be replayed.
    static func hash(_ token: String) -> String {
        Encodings.sha256Hex(token)
    }
}

/// The credential Sandbox ID issues.
public struct SandboxIDCredential: SignInCredential, Hashable {
    public var user: String
    public var email: String?
    public var fullName: String?
    public var identityToken: String?
    public var tokens: SignInTokens?
}

extension SandboxIdentityProvider: LiveObject {}
