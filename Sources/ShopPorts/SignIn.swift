import Foundation
import ShopLanguages
import ShopModels

/// What a sign-in asks for, as in `ASAuthorizationAppleIDRequest`.
public struct SignInRequest: Hashable, Sendable {
    public enum Scope: String, Hashable, Sendable { case fullName, email }
    public var requestedScopes: [Scope]
    public var nonce: String?
    /// The shopper's locale (`de-DE`), which a code's message is written in; nil for English.
    public var locale: String?
    public init(requestedScopes: [Scope] = [.fullName, .email], nonce: String? = nil, locale: String? = nil) {
        self.requestedScopes = requestedScopes
        self.nonce = nonce
        self.locale = locale
    }
}

/// A signed-in identity, mirrored by a protocol so tests can build one (cf. `ASAuthorizationAppleIDCredential`).
public protocol SignInCredential: Sendable {
    var user: String { get }
    /// Given on the first sign-in only, as Apple does.
    var email: String? { get }
    var fullName: String? { get }
    var identityToken: String? { get }
    /// The access and refresh tokens the provider issued with this credential, if it issues any.
    var tokens: SignInTokens? { get }
}

/// An access token for the shop's API and the refresh token that renews it, each with its expiry.
public struct SignInTokens: Hashable, Sendable {
    public var accessToken: String
    public var accessTokenExpiresAt: Date
    public var refreshToken: String
    public var refreshTokenExpiresAt: Date

    public init(accessToken: String, accessTokenExpiresAt: Date, refreshToken: String, refreshTokenExpiresAt: Date) {
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
    }
}

/// What a provider says about an access token after checking its signature and expiry.
public enum AccessTokenCheck: Hashable, Sendable {
    case valid(user: String)
    case expired
    case invalid(String)
}

/// Whether a user's credential still holds.
public enum CredentialState: String, Hashable, Sendable { case authorized, revoked, notFound }

/// Why a sign-in did not produce a credential.
public enum SignInError: Error, Hashable, Sendable {
    case canceled
    case failed(String)
}

/// One step of a sign-in the provider needs the shopper for: a few fields to fill in.
public struct SignInPrompt: Equatable, Sendable {
    public struct Field: Equatable, Sendable {
        public var id: String
        public var label: Localized
        public var value: String
        /// Where the value came from or what it is for ("shared on first sign-in only").
        public var hint: Localized
        public var error: Localized?
        /// The values the field takes, for a choice (the value is the first until another is picked); empty for text.
        public var options: [String]
        public init(id: String, label: Localized, value: String = "", hint: Localized = "", error: Localized? = nil, options: [String] = []) {
            self.id = id
            self.label = label
            self.value = value.isEmpty ? options.first ?? "" : value
            self.hint = hint
            self.error = error
            self.options = options
        }
    }
    public var title: Localized
    public var message: Localized
    public var fields: [Field]
    public var submitLabel: Localized
    /// A link to open elsewhere (a phone, a browser), shown with its QR code; the prompt then waits with `waiting` as its
    /// line until the controller hears how it went, and takes no answer but a cancel.
    public var link: String?
    public var waiting: Localized?

    public init(title: Localized, message: Localized, fields: [Field], submitLabel: Localized, link: String? = nil, waiting: Localized? = nil) {
        self.title = title
        self.message = message
        self.fields = fields
        self.submitLabel = submitLabel
        self.link = link
        self.waiting = waiting
    }
}

/// Where a sign-in controller shows its prompts (cf. `ASAuthorizationControllerPresentationContextProviding`).
@MainActor
public protocol SignInPresentationContextProviding: AnyObject {
    /// Shows `prompt`; `reply` gets the values by field id once the shopper submits, or nil when they cancel.
    /// The host runs `reply` as tracked work, so a driver can wait for what it does.
    func presentSignInPrompt(_ prompt: SignInPrompt, reply: @escaping @MainActor (_ values: [String: String]?) async -> Void)
}

/// One sign-in attempt's controller (cf. `ASAuthorizationController`): made fresh for every request.
///
/// Order of calls: factory(requests) → set `delegate` and `presentationContextProvider` →
/// `performRequests()` → zero or more prompts → the delegate hears `didCompleteWith` once.
@MainActor
public protocol SignInAuthorizationControlling: AnyObject {
    var delegate: (any SignInAuthorizationControllerDelegate)? { get set }
    var presentationContextProvider: (any SignInPresentationContextProviding)? { get set }
    func performRequests()
}

/// Receives the outcome of one sign-in attempt.
@MainActor
public protocol SignInAuthorizationControllerDelegate: AnyObject {
    func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith credential: any SignInCredential)
    func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith error: SignInError)
}

/// Makes a fresh controller for each sign-in request.
public typealias SignInControllerFactory = @MainActor @Sendable ([SignInRequest]) -> any SignInAuthorizationControlling

/// The identity provider's account side: credential state at launch, token checks and renewal.
public protocol SignInProviding: Sendable {
    func credentialState(forUserID user: String) async -> CredentialState
    /// Checks an access token's signature and expiry.
    func verifyAccessToken(_ token: String) async -> AccessTokenCheck
    /// Checks an identity token's signature, expiry and nonce.
    func verifyIdentityToken(_ token: String, nonce: String?) async -> AccessTokenCheck
    /// New tokens for a refresh token that is still valid; the old refresh token stops working.
    func refresh(refreshToken: String) async throws(SignInError) -> SignInTokens
    /// Signs out: the refresh token stops working.
    func revoke(refreshToken: String) async
}

/// The sandbox identity provider's own records of users and refresh tokens.
public protocol IdentityDirectory: Sendable {
    /// The user id registered for `email`, or nil before its first sign-in.
    func userID(email: String) async throws -> String?
    /// Authorizes the user of `email` after a successful sign-in: registers them with `newID` the
    /// first time, lifts a revocation after that. Returns the user's id.
    func authorize(email: String, newID: String) async throws -> String
    /// Whether `userID` exists, and whether it was revoked.
    func status(userID: String) async throws -> CredentialState
    func revoke(userID: String) async throws
    func storeRefreshToken(hash: String, userID: String, expiresAt: Date) async throws
    /// Removes and returns the refresh token filed under `hash`: each refresh token is used once.
    func takeRefreshToken(hash: String) async throws -> (userID: String, expiresAt: Date)?
}
