import ShopLanguages
import ShopModels
import ShopPorts

extension SandboxIdentityProvider {
    /// Makes a fresh Sandbox ID controller for each sign-in request.
    public nonisolated var controllerFactory: SignInControllerFactory {
        { requests in SandboxIDSignInController(request: requests.first ?? SignInRequest(), provider: self) }
    }
}

/// One Sandbox ID sign-in: asks for the email, shows the code the sandbox "sent", checks it.
///
/// Order of prompts: email → code (plus the name, on a first sign-in that asks for it) → the
/// delegate hears the credential, or `.canceled` / `.failed`.
@MainActor
public final class SandboxIDSignInController: PromptingSignInController {
    private let request: SignInRequest
    private let provider: SandboxIdentityProvider

    public static let title = Localized("Sign in with Sandbox ID")

    public init(request: SignInRequest, provider: SandboxIdentityProvider) {
        self.request = request
        self.provider = provider
    }

    public override func performRequests() {
        askForEmail(SignInPrompt.Field(id: "email", label: "Email", hint: "Sandbox ID shows your code here; no mail is sent."))
    }

    private func askForEmail(_ field: SignInPrompt.Field) {
        let prompt = SignInPrompt(title: Self.title, message: "Enter your email to get a one-time code.", fields: [field], submitLabel: "Send code")
        present(prompt) { [self] values in
            let email = (values["email"] ?? "").trimmingCharacters(in: .whitespaces)
            var retry = field
            retry.value = email
            if let problem = Contact.emailProblem(email) {
                retry.error = problem
                askForEmail(retry)
                return
            }
            do {
                let challenge = try await provider.requestCode(email: email)
                askForCode(challenge, error: nil, name: "")
            } catch {
                retry.error = "Sandbox ID could not send a code: \(error)"
                askForEmail(retry)
            }
        }
    }

    private func askForCode(_ challenge: SandboxIdentityProvider.Challenge, error: Localized?, name: String) {
        var fields = [SignInPrompt.Field(id: "code", label: "Code", hint: "6 digits", error: error)]
        let asksName = challenge.isNewUser && request.requestedScopes.contains(.fullName)
        if asksName {
            fields.append(
                SignInPrompt.Field(id: "name", label: "Name", value: name, hint: "optional; shared with the shop on your first sign-in only"))
        }
        let prompt = SignInPrompt(
            title: Self.title,
            message: "Sandbox ID sent a code to \(challenge.email). This is a sandbox, so here it is: \(challenge.code)",
            fields: fields, submitLabel: "Sign in"
        )
        present(prompt) { [self] values in
            let enteredName = values["name"] ?? ""
            do throws(SandboxIdentityProvider.VerificationError) {
                let credential = try await provider.verify(
                    challengeID: challenge.id, code: values["code"] ?? "", name: asksName ? enteredName : nil, nonce: request.nonce
                )
                finish { $0.signInController(self, didCompleteWith: credential) }
            } catch {
                switch error {
                case .wrongCode(let left):
                    askForCode(
                        challenge,
                        error: .plural("That code is not right: \(left) try left.", "That code is not right: \(left) tries left.", count: left),
                        name: enteredName)
                case .expired:
                    finish { $0.signInController(self, didCompleteWith: .failed("The code expired. Sign in again for a new one.")) }
                case .tooManyAttempts:
                    finish { $0.signInController(self, didCompleteWith: .failed("Too many wrong codes. Sign in again for a new one.")) }
                case .unavailable(let why):
                    finish { $0.signInController(self, didCompleteWith: .failed("Sandbox ID is unavailable: \(why)")) }
                }
            }
        }
    }
}
