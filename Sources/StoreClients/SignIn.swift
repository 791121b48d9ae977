import StoreModels

/// What a sign-in asks for, as in `ASAuthorizationAppleIDRequest`.
public struct SignInRequest: Hashable, Sendable {
    public enum Scope: String, Hashable, Sendable { case fullName, email }
    public var requestedScopes: [Scope]
    public var nonce: String?
    public init(requestedScopes: [Scope] = [.fullName, .email], nonce: String? = nil) {
        self.requestedScopes = requestedScopes
        self.nonce = nonce
    }
}

/// A signed-in identity, mirrored by a protocol so tests can build one (cf. `ASAuthorizationAppleIDCredential`).
public protocol SignInCredential: Sendable {
    var user: String { get }
    /// Given on the first sign-in only, as Apple does.
    var email: String? { get }
    var fullName: String? { get }
    var identityToken: String? { get }
}

/// Whether a user's credential still holds.
public enum CredentialState: String, Hashable, Sendable { case authorized, revoked, notFound }

/// Why a sign-in did not produce a credential.
public enum SignInError: Error, Hashable, Sendable {
    case canceled
    case failed(String)
}

/// One sign-in attempt's controller (cf. `ASAuthorizationController`): made fresh for every request.
@MainActor
public protocol SignInAuthorizationControlling: AnyObject {
    var delegate: (any SignInAuthorizationControllerDelegate)? { get set }
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

/// Checks whether a user's credential still holds, at launch.
public protocol SignInProviding: Sendable {
    func credentialState(forUserID user: String) async -> CredentialState
}
