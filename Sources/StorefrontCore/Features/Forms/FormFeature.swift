import ShopLanguages
import ShopModels
import ShopPorts

/// The forms' actions: the keys of the form on top, the card form others ask for, what its submission answered, and
/// what a form asks of the others.
public enum FormAction: KeyedFeatureAction {
    case key(Action)
    /// Show the card form.
    case presentCardForm
    /// The card form's fields are wrong: each field's message, by field id.
    case invalid([String: Localized])
    /// The payment provider kept the card from the card form.
    case cardVaulted(PaymentMethod)
    /// The wallet repository kept the card.
    case cardSaved(PaymentMethod)
    /// The wallet repository kept the address.
    case addressSaved(Contact)
    /// The form could not be saved: the message goes on `field`, or on the whole form when nil.
    case failed(message: String, field: String?)
    /// The provider will not take card numbers typed in the shop: the card goes to its page instead.
    case typedCardsRefused
    /// A new API token was kept; its secret is shown once (Account).
    case apiTokenMade(secret: String, name: String)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        /// Saved to the wallet: the account reads it again, and a sheet waiting for it takes it.
        case addedToWallet(WalletEntry)
        /// A card or address form was left unsaved.
        case walletEntryCanceled(FormState.Purpose)
        /// The provider takes cards on its own page.
        case addCardOnProvidersPage
        case showNewAPIToken(secret: String, name: String)
        case submitSignInPrompt(FormState)
        case cancelSignInPrompt
        case applyDiscountCode(String)
        case submitMerchantForm(FormState)
    }

    public init?(_ action: AppAction) {
        guard case .form(let action) = action else { return nil }
        self = action
    }
}

/// A form on top of another screen: typing, moving between fields, submitting and cancelling.
/// What a form asks for and how it is saved lives with its purpose: CardForm, AddressForm, SignInFeature.
@MainActor
public enum FormFeature {
    /// What the forms own beside the shell, where the form on top lives: nothing.
    public struct Owned: Equatable, Sendable {
        public init() {}
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, FormAction> { FeatureReducer(body: reduce) }

    /// The card form, for a provider that takes cards typed in the shop.
    static func presentCardForm(_ state: inout State, _ env: ShopEnvironment) {
        state.shell.presentForm(CardForm.make(profile: state.profile, env))
    }

    /// Longest value a form field takes; anything longer is not a card, code, name or address.
    static let fieldLimit = 120

    /// The keys a form takes: text, and moving between fields, submitting and leaving.
    enum Action: FeatureKeys {
        case type(String)
        case deleteBackward, nextField, previousField, confirm, back

        static var typing: ((String) -> Self)? { Self.type }

        static let keys: [StorefrontCore.Action: Self] = [
            .deleteBackward: .deleteBackward, .nextField: .nextField, .moveDown: .nextField, .moveUp: .previousField, .confirm: .confirm,
            .back: .back,
        ]
    }

    static func reduceKey(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard var form = state.shell.form, !form.isBusy else { return .none }
        // A form of no fields (one waiting on a link opened elsewhere) takes only Esc.
        guard form.fields.indices.contains(form.focusedIndex) else { return action == .back ? cancel(&state, form, env) : .none }
        let index = form.focusedIndex
        switch action {
        case .type(let text) where !form.fields[index].options.isEmpty:
            form.fields[index].value = Self.pick(text, in: form.fields[index].options, after: form.fields[index].value)
        case .deleteBackward where !form.fields[index].options.isEmpty:
            form.fields[index].value = Self.pick(nil, in: form.fields[index].options, after: form.fields[index].value)
        case .type(let text):
            // A paste arrives as one text: what fits is kept, the rest refused.
            let room = max(0, fieldLimit - form.fields[index].value.count)
            form.fields[index].value += text.prefix(room)
            form.fields[index].error = text.count > room ? "That is too long." : nil
            edited(&form, field: index)
        case .deleteBackward:
            if !form.fields[index].value.isEmpty { form.fields[index].value.removeLast() }
            form.fields[index].error = nil
            edited(&form, field: index)
        case .nextField:
            form.focusedIndex = (index + 1) % form.fields.count
        case .previousField:
            form.focusedIndex = (index + form.fields.count - 1) % form.fields.count
        case .confirm:
            if !form.isOnLastField {
                form.focusedIndex = index + 1
            } else {
                state.shell.form = form
                return submit(&state, form, env)
            }
        case .back:
            return cancel(&state, form, env)
        }
        state.shell.form = form
        return .none
    }

    static func reduce(_ state: inout State, _ action: FormAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): return Action(key).map { reduceKey(&state, $0, env) } ?? .none
        case .presentCardForm:
            presentCardForm(&state, env)
            return .none
        case .delegate: return .none
        case .invalid(let errors):
            state.shell.form?.isBusy = false
            state.shell.form?.showFieldErrors(errors)
            return .none
        case .cardVaulted(let card):
            return CardForm.vaulted(&state, card, env)
        case .cardSaved(let card):
            return CardForm.saved(&state, card, env)
        case .addressSaved(let contact):
            return AddressForm.saved(&state, contact, env)
        case .failed(let message, let field):
            failed(&state, message, field: field)
            return .none
        case .typedCardsRefused:
            // Nothing is wrong with the card: the payment service takes it on its own page.
            state.shell.dismissForm()
            state.shell.notice = Notice(.info, "The payment service takes cards on its own page: open the link below.")
            return .send(.form(.delegate(.addCardOnProvidersPage)))
        case .apiTokenMade(let secret, let name):
            state.shell.dismissForm()
            return .send(.form(.delegate(.showNewAPIToken(secret: secret, name: name))))
        }
    }

    /// The option a key picks: Space the next one, Backspace (nil) the one before; a letter the next one starting with
    /// it, else the current one.
    static func pick(_ typed: String?, in options: [String], after current: String) -> String {
        let at = options.firstIndex(of: current) ?? 0
        let order = (1...options.count).map { options[(at + $0) % options.count] }
        guard let typed else { return order[max(0, options.count - 2)] }
        if typed == " " { return order[0] }
        guard let letter = typed.first?.lowercased() else { return current }
        return order.first { $0.first?.lowercased() == letter } ?? current
    }

    /// What a form does when the text of field `index` changed, by its purpose: an address's fields follow its country.
    private static func edited(_ form: inout FormState, field index: Int) {
        switch form.purpose {
        case .addAddress: AddressForm.edited(&form, field: index)
        case .signIn, .addCard, .apiToken, .shipOrder, .refundDetails, .stockCount, .productDetails, .discountCode, .discountTerms, .customerSearch,
            .customerNote:
            break
        }
    }

    private static func submit(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        switch form.purpose {
        case .signIn: return .send(.form(.delegate(.submitSignInPrompt(form))))
        case .addCard: return CardForm.submit(&state, form, env)
        case .addAddress: return AddressForm.submit(&state, form, env)
        case .apiToken: return APITokenForm.submit(&state, form, env)
        case .discountCode: return .send(.form(.delegate(.applyDiscountCode(form.value("code")))))
        case .shipOrder, .refundDetails, .stockCount, .productDetails, .discountTerms, .customerSearch, .customerNote:
            return .send(.form(.delegate(.submitMerchantForm(form))))
        }
    }

    private static func cancel(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        state.shell.dismissForm()
        switch form.purpose {
        case .signIn: return .send(.form(.delegate(.cancelSignInPrompt)))
        case .addCard, .addAddress: return .send(.form(.delegate(.walletEntryCanceled(form.purpose))))
        case .shipOrder, .refundDetails, .stockCount, .apiToken, .productDetails, .discountCode, .discountTerms, .customerSearch, .customerNote:
            return .none
        }
    }

    static func failed(_ state: inout State, _ message: String, field: String?) {
        state.shell.form?.fail(message, field: field)
    }

}
