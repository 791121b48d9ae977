import StoreClients
import StoreModels

/// What sign-in's controller and the checks it needs answer with.
public enum SignInAction: Equatable, Sendable {
    /// The controller asks the shopper something; shown as a form.
    case promptShown(SignInPrompt)
    case credentialReceived(SignInCompletion)
    /// The identity token was checked against the provider and the request's nonce.
    case verified(SignInCompletion, isValid: Bool)
    case failed(SignInError)
}

/// Signing in with Sandbox ID and out again, moving the shop to the account's cart, wallet and orders.
@MainActor
enum SignInFeature {
    /// Starts a sign-in with a fresh controller from the factory.
    ///
    /// Order of calls: factory([request]) → delegate and presentation context set →
    /// `performRequests()` → prompts shown as forms → `didCompleteWith` a credential or an error.
    static func begin(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        guard let services = env.dependencies.accounts.signIn, state.signIn == nil else { return .none }
        let request = SignInRequest(requestedScopes: [.fullName, .email], nonce: env.dependencies.ids.next())
        let session = SignInSession(controller: services.makeController([request]), nonce: request.nonce, mailbox: env.mailbox)
        state.signIn = session
        session.start()
        return .none
    }

    static func reduce(_ state: inout AppState, _ action: SignInAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .promptShown(let prompt):
            var form = FormState(
                purpose: .signIn, title: prompt.title, message: prompt.message,
                fields: prompt.fields.map { FormState.Field(id: $0.id, label: $0.label, value: $0.value, hint: $0.hint, error: $0.error) },
                submitLabel: prompt.submitLabel
            )
            form.focusedIndex = form.fields.firstIndex { $0.error != nil } ?? 0
            FormFeature.open(form, in: &state)
            return .none
        case .credentialReceived(let credential):
            guard let session = state.signIn, let services = env.dependencies.accounts.signIn else { return .none }
            guard let token = credential.identityToken else { return complete(&state, credential, env) }
            let nonce = session.nonce
            return .run { send in
                let check = await services.provider.verifyIdentityToken(token, nonce: nonce)
                let isValid = if case .valid(let user) = check { user == credential.user } else { false }
                send(.signIn(.verified(credential, isValid: isValid)))
            }
        case .verified(let credential, let isValid):
            guard state.signIn != nil else { return .none }
            guard isValid else {
                finish(&state, Notice(.error, "The sign-in could not be verified, so you are still a guest."), env)
                return .none
            }
            return complete(&state, credential, env)
        case .failed(.canceled):
            finish(&state, Notice(.info, "Sign-in canceled. You are shopping as a guest."), env)
            return .none
        case .failed(.failed(let why)):
            finish(&state, Notice(.error, why), env)
            return .none
        }
    }

    /// Keeps the tokens and the profile, then moves the shop to the account.
    private static func complete(_ state: inout AppState, _ credential: SignInCompletion, _ env: ShopEnvironment) -> Effect {
        guard let services = env.dependencies.accounts.signIn else { return .none }
        guard let tokens = credential.tokens else {
            finish(&state, Notice(.error, "Sandbox ID gave no tokens, so you are still a guest."), env)
            return .none
        }
        let account = SignedInAccount(provider: .sandboxID, userID: credential.user)
        do {
            try services.auth.save(tokens, userID: credential.user)
            if credential.fullName != nil || credential.email != nil {
                // Given on the first sign-in only: this is the one chance to keep them.
                try env.dependencies.accounts.profiles.save(AccountProfile(customerID: account.customerID, name: credential.fullName, email: credential.email))
            }
        } catch {
            finish(&state, Notice(.error, "Your sign-in could not be saved: \(error)"), env)
            return .none
        }
        let hadGuestItems = !state.cart.isEmpty
        switchCustomer(&state, to: account, mergingGuestCart: true, env)
        let merged = hadGuestItems ? " Your guest cart was added to your account's cart." : ""
        finish(&state, Notice(.info, "Signed in as \(state.account.title).\(merged)"), env)
        return .none
    }

    private static func finish(_ state: inout AppState, _ notice: Notice, _ env: ShopEnvironment) {
        state.signIn = nil
        if state.form?.purpose == .signIn { FormFeature.close(&state) }
        state.notice = notice
        if state.screen != .account { AccountFeature.open(&state, env) }
    }

    /// The shopper answered the prompt: "Checking…" until the controller answers.
    static func submitPrompt(_ state: inout AppState, _ form: FormState) -> Effect {
        guard let reply = state.signIn?.takeReply() else { return .none }
        state.form?.isBusy = true
        state.form?.status = "Checking…"
        state.form?.isStatusError = false
        let values = Dictionary(uniqueKeysWithValues: form.fields.map { ($0.id, $0.value) })
        return .run { _ in await reply(values) }
    }

    /// Esc on a prompt: the controller hears no answer and reports the sign-in canceled.
    static func cancelPrompt(_ state: inout AppState) -> Effect {
        guard let reply = state.signIn?.takeReply() else { return .none }
        return .run { _ in await reply(nil) }
    }

    static func signOut(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        guard let services = env.dependencies.accounts.signIn, state.signedIn != nil else { return .none }
        let refresh = (try? services.auth.refreshToken()) ?? nil
        do {
            try services.auth.clear()
        } catch {
            state.notice = Notice(.error, "Could not sign out: \(error)")
            return .none
        }
        switchCustomer(&state, to: nil, mergingGuestCart: false, env)
        state.notice = Notice(.info, "Signed out. You are shopping as a guest.")
        guard let refresh else { return .none }
        return .run { _ in await services.provider.revoke(refreshToken: refresh) }
    }

    /// Moves the shop to another customer: their cart, wallet and orders.
    private static func switchCustomer(_ state: inout AppState, to account: SignedInAccount?, mergingGuestCart: Bool, _ env: ShopEnvironment) {
        let accounts = env.dependencies.accounts
        // A change still waiting for its save belongs to the customer being left.
        CartFeature.saveNow(&state, env)
        let guestLines = state.cart.lines
        state.signedIn = account
        state.customerID = account?.customerID ?? accounts.guestID
        accounts.walletOwner.customerID = state.customerID
        if let failure = CartFeature.restoreCart(&state, env) { state.notice = Notice(.error, failure) }
        if mergingGuestCart, !guestLines.isEmpty {
            state.cart.merge(guestLines)
            if let left = CartFeature.leaveOutLinesOverMaximum(&state, from: "Your cart with the guest cart added", env) {
                state.notice = Notice(.error, left)
            }
            do {
                try env.dependencies.carts?.save([], forCustomer: accounts.guestID)
            } catch {
                state.notice = Notice(.error, "Your guest cart could not be cleared: \(error)")
            }
        }
        AccountFeature.reloadWallet(&state, env)
        OrdersFeature.reload(&state, env)
    }
}
