import Foundation
import StoreClients
import StoreModels

// MARK: - Account, wallet and forms

extension StorefrontViewModel {
    /// Reads the current customer's saved cart; returns what went wrong, if anything.
    func restoreCart() -> String? {
        guard let carts = dependencies.carts else { return nil }
        do {
            cart = Cart(currency: storeProfile.currency, lines: try carts.lines(forCustomer: customerID).filter { $0.unitPrice.currency == storeProfile.currency })
            let left = leaveOutLinesOverMaximum(from: "Your saved cart")
            // The saved cart stays as it was until the shopper changes this one.
            savedCart = cart.lines
            return left
        } catch {
            return "Your saved cart could not be read: \(error)"
        }
    }

    /// Keeps the cart within `Money.maximumMinorUnits`; says which lines were left out, or nil.
    func leaveOutLinesOverMaximum(from source: String) -> String? {
        let left = cart.removeLinesOverMaximum(shippingMethods: storeProfile.shippingMethods, tax: storeProfile.tax)
        guard !left.isEmpty else { return nil }
        let names = left.map(\.name).joined(separator: ", ")
        return "\(source) would cost over \(Money.maximum(storeProfile.currency).formatted); left out: \(names)."
    }

    /// Re-reads the customer's wallet and everything that shows it: the account screen and One-Tap.
    func reloadWallet() {
        do {
            wallet = try dependencies.accounts.wallets.wallet(forCustomer: customerID)
        } catch {
            state.notice = Notice(.error, "Your wallet could not be read: \(error)")
        }
        refreshAccountState()
        saveCartAndShowIt()
        refreshDetail()
    }

    /// Rebuilds the account screen and the header's shopper label from the account, profile and wallet.
    func refreshAccountState() {
        var screen = AccountState()
        let profile = (try? dependencies.accounts.profiles.profile(forCustomer: customerID)) ?? nil
        switch account?.provider {
        case .sandboxID?:
            screen.title = profile?.name ?? profile?.email ?? "Sandbox ID account"
            screen.detail = [profile?.name == nil ? nil : profile?.email, "signed in with Sandbox ID"].compactMap { $0 }.joined(separator: " · ")
            screen.canSignOut = dependencies.accounts.signIn != nil
        case .sshKey?:
            screen.title = "SSH key"
            screen.detail = "\(account?.userID ?? "") · your key is your account"
        case nil:
            screen.title = "Guest"
            screen.canSignIn = dependencies.accounts.signIn != nil
            screen.detail = screen.canSignIn ? "Sign in to keep your cart, wallet and orders in an account." : "Shopping as a guest."
        }
        screen.isSignedIn = account != nil
        state.shopperLabel = account == nil ? "guest" : (account?.provider == .sshKey ? Self.shortFingerprint(account?.userID ?? "") : screen.title)
        screen.rows = wallet.cards.map { card in
            AccountRow(kind: .card, id: card.id, title: card.shortName, detail: card.displayName, isDefault: card.id == wallet.defaultCardID)
        } + wallet.addresses.map { address in
            AccountRow(kind: .address, id: address.id, title: address.name, detail: address.address.singleLine, isDefault: address.id == wallet.defaultAddressID)
        }
        screen.selectedIndex = ListSelection.clamped(state.account.selectedIndex, count: screen.rows.count)
        let defaultCardWorksHere = wallet.defaultCard.map { storeProfile.supportedNetworks.contains($0.network) } ?? false
        screen.isOneTapReady = defaultCardWorksHere && wallet.defaultAddress != nil
        state.account = screen
    }

    /// "SHA256:abcd…wxyz": enough of a key fingerprint to recognise it in the header.
    static func shortFingerprint(_ fingerprint: String) -> String {
        guard fingerprint.count > 20 else { return fingerprint }
        return String(fingerprint.prefix(14)) + "…" + String(fingerprint.suffix(4))
    }

    func showAccount() {
        refreshAccountState()
        show(.account)
    }

    func handleAccount(_ action: Action) {
        if handleGlobalNavigation(action) { return }
        let rows = state.account.rows
        if let moved = ListSelection.moved(state.account.selectedIndex, by: action, count: rows.count) {
            state.account.selectedIndex = moved
            return
        }
        switch action {
        case .addCard: openCardForm()
        case .addAddress: openAddressForm()
        case .confirm, .makeDefault:
            guard let row = state.account.selectedRow, !row.isDefault else { return }
            changeWallet(success: "\(row.title) is now your default \(row.kind == .card ? "card" : "address").") { wallets, customer in
                switch row.kind {
                case .card: try wallets.setDefaultCard(id: row.id, forCustomer: customer)
                case .address: try wallets.setDefaultAddress(id: row.id, forCustomer: customer)
                }
            }
        case .removeLine:
            guard let row = state.account.selectedRow else { return }
            changeWallet(success: "Removed \(row.title).") { wallets, customer in
                switch row.kind {
                case .card: try wallets.removeCard(id: row.id, forCustomer: customer)
                case .address: try wallets.removeAddress(id: row.id, forCustomer: customer)
                }
            }
        case .signInOrOut:
            if state.account.canSignIn { beginSignIn() } else if state.account.canSignOut { signOut() }
        case .back: popScreen()
        default: break
        }
    }

    /// Applies one change to the wallet store, then shows the result.
    private func changeWallet(success: String, _ change: (any WalletStore, String) throws -> Void) {
        do {
            try change(dependencies.accounts.wallets, customerID)
            state.notice = Notice(.info, success)
        } catch {
            state.notice = Notice(.error, "Your wallet could not be changed: \(error)")
        }
        reloadWallet()
    }

    // MARK: Forms

    func openCardForm() {
        let form = FormState(
            purpose: .addCard, title: "Add a card",
            message: "The number and security code go to the payment provider once; the shop keeps only its token, the network, the last 4 digits and the expiry.",
            fields: [
                FormState.Field(id: CardField.number.rawValue, label: "Card number", hint: "Sandbox: 4242 4242 4242 4242 succeeds"),
                FormState.Field(id: CardField.expiry.rawValue, label: "Expiry", hint: "MM/YY"),
                FormState.Field(id: CardField.securityCode.rawValue, label: "Security code", hint: "3 digits, 4 for Amex", isMasked: true),
                FormState.Field(id: CardField.name.rawValue, label: "Name on card", value: profile()?.name ?? ""),
                FormState.Field(id: CardField.postalCode.rawValue, label: "Billing postal code"),
            ],
            submitLabel: "Save card"
        )
        openForm(form)
    }

    func openAddressForm() {
        let profile = profile()
        let form = FormState(
            purpose: .addAddress, title: "Add an address",
            message: "\(storeProfile.name) ships to \(storeProfile.countryCode) addresses. The email gets the receipt.",
            fields: [
                FormState.Field(id: AddressField.name.rawValue, label: "Name", value: profile?.name ?? ""),
                FormState.Field(id: AddressField.street.rawValue, label: "Street"),
                FormState.Field(id: AddressField.city.rawValue, label: "City"),
                FormState.Field(id: AddressField.postalCode.rawValue, label: "Postal code"),
                FormState.Field(id: AddressField.country.rawValue, label: "Country", value: storeProfile.countryCode, hint: "two letters"),
                FormState.Field(id: AddressField.email.rawValue, label: "Email", value: profile?.email ?? ""),
                FormState.Field(id: AddressField.phone.rawValue, label: "Phone", hint: "optional"),
            ],
            submitLabel: "Save address"
        )
        openForm(form)
    }

    private func profile() -> AccountProfile? {
        (try? dependencies.accounts.profiles.profile(forCustomer: customerID)) ?? nil
    }

    private func openForm(_ form: FormState) {
        state.form = form
        if state.screen != .form { state.route.append(.form) }
    }

    private func closeForm() {
        state.form = nil
        if state.screen == .form { popScreen() }
    }

    /// Longest value a form field takes; anything longer is not a card, code, name or address.
    static let fieldLimit = 120

    func handleForm(_ action: Action) {
        guard var form = state.form, !form.isBusy else { return }
        let index = form.focusedIndex
        switch action {
        case .textInput(let text):
            guard form.fields[index].value.count + text.count <= Self.fieldLimit else {
                form.fields[index].error = "That is too long."
                break
            }
            form.fields[index].value += text
            form.fields[index].error = nil
        case .deleteBackward:
            if !form.fields[index].value.isEmpty { form.fields[index].value.removeLast() }
            form.fields[index].error = nil
        case .nextField, .moveDown:
            form.focusedIndex = (index + 1) % form.fields.count
        case .moveUp:
            form.focusedIndex = (index + form.fields.count - 1) % form.fields.count
        case .confirm:
            if !form.isOnLastField {
                form.focusedIndex = index + 1
            } else {
                state.form = form
                submit(form)
                return
            }
        case .back:
            cancelForm(form)
            return
        default: break
        }
        state.form = form
    }

    private func cancelForm(_ form: FormState) {
        closeForm()
        switch form.purpose {
        case .signIn:
            let reply = signInReply
            signInReply = nil
            if let reply { startTrackedTask { await reply(nil) } }
        case .addCard:
            if checkoutAwaitingCard != nil, state.screen == .paymentSheet { state.notice = Notice(.info, "No card was added.") }
        case .addAddress:
            break
        }
    }

    private func submit(_ form: FormState) {
        switch form.purpose {
        case .signIn: submitSignInPrompt(form)
        case .addCard: submitCardForm(form)
        case .addAddress: submitAddressForm(form)
        }
    }

    /// Shows each field's error in place and moves to the first field that has one.
    private func showFieldErrors(_ errors: [String: String]) {
        guard var form = state.form else { return }
        for index in form.fields.indices { form.fields[index].error = errors[form.fields[index].id] }
        if let first = form.fields.firstIndex(where: { $0.error != nil }) { form.focusedIndex = first }
        form.status = nil
        state.form = form
    }

    private func submitCardForm(_ form: FormState) {
        let entry = CardEntry(
            number: form.value(CardField.number.rawValue), expiry: form.value(CardField.expiry.rawValue),
            securityCode: form.value(CardField.securityCode.rawValue), name: form.value(CardField.name.rawValue),
            postalCode: form.value(CardField.postalCode.rawValue)
        )
        let details: CardDetails
        switch entry.validated(today: currentMonth()) {
        case .failure(let errors):
            showFieldErrors(Dictionary(uniqueKeysWithValues: errors.fields.map { ($0.key.rawValue, $0.value) }))
            return
        case .success(let valid):
            details = valid
        }
        showFieldErrors([:])
        state.form?.isBusy = true
        state.form?.status = "Saving your card…"
        let provider = dependencies.paymentProvider
        startTrackedTask { [weak self] in
            do throws(PaymentProviderError) {
                let card = try await provider.vault(details)
                self?.cardVaulted(card)
            } catch {
                self?.formFailed(error.cardFormMessage, field: CardField.number.rawValue)
            }
        }
    }

    private func cardVaulted(_ card: PaymentMethod) {
        do {
            try dependencies.accounts.wallets.addCard(card, forCustomer: customerID, makeDefault: wallet.cards.isEmpty)
        } catch {
            formFailed("The card could not be saved: \(error)", field: nil)
            return
        }
        closeForm()
        reloadWallet()
        state.notice = Notice(.info, "Saved \(card.shortName).")
        if let pending = checkoutAwaitingCard, state.screen == .paymentSheet {
            // "Set up card" came from the sheet: start that checkout again with the new card.
            checkoutAwaitingCard = nil
            state.paymentSheet = nil
            popScreen()
            beginCheckout(lines: pending.lines, clearsCartOnSuccess: pending.clearsCartOnSuccess, oneTap: false)
        }
        publish()
    }

    private func formFailed(_ message: String, field: String?) {
        guard var form = state.form else { return }
        form.isBusy = false
        if let field, let index = form.fields.firstIndex(where: { $0.id == field }) {
            form.fields[index].error = message
            form.focusedIndex = index
            form.status = nil
        } else {
            form.status = message
            form.isStatusError = true
        }
        state.form = form
        publish()
    }

    private func submitAddressForm(_ form: FormState) {
        let entry = AddressEntry(
            name: form.value(AddressField.name.rawValue), street: form.value(AddressField.street.rawValue),
            city: form.value(AddressField.city.rawValue), postalCode: form.value(AddressField.postalCode.rawValue),
            country: form.value(AddressField.country.rawValue), email: form.value(AddressField.email.rawValue),
            phone: form.value(AddressField.phone.rawValue)
        )
        var problems = Dictionary(uniqueKeysWithValues: entry.problems().map { ($0.key.rawValue, $0.value) })
        if problems[AddressField.country.rawValue] == nil, entry.country.trimmingCharacters(in: .whitespaces).uppercased() != storeProfile.countryCode {
            problems[AddressField.country.rawValue] = "\(storeProfile.name) ships to \(storeProfile.countryCode) addresses only."
        }
        guard problems.isEmpty, let contact = entry.contact(id: "addr_" + dependencies.ids.next()) else {
            showFieldErrors(problems)
            return
        }
        do {
            try dependencies.accounts.wallets.addAddress(contact, forCustomer: customerID, makeDefault: wallet.addresses.isEmpty)
        } catch {
            formFailed("The address could not be saved: \(error)", field: nil)
            return
        }
        closeForm()
        reloadWallet()
        state.notice = Notice(.info, "Saved the address for \(contact.name).")
    }

    /// This month in UTC, for card expiry.
    private func currentMonth() -> CardExpiry {
        let parts = Calendar.utcGregorian.dateComponents([.year, .month], from: dependencies.accounts.dates.now())
        return CardExpiry(month: parts.month ?? 1, year: parts.year ?? 1970)
    }

    // MARK: Sign-in

    /// Starts a sign-in with a fresh controller from the factory.
    ///
    /// Order of calls: factory([request]) → delegate and presentation context set →
    /// `performRequests()` → prompts shown as forms → `didCompleteWith` a credential or an error.
    func beginSignIn() {
        guard let services = dependencies.accounts.signIn, signInController == nil else { return }
        let request = SignInRequest(requestedScopes: [.fullName, .email], nonce: dependencies.ids.next())
        let controller = services.makeController([request])
        signInNonce = request.nonce
        signInController = controller
        controller.delegate = self
        controller.presentationContextProvider = self
        controller.performRequests()
    }

    private func signOut() {
        guard let services = dependencies.accounts.signIn, account != nil else { return }
        let refresh = (try? services.auth.refreshToken()) ?? nil
        do {
            try services.auth.clear()
        } catch {
            state.notice = Notice(.error, "Could not sign out: \(error)")
            return
        }
        if let refresh { startTrackedTask { await services.provider.revoke(refreshToken: refresh) } }
        switchCustomer(to: nil, mergingGuestCart: false)
        state.notice = Notice(.info, "Signed out. You are shopping as a guest.")
    }

    /// Moves the shop to another customer: their cart, wallet and orders.
    private func switchCustomer(to newAccount: SignedInAccount?, mergingGuestCart: Bool) {
        let guestLines = cart.lines
        account = newAccount
        customerID = newAccount?.customerID ?? dependencies.accounts.guestID
        dependencies.accounts.walletOwner.customerID = customerID
        if let failure = restoreCart() { state.notice = Notice(.error, failure) }
        if mergingGuestCart, !guestLines.isEmpty {
            cart.merge(guestLines)
            if let left = leaveOutLinesOverMaximum(from: "Your cart with the guest cart added") { state.notice = Notice(.error, left) }
            do {
                try dependencies.carts?.save([], forCustomer: dependencies.accounts.guestID)
            } catch {
                state.notice = Notice(.error, "Your guest cart could not be cleared: \(error)")
            }
        }
        reloadWallet()
        reloadOrders()
    }

    private func completeSignIn(_ credential: any SignInCredential) async {
        guard let services = dependencies.accounts.signIn else { return }
        if let token = credential.identityToken {
            let check = await services.provider.verifyIdentityToken(token, nonce: signInNonce)
            guard case .valid(let user) = check, user == credential.user else {
                finishSignIn(notice: Notice(.error, "The sign-in could not be verified, so you are still a guest."))
                return
            }
        }
        guard let tokens = credential.tokens else {
            finishSignIn(notice: Notice(.error, "Sandbox ID gave no tokens, so you are still a guest."))
            return
        }
        let newAccount = SignedInAccount(provider: .sandboxID, userID: credential.user)
        do {
            try services.auth.save(tokens, userID: credential.user)
            if credential.fullName != nil || credential.email != nil {
                // Given on the first sign-in only: this is the one chance to keep them.
                try dependencies.accounts.profiles.save(AccountProfile(customerID: newAccount.customerID, name: credential.fullName, email: credential.email))
            }
        } catch {
            finishSignIn(notice: Notice(.error, "Your sign-in could not be saved: \(error)"))
            return
        }
        let hadGuestItems = !cart.isEmpty
        switchCustomer(to: newAccount, mergingGuestCart: true)
        let merged = hadGuestItems ? " Your guest cart was added to your account's cart." : ""
        finishSignIn(notice: Notice(.info, "Signed in as \(state.account.title).\(merged)"))
    }

    private func finishSignIn(notice: Notice) {
        signInController = nil
        signInReply = nil
        signInNonce = nil
        if state.form?.purpose == .signIn { closeForm() }
        state.notice = notice
        if state.screen != .account { showAccount() }
        publish()
    }

    private func submitSignInPrompt(_ form: FormState) {
        guard let reply = signInReply else { return }
        signInReply = nil
        state.form?.isBusy = true
        state.form?.status = "Checking…"
        state.form?.isStatusError = false
        let values = Dictionary(uniqueKeysWithValues: form.fields.map { ($0.id, $0.value) })
        startTrackedTask { await reply(values) }
    }
}

extension StorefrontViewModel: SignInPresentationContextProviding {
    public func presentSignInPrompt(_ prompt: SignInPrompt, reply: @escaping @MainActor ([String: String]?) async -> Void) {
        signInReply = reply
        var form = FormState(
            purpose: .signIn, title: prompt.title, message: prompt.message,
            fields: prompt.fields.map { FormState.Field(id: $0.id, label: $0.label, value: $0.value, hint: $0.hint, error: $0.error) },
            submitLabel: prompt.submitLabel
        )
        form.focusedIndex = form.fields.firstIndex { $0.error != nil } ?? 0
        state.form = form
        if state.screen != .form { state.route.append(.form) }
        publish()
    }
}

extension StorefrontViewModel: SignInAuthorizationControllerDelegate {
    public func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith credential: any SignInCredential) {
        guard controller === signInController else { return }
        startTrackedTask { [weak self] in await self?.completeSignIn(credential) }
    }

    public func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith error: SignInError) {
        guard controller === signInController else { return }
        switch error {
        case .canceled: finishSignIn(notice: Notice(.info, "Sign-in canceled. You are shopping as a guest."))
        case .failed(let why): finishSignIn(notice: Notice(.error, why))
        }
    }
}

extension PaymentProviderError {
    /// The words for a card the provider would not keep, shown on the number field.
    var cardFormMessage: String {
        switch self {
        case .cardRejected(let reason): reason.message
        case .unavailable(let why): "The payment provider is unavailable (\(why)); your card was not saved."
        }
    }
}
