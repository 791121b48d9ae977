import LiveObjects
import ShopPorts

/// One sign-in: the controller's delegate and presentation context, sending what it hears as actions through the
/// effect that started it.
///
/// Order of calls: `start()` → the controller's prompts arrive as `.promptShown` → the shopper's
/// answer goes back through `takeReply()` → `.credentialReceived` or `.failed`.
@MainActor
public final class SignInAttempt: SignInAuthorizationControllerDelegate, SignInPresentationContextProviding {
    let controller: any SignInAuthorizationControlling
    /// The request's nonce; the identity token must carry it.
    let nonce: String?
    private let send: Send
    /// Where the shopper's answer to the shown prompt goes.
    private var reply: (@MainActor ([String: String]?) async -> Void)?

    init(controller: any SignInAuthorizationControlling, nonce: String?, send: Send) {
        self.controller = controller
        self.nonce = nonce
        self.send = send
    }

    func start() {
        controller.delegate = self
        controller.presentationContextProvider = self
        controller.performRequests()
    }

    /// The reply to the prompt on screen, handed out once.
    func takeReply() -> (@MainActor ([String: String]?) async -> Void)? {
        defer { reply = nil }
        return reply
    }

    public func presentSignInPrompt(_ prompt: SignInPrompt, reply: @escaping @MainActor ([String: String]?) async -> Void) {
        self.reply = reply
        send(.signIn(.promptShown(prompt)))
    }

    public func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith credential: any SignInCredential) {
        guard controller === self.controller else { return }
        send(.signIn(.credentialReceived(SignInCompletion(credential))))
    }

    public func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith error: SignInError) {
        guard controller === self.controller else { return }
        send(.signIn(.failed(error)))
    }
}

/// What a sign-in credential carries, as a value an action can hold.
public struct SignInCompletion: Equatable, Sendable {
    public var user: String
    public var email: String?
    public var fullName: String?
    public var identityToken: String?
    public var tokens: SignInTokens?

    public init(_ credential: any SignInCredential) {
        user = credential.user
        email = credential.email
        fullName = credential.fullName
        identityToken = credential.identityToken
        tokens = credential.tokens
    }
}

extension SignInAttempt: LiveObject {}
