import ShopLanguages
import ShopModels
import ShopPorts

/// Sign-in's actions: what starts, answers, leaves or ends it, its controller's and checks' answers, and what it asks
/// of the others.
public enum SignInAction: FeatureAction {
    case begin, signOut
    case submitPrompt(FormState)
    case cancelPrompt
    /// The controller asks the shopper something; shown as a form.
    case promptShown(SignInPrompt)
    /// The QR code of the link the prompt on screen shows, when one could be made.
    case linkCoded(link: String, QRCode?)
    case credentialReceived(SignInCompletion)
    /// The identity token was checked against the provider and the request's nonce.
    case verified(SignInCompletion, isValid: Bool)
    case failed(SignInError)
    /// The account's tokens and profile are kept: the shop moves to the account.
    case accountSaved(SignInCompletion)
    /// The tokens could not be kept, and why.
    case notSaved(String)
    /// The tokens are gone: the shop moves back to the guest.
    case signedOut
    case signOutFailed(String)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        /// The shopper is another customer now: `leaving`'s cart is written, its lines merged into the next
        /// customer's when `mergingIntoNext`, and the new customer's cart, wallet and profile are read.
        case customerChanged(leaving: String, mergingIntoNext: Bool)
    }

    public init?(_ action: AppAction) {
        guard case .signIn(let action) = action else { return nil }
        self = action
    }
}

/// Signing in (Sandbox ID, an emailed code) and out again, or a new SSH key joining an account, moving the shop to the account's cart, wallet and orders.
@MainActor
public enum SignInFeature {
    /// What sign-in owns: the sign-in in progress, and the id the next one is filed under.
    public struct Owned: Equatable, Sendable {
        /// The sign-in in progress: its attempt's id (the attempt lives in `LiveSignIns`) and its nonce.
        public var progress: SignInProgress?
        /// The id the next sign-in attempt is filed under.
        public var nextSignInID = 1

        public init() {}
    }

    /// Sign-in changes who the customer is.
    typealias State = CustomerScoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<CustomerScoped<Owned>, SignInAction> { FeatureReducer(body: reduce) }

    /// Starts a sign-in with a fresh controller from the factory.
    ///
    /// Order of calls: factory([request]) → delegate and presentation context set →
    /// `performRequests()` → prompts shown as forms → `didCompleteWith` a credential or an error.
    static func begin(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let services = env.dependencies.accounts.signIn, state.progress == nil else { return .none }
        let request = SignInRequest(requestedScopes: [.fullName, .email], nonce: env.dependencies.ids.next(), locale: state.shell.formats.tag)
        let id = state.nextSignInID
        state.nextSignInID += 1
        state.progress = SignInProgress(signInID: id, nonce: request.nonce)
        // A fresh controller per sign-in, made and kept by the effect: the state holds only its session's id.
        return .run { send in
            let session = SignInAttempt(controller: services.makeController([request]), nonce: request.nonce, send: send)
            env.signIns.file(session, as: id)
            session.start()
        }
    }

    static func reduce(_ state: inout State, _ action: SignInAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .begin: return begin(&state, env)
        case .signOut: return signOut(&state, env)
        case .submitPrompt(let form): return submitPrompt(&state, form, env)
        case .cancelPrompt: return cancelPrompt(&state, env)
        case .delegate: return .none
        case .promptShown(let prompt):
            var form = FormState(
                purpose: .signIn, title: prompt.title, message: prompt.message,
                fields: prompt.fields.map {
                    FormState.Field(id: $0.id, label: $0.label, value: $0.value, hint: $0.hint, error: $0.error, options: $0.options)
                },
                submitLabel: prompt.submitLabel
            )
            form.focusedIndex = form.fields.firstIndex { $0.error != nil } ?? 0
            state.progress?.isPromptShown = true
            guard let link = prompt.link else {
                state.shell.presentForm(form)
                return .none
            }
            // Opened elsewhere: the form waits, with the link and its code, until the controller hears the outcome.
            form.link = link
            form.status = prompt.waiting
            state.shell.presentForm(form)
            let codes = env.dependencies.qrCodes
            return .run { send in send(.signIn(.linkCoded(link: link, codes.qrCode(for: link)))) }
        case .linkCoded(let link, let code):
            if state.shell.form?.purpose == .signIn, state.shell.form?.link == link { state.shell.form?.qrCode = code }
            return .none
        case .credentialReceived(let credential):
            guard let progress = state.progress, let services = env.dependencies.accounts.signIn else { return .none }
            guard let token = credential.identityToken else { return complete(&state, credential, env) }
            let nonce = progress.nonce
            return .run { send in
                let check = await services.provider.verifyIdentityToken(token, nonce: nonce)
                let isValid = if case .valid(let user) = check { user == credential.user } else { false }
                send(.signIn(.verified(credential, isValid: isValid)))
            }
        case .verified(let credential, let isValid):
            guard state.progress != nil else { return .none }
            guard isValid else {
                return finish(&state, Notice(.error, "The sign-in could not be verified, so you are still a guest."), env)
            }
            return complete(&state, credential, env)
        case .failed(.canceled):
            return finish(&state, Notice(.info, "Sign-in canceled. You are shopping as a guest."), env)
        case .failed(.failed(let why)):
            return finish(&state, Notice(.error, .lookup(why)), env)
        case .accountSaved(let credential):
            guard state.progress != nil else { return .none }
            return signedIn(&state, credential, env)
        case .notSaved(let why):
            return finish(&state, Notice(.error, .lookup(why)), env)
        case .signedOut:
            let effect = switchCustomer(&state, to: nil, mergingGuestCart: false, env)
            state.shell.notice = Notice(.info, "Signed out. You are shopping as a guest.")
            return effect
        case .signOutFailed(let why):
            state.shell.notice = Notice(.error, "Could not sign out: \(why)")
            return .none
        }
    }

    /// Keeps the tokens and the profile in an effect; `.accountSaved` then moves the shop to the account.
    private static func complete(_ state: inout State, _ credential: SignInCompletion, _ env: ShopEnvironment) -> Effect {
        guard let services = env.dependencies.accounts.signIn else { return .none }
        if services.auth != nil, credential.tokens == nil {
            return finish(&state, Notice(.error, "\(services.name) gave no tokens, so you are still a guest."), env)
        }
        let profiles = env.dependencies.accounts.profiles
        let account = signedInAccount(credential, services, current: state.signedIn)
        return .run { send in
            do {
                if let auth = services.auth, let tokens = credential.tokens { try await auth.save(tokens, userID: credential.user) }
                if credential.fullName != nil || credential.email != nil {
                    // Given on the first sign-in only: this is the one chance to keep them.
                    try await profiles.save(AccountProfile(customerID: account.customerID, name: credential.fullName, email: credential.email))
                }
                send(.signIn(.accountSaved(credential)))
            } catch {
                send(.signIn(.notSaved("Your sign-in could not be saved: \(error)")))
            }
        }
    }

    /// Who the sign-in makes the shopper: an SSH key that joined an account stays the key, now reaching that account.
    private static func signedInAccount(_ credential: SignInCompletion, _ services: SignInServices, current: SignedInAccount?) -> SignedInAccount {
        if let current, current.provider == .sshKey {
            return SignedInAccount(provider: .sshKey, userID: current.userID, customerID: credential.user)
        }
        return SignedInAccount(provider: services.kind, userID: credential.user)
    }

    /// The sign-in is kept: the shop moves to the account, with the guest's cart added to its own.
    private static func signedIn(_ state: inout State, _ credential: SignInCompletion, _ env: ShopEnvironment) -> Effect {
        guard let services = env.dependencies.accounts.signIn else { return .none }
        let account = signedInAccount(credential, services, current: state.signedIn)
        let hadGuestItems = state.hasCartLines
        // The name and email given now show at once; the wallet's read brings the stored profile.
        if credential.fullName != nil || credential.email != nil {
            state.profile = AccountProfile(customerID: account.customerID, name: credential.fullName, email: credential.email)
        }
        let joined = state.signedIn?.provider == .sshKey
        let effect = switchCustomer(&state, to: account, mergingGuestCart: true, env)
        let merged = hadGuestItems ? " Your \(joined ? "key's" : "guest") cart was added to your account's cart." : ""
        let line = joined ? "This key now reaches your account." : "Signed in as \(AccountState.title(for: account, profile: state.profile))."
        return effect + finish(&state, Notice(.info, .lookup(line + merged)), env)
    }

    /// Ends the sign-in with `notice`, on the account screen; its session is let go by the effect returned.
    private static func finish(_ state: inout State, _ notice: Notice, _ env: ShopEnvironment) -> Effect {
        let id = state.progress?.signInID
        state.progress = nil
        if state.shell.form?.purpose == .signIn { state.shell.dismissForm() }
        state.shell.notice = notice
        if state.shell.screen != .account { state.shell.show(.account) }
        guard let id else { return .none }
        let signIns = env.signIns
        return .run { _ in signIns.endSignIn(id) }
    }

    /// The shopper answered the prompt: "Checking…" until the controller answers.
    static func submitPrompt(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        guard let progress = state.progress, progress.isPromptShown else { return .none }
        state.progress?.isPromptShown = false
        state.shell.form?.isBusy = true
        state.shell.form?.status = "Checking…"
        state.shell.form?.isStatusError = false
        let values = Dictionary(uniqueKeysWithValues: form.fields.map { ($0.id, $0.value) })
        let signIns = env.signIns
        return .run { _ in await signIns.signIn(progress.signInID)?.takeReply()?(values) }
    }

    /// Esc on a prompt: the controller hears no answer and reports the sign-in canceled.
    static func cancelPrompt(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let progress = state.progress, progress.isPromptShown else { return .none }
        state.progress?.isPromptShown = false
        let signIns = env.signIns
        return .run { _ in await signIns.signIn(progress.signInID)?.takeReply()?(nil) }
    }

    /// Forgets the tokens in an effect; `.signedOut` moves the shop to the guest, and the refresh token is revoked.
    static func signOut(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let services = env.dependencies.accounts.signIn, let auth = services.auth, state.signedIn != nil else { return .none }
        return .run { send in
            let refresh = (try? await auth.refreshToken()) ?? nil
            do {
                try await auth.clear()
            } catch {
                send(.signIn(.signOutFailed("\(error)")))
                return
            }
            send(.signIn(.signedOut))
            if let refresh { await services.provider.revoke(refreshToken: refresh) }
        }
    }

    /// Moves the shop to another customer: the cart hands the one being left over first (merging the guest's into
    /// the account's on a sign-in), then the new customer's wallet and saved cart are read.
    private static func switchCustomer(_ state: inout State, to account: SignedInAccount?, mergingGuestCart: Bool, _ env: ShopEnvironment) -> Effect {
        let leaving = state.customerID
        state.signedIn = account
        state.customerID = account?.customerID ?? env.dependencies.accounts.guestID
        return .send(.signIn(.delegate(.customerChanged(leaving: leaving, mergingIntoNext: mergingGuestCart))))
    }
}
