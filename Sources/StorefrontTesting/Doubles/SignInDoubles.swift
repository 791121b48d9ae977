import Foundation
import IssueReporting
import LiveObjects
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

/// A credential a test can build (the real one comes from an identity provider).
public struct TestCredential: SignInCredential, Equatable {
    public var user: String
    public var email: String?
    public var fullName: String?
    public var identityToken: String?
    public var tokens: SignInTokens?
    public init(user: String, email: String? = nil, fullName: String? = nil, identityToken: String? = nil, tokens: SignInTokens? = Fixtures.tokens) {
        self.user = user
        self.email = email
        self.fullName = fullName
        self.identityToken = identityToken
        self.tokens = tokens
    }
}

/// An identity provider's account side that answers as the test says and records what it was asked.
public final class SignInProviderStub: SignInProviding {
    public struct Answers: Sendable {
        public var credentialState: CredentialState = .authorized
        public var accessToken: AccessTokenCheck = .valid(user: "user-1")
        public var identityToken: AccessTokenCheck = .valid(user: "user-1")
        public var refresh: Result<SignInTokens, SignInError> = .success(Fixtures.refreshedTokens)
        public init() {}
    }
    private let answers: Mutex<Answers>
    private let log = Mutex<[String]>([])

    public init(_ answers: Answers = Answers()) { self.answers = Mutex(answers) }

    /// "credentialState(user-1)", "verifyAccessToken", "refresh(rt-1)", "revoke(rt-1)", in order.
    public var calls: [String] { log.withLock { $0 } }

    public func credentialState(forUserID user: String) async -> CredentialState {
        log.withLock { $0.append("credentialState(\(user))") }
        return answers.withLock { $0.credentialState }
    }
    public func verifyAccessToken(_ token: String) async -> AccessTokenCheck {
        log.withLock { $0.append("verifyAccessToken") }
        return answers.withLock { $0.accessToken }
    }
    public func verifyIdentityToken(_ token: String, nonce: String?) async -> AccessTokenCheck {
        log.withLock { $0.append("verifyIdentityToken(\(nonce ?? "nil"))") }
        return answers.withLock { $0.identityToken }
    }
    public func refresh(refreshToken: String) async throws(SignInError) -> SignInTokens {
        log.withLock { $0.append("refresh(\(refreshToken))") }
        return try answers.withLock { $0.refresh }.get()
    }
    public func revoke(refreshToken: String) async {
        log.withLock { $0.append("revoke(\(refreshToken))") }
    }
}

/// A sign-in controller that completes as the test says when asked to perform.
@MainActor
public final class SignInControllerSpy: SignInAuthorizationControlling {
    public weak var delegate: (any SignInAuthorizationControllerDelegate)?
    public weak var presentationContextProvider: (any SignInPresentationContextProviding)?
    public let requests: [SignInRequest]
    public let outcome: Result<TestCredential, SignInError>
    public private(set) var performCount = 0

    public init(requests: [SignInRequest], outcome: Result<TestCredential, SignInError>) {
        self.requests = requests
        self.outcome = outcome
    }

    public func performRequests() {
        performCount += 1
        guard let delegate else {
            reportIssue("SignInControllerSpy.performRequests was called without a delegate.")
            return
        }
        switch outcome {
        case .success(let credential): delegate.signInController(self, didCompleteWith: credential)
        case .failure(let error): delegate.signInController(self, didCompleteWith: error)
        }
    }
}

/// The factory side: hands out a fresh spy per request and keeps them all.
@MainActor
public final class SignInControllerFactorySpy {
    public private(set) var made: [SignInControllerSpy] = []
    public var outcome: Result<TestCredential, SignInError>

    public init(outcome: Result<TestCredential, SignInError>) { self.outcome = outcome }

    public var factory: SignInControllerFactory {
        { [weak self] requests in
            let spy = SignInControllerSpy(requests: requests, outcome: self?.outcome ?? .failure(.canceled))
            self?.made.append(spy)
            return spy
        }
    }
}

extension SignInProviderStub: LiveObject {}
extension SignInControllerSpy: LiveObject {}
extension SignInControllerFactorySpy: LiveObject {}
