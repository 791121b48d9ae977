import ShopLanguages
import ShopModels
import ShopPorts

/// What an emailed code is asked for, and what is done once it is accepted.
public struct EmailCodeFlow: Sendable {
    public var title: Localized
    public var intro: Localized
    public var purpose: CodePurpose
    /// Who asks (an address, a key), counted for the per-client limit.
    public var client: String
    public var codes: EmailCodes
    public var mailer: CodeMailer
    public var dates: DateSource
    /// Runs once the code for `email` is accepted: the credential the sign-in ends with.
    public var accepted: @Sendable (_ email: String) async throws(SignInError) -> any SignInCredential

    public init(
        title: Localized, intro: Localized, purpose: CodePurpose, client: String, codes: EmailCodes, mailer: CodeMailer, dates: DateSource,
        accepted: @escaping @Sendable (_ email: String) async throws(SignInError) -> any SignInCredential
    ) {
        self.title = title
        self.intro = intro
        self.purpose = purpose
        self.client = client
        self.codes = codes
        self.mailer = mailer
        self.dates = dates
        self.accepted = accepted
    }

    /// Makes a fresh controller for each sign-in request.
    public var controllerFactory: SignInControllerFactory {
        { requests in
            var flow = self
            flow.mailer = mailer.speaking(requests.first?.locale)
            return EmailCodeSignInController(flow: flow)
        }
    }
}

/// One sign-in by a code sent by email: asks for the email, mails a code, checks what is typed.
///
/// Order of prompts: email → code (again after a wrong one, with the tries left) → the delegate hears the credential
/// `flow.accepted` makes, or `.canceled` / `.failed`. The line after the email is the same whether or not it has an
/// account, and whether or not a limit held.
@MainActor
public final class EmailCodeSignInController: PromptingSignInController {
    private let flow: EmailCodeFlow

    public init(flow: EmailCodeFlow) { self.flow = flow }

    public override func performRequests() {
        askForEmail(SignInPrompt.Field(id: "email", label: "Email", hint: "a code is sent there; it lasts 10 minutes"))
    }

    private func askForEmail(_ field: SignInPrompt.Field) {
        let prompt = SignInPrompt(title: flow.title, message: flow.intro, fields: [field], submitLabel: "Send code")
        present(prompt) { [self] values in
            let email = (values["email"] ?? "").trimmingCharacters(in: .whitespaces)
            var retry = field
            retry.value = email
            do throws(CodeSendingProblem) {
                try await flow.codes.send(email: email, purpose: flow.purpose, client: flow.client, mailer: flow.mailer, at: flow.dates.now())
                askForCode(email: email, error: nil)
            } catch {
                switch error {
                case .invalidEmail(let problem):
                    retry.error = .lookup(problem)
                    askForEmail(retry)
                case .unavailable(let why):
                    finish { $0.signInController(self, didCompleteWith: .failed(why)) }
                }
            }
        }
    }

    private func askForCode(email: String, error: Localized?) {
        let field = SignInPrompt.Field(id: "code", label: "Code", hint: "6 digits, from the message", error: error)
        let prompt = SignInPrompt(title: flow.title, message: EmailCodes.requestedWords, fields: [field], submitLabel: "Continue")
        present(prompt) { [self] values in
            let verdict: CodeCheck
            do throws(EmailCodeError) {
                verdict = try await flow.codes.check(email: email, typed: values["code"] ?? "", purpose: flow.purpose, at: flow.dates.now())
            } catch {
                finish { $0.signInController(self, didCompleteWith: .failed("The code could not be checked: \(error)")) }
                return
            }
            switch verdict {
            case .accepted:
                do throws(SignInError) {
                    let credential = try await flow.accepted(email)
                    finish { $0.signInController(self, didCompleteWith: credential) }
                } catch {
                    finish { $0.signInController(self, didCompleteWith: error) }
                }
            case .wrong:
                askForCode(email: email, error: .lookup(verdict.message))
            case .expired, .tooManyTries, .noCode:
                finish { $0.signInController(self, didCompleteWith: .failed(verdict.message)) }
            }
        }
    }
}
