import ShopLanguages
import ShopPorts

/// A sign-in that first asks which way (an emailed code, a provider); the way picked takes over the prompts, and its
/// outcome is told as this controller's.
///
/// Order of calls: `performRequests()` → the choice prompt (skipped when there is one way) → the way's controller,
/// made then, `begin()`s → its outcome, forwarded.
@MainActor
public final class SignInChoiceController: PromptingSignInController, SignInAuthorizationControllerDelegate {
    /// One way to sign in: its name in the choice, and the controller it makes when picked.
    public struct Way: Sendable {
        public var name: String
        public var make: @MainActor @Sendable () -> PromptingSignInController
        public init(name: String, make: @escaping @MainActor @Sendable () -> PromptingSignInController) {
            self.name = name
            self.make = make
        }
    }

    private let title: Localized
    private let ways: [Way]
    private var chosen: PromptingSignInController?

    public init(title: Localized, ways: [Way]) {
        self.title = title
        self.ways = ways
    }

    public override func performRequests() {
        guard ways.count > 1 else {
            if let way = ways.first { Task { await hand(to: way) } } else { fail(.failed("No way to sign in is set up here.")) }
            return
        }
        let field = SignInPrompt.Field(id: "way", label: "Sign in with", hint: "Space or a letter: another way", options: ways.map(\.name))
        present(SignInPrompt(title: title, message: "Choose how to sign in to your account.", fields: [field], submitLabel: "Continue")) {
            [self] values in
            guard let way = ways.first(where: { $0.name == values["way"] }) else { return fail(.failed("No such way to sign in.")) }
            await hand(to: way)
        }
    }

    private func hand(to way: Way) async {
        let controller = way.make()
        chosen = controller
        controller.delegate = self
        controller.presentationContextProvider = presentationContextProvider
        await controller.begin()
    }

    public func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith credential: any SignInCredential) {
        guard controller === chosen else { return }
        succeed(credential)
    }

    public func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith error: SignInError) {
        guard controller === chosen else { return }
        fail(error)
    }
}
