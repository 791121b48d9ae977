import LiveObjects
import ShopPorts

/// What every sign-in controller that asks its questions as prompts shares: where the prompts go, who hears the
/// outcome, and that the outcome is told once. Subclasses start their questions in `performRequests()`, or in
/// `begin()` where the first step takes a trip to a provider.
@MainActor
open class PromptingSignInController: SignInAuthorizationControlling {
    public weak var delegate: (any SignInAuthorizationControllerDelegate)?
    public weak var presentationContextProvider: (any SignInPresentationContextProviding)?
    private var isFinished = false
    /// Runs once the outcome is told: work of the sign-in still going (a wait on a link) stops.
    package var whenFinished: (@MainActor () -> Void)?

    public init() {}

    open func performRequests() {}

    /// Starts the sign-in where the caller can wait for its first step (a chooser's reply, tracked work).
    open func begin() async { performRequests() }

    /// Shows a prompt; a cancel ends the sign-in.
    package func present(_ prompt: SignInPrompt, then next: @escaping @MainActor ([String: String]) async -> Void) {
        guard let context = presentationContextProvider else {
            finish { $0.signInController(self, didCompleteWith: .failed("Nowhere to show the sign-in.")) }
            return
        }
        context.presentSignInPrompt(prompt) { [self] values in
            guard let values else {
                finish { $0.signInController(self, didCompleteWith: .canceled) }
                return
            }
            await next(values)
        }
    }

    /// Tells the delegate the outcome, once.
    package func finish(_ report: (any SignInAuthorizationControllerDelegate) -> Void) {
        guard !isFinished else { return }
        isFinished = true
        if let delegate { report(delegate) }
        // After the report: the work being stopped may be the very task telling it, whose sends a cancel would drop.
        whenFinished?()
        whenFinished = nil
    }

    /// Ends the sign-in with `error`.
    package func fail(_ error: SignInError) {
        finish { $0.signInController(self, didCompleteWith: error) }
    }

    /// Ends the sign-in with `credential`.
    package func succeed(_ credential: any SignInCredential) {
        finish { $0.signInController(self, didCompleteWith: credential) }
    }
}

extension PromptingSignInController: LiveObject {}
