import Crypto
import Foundation
import ShopModels
import ShopPorts

/// The shop's own sign-in: logins for an account, made after an emailed code (or a provider) proved who is there.
///
/// Order of calls: `EmailCodes` accepts a code → `openAccount` (the account of that verified email, or a new one) →
/// `startSession` (the secret goes to the cookie or the credential file, its hash to the database) → `check` at every
/// later start, which slides the session 30 days on → `end` at sign-out.
public struct AccountSignIn: Sendable {
    /// How long a session lasts unused: each use moves its end this far on.
    public static let lifetime: TimeInterval = 30 * 24 * 60 * 60
    /// The credential key the code's HMAC key is kept under, made on first use.
    public static let codeKeyCredential = "storefront.codes.hmac-key"
    /// Where every host of one PostgreSQL database is given the same key, base64 of at least 32 bytes.
    public static let codeKeyVariable = "STOREFRONT_CODE_KEY"

    public let directory: any AccountDirectory
    public let logins: any LoginRepository
    public let dates: DateSource

    public init(directory: any AccountDirectory, logins: any LoginRepository, dates: DateSource) {
        self.directory = directory
        self.logins = logins
        self.dates = dates
    }

    /// A new session secret: `sfs_` and 32 random bytes in base64url.
    public static func newSecret() -> String { "sfs_" + Encodings.randomToken() }

    /// Starts a session for `account`; returns its secret, which the shop never keeps, and its record.
    public func startLogin(account: String, kind: LoginKind, label: String) async throws -> (secret: String, record: LoginRecord) {
        let now = dates.now()
        let secret = Self.newSecret()
        let record = LoginRecord(
            id: Encodings.randomID("ses_"), account: account, kind: kind, label: label, createdAt: now, lastUsedAt: now,
            expiresAt: now.addingTimeInterval(Self.lifetime))
        try await logins.start(record, secretHash: Encodings.sha256Hex(secret))
        return (secret, record)
    }

    /// Signs in to the account whose verified email is `email` (opened now when none has it): a new session for it.
    public func signIn(verifiedEmail email: String, kind: LoginKind, label: String) async throws
        -> (account: CustomerAccount, session: (secret: String, record: LoginRecord))
    {
        let normalized = email.trimmingCharacters(in: .whitespaces).lowercased()
        let account = try await directory.openAccount(verifiedEmail: normalized, newID: Encodings.randomID("acct_"), at: dates.now())
        return (account, try await startLogin(account: account.id, kind: kind, label: label))
    }

    /// What a presented secret comes to now; a valid one lives 30 days from now.
    public func check(secret: String) async throws -> LoginCheck {
        // Nothing the shop made is longer: a huge cookie is not hashed.
        guard secret.hasPrefix("sfs_"), secret.utf8.count <= 64 else { return .unknown }
        return try await logins.check(secretHash: Encodings.sha256Hex(secret), at: dates.now(), lifetime: Self.lifetime)
    }

    public func end(secret: String) async throws {
        try await logins.end(secretHash: Encodings.sha256Hex(secret), at: dates.now())
    }

    /// The HMAC key codes are hashed with: `STOREFRONT_CODE_KEY` when set (every host of one database needs the same),
    /// else the one in `credentials`, made there on first use.
    public static func codeKey(environment: [String: String], credentials: any CredentialRepository) throws -> SymmetricKey {
        if let given = environment[codeKeyVariable], !given.isEmpty {
            guard let bytes = Data(base64Encoded: given), bytes.count >= 32 else {
                throw CodeKeyError("\(codeKeyVariable) must be base64 of at least 32 bytes (openssl rand -base64 32)")
            }
            return SymmetricKey(data: bytes)
        }
        if let stored = try credentials.string(forKey: codeKeyCredential), let bytes = Data(base64Encoded: stored), bytes.count >= 32 {
            return SymmetricKey(data: bytes)
        }
        let key = SymmetricKey(size: .bits256)
        try credentials.set(key.withUnsafeBytes { Data($0) }.base64EncodedString(), forKey: codeKeyCredential)
        return key
    }
}

/// The code key given is not one.
public struct CodeKeyError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The shop's own accounts as an identity provider: a session secret is both the access and the refresh token, checked
/// against the shared database at every start, so a session ended on any host is signed out on every other.
public struct ShopAccountProvider: SignInProviding {
    private let signIn: AccountSignIn

    public init(_ signIn: AccountSignIn) { self.signIn = signIn }

    public func credentialState(forUserID user: String) async -> CredentialState {
        ((try? await signIn.directory.account(id: user)) ?? nil) == nil ? .notFound : .authorized
    }

    public func verifyAccessToken(_ token: String) async -> AccessTokenCheck {
        switch (try? await signIn.check(secret: token)) ?? .unknown {
        case .valid(let record): .valid(user: record.account)
        case .expired: .expired
        case let other: .invalid(other.signedOutReason ?? "")
        }
    }

    public func verifyIdentityToken(_ token: String, nonce: String?) async -> AccessTokenCheck {
        await verifyAccessToken(token)
    }

    public func refresh(refreshToken: String) async throws(SignInError) -> SignInTokens {
        let check: LoginCheck
        do { check = try await signIn.check(secret: refreshToken) } catch { throw .failed("Your sign-in could not be checked: \(error)") }
        guard case .valid(let record) = check else { throw .failed(check.signedOutReason ?? "") }
        return SignInTokens(
            accessToken: refreshToken, accessTokenExpiresAt: record.expiresAt, refreshToken: refreshToken, refreshTokenExpiresAt: record.expiresAt)
    }

    public func revoke(refreshToken: String) async {
        try? await signIn.end(secret: refreshToken)
    }
}

/// An account signed in by the shop itself: the account's id, and its session's secret as its tokens.
public struct AccountCredential: SignInCredential {
    public var user: String
    public var email: String?
    public var fullName: String?
    public var identityToken: String?
    public var tokens: SignInTokens?

    public init(user: String, email: String?, fullName: String?, session: (secret: String, record: LoginRecord)?) {
        self.user = user
        self.email = email
        self.fullName = fullName
        identityToken = session?.secret
        tokens = session.map {
            SignInTokens(
                accessToken: $0.secret, accessTokenExpiresAt: $0.record.expiresAt, refreshToken: $0.secret, refreshTokenExpiresAt: $0.record.expiresAt
            )
        }
    }
}
