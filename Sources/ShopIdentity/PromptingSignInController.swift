import ShopPorts

/// What every sign-in controller that asks its questions as prompts shares: where the prompts go, who hears the
/// outcome, and that the outcome is told once. Subclasses start their questions in `performRequests()`.
@MainActor
public class PromptingSignInController: SignInAuthorizationControlling {
    public weak var delegate: (any SignInAuthorizationControllerDelegate)?
    public weak var presentationContextProvider: (any SignInPresentationContextProviding)?
    private var isFinished = false

    public func performRequests() {}

    /// Shows a prompt; a cancel ends the sign-in.
    func present(_ prompt: SignInPrompt, then next: @escaping @MainActor ([String: String]) async -> Void) {
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
    func finish(_ report: (any SignInAuthorizationControllerDelegate) -> Void) {
        guard !isFinished else { return }
        isFinished = true
        if let delegate { report(delegate) }
    }
}
