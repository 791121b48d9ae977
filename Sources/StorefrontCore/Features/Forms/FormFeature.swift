import ShopModels
import ShopPorts

/// What an effect answers a form with.
public enum FormAction: Equatable, Sendable {
    /// The card form's fields are wrong: each field's message, by field id.
    case invalid([String: String])
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

    /// The card form, for a provider that takes cards typed in the shop.
    static func presentCardForm(_ state: inout State, _ env: ShopEnvironment) {
        state.shell.presentForm(CardForm.make(profile: state.profile, env))
    }

    /// Longest value a form field takes; anything longer is not a card, code, name or address.
    static let fieldLimit = 120

    /// The keys a form takes: text, and moving between fields, submitting and leaving.
    enum Action: Equatable {
        case type(String)
        case deleteBackward, nextField, previousField, confirm, back

        init?(_ key: StorefrontCore.Action) {
            switch key {
            case .textInput(let text): self = .type(text)
            case .deleteBackward: self = .deleteBackward
            case .nextField, .moveDown: self = .nextField
            case .moveUp: self = .previousField
            case .confirm: self = .confirm
            case .back: self = .back
            default: return nil
            }
        }
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
            return .send(.request(.addCardOnProvidersPage))
        case .apiTokenMade(let secret, let name):
            state.shell.dismissForm()
            return .send(.request(.showNewAPIToken(secret: secret, name: name)))
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
        case .signIn, .addCard, .apiToken, .shipOrder, .refundDetails, .stockCount, .productDetails, .discountCode, .discountTerms: break
        }
    }

    private static func submit(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        switch form.purpose {
        case .signIn: return .send(.request(.submitSignInPrompt(form)))
        case .addCard: return CardForm.submit(&state, form, env)
        case .addAddress: return AddressForm.submit(&state, form, env)
        case .apiToken: return APITokenForm.submit(&state, form, env)
        case .discountCode: return .send(.request(.applyDiscountCode(form.value("code"))))
        case .shipOrder, .refundDetails, .stockCount, .productDetails, .discountTerms: return .send(.request(.submitMerchantForm(form)))
        }
    }

    private static func cancel(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        state.shell.dismissForm()
        switch form.purpose {
        case .signIn: return .send(.request(.cancelSignInPrompt))
        case .addCard, .addAddress: return .send(.request(.walletEntryCanceled(form.purpose)))
        case .shipOrder, .refundDetails, .stockCount, .apiToken, .productDetails, .discountCode, .discountTerms: return .none
        }
    }

    static func failed(_ state: inout State, _ message: String, field: String?) {
        state.shell.form?.fail(message, field: field)
    }

}
