import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

/// The card form: checked in place, then vaulted by the payment provider and saved to the wallet.
@MainActor
enum CardForm {
    static func make(profile: AccountProfile?, _ env: ShopEnvironment) -> FormState {
        FormState(
            purpose: .addCard, title: "Add a card",
            message:
                "The number and security code go to the payment provider once; the shop keeps only its token, the network, the last 4 digits and the expiry.",
            fields: [
                FormState.Field(id: CardField.number.rawValue, label: "Card number", hint: testCardHint(env.dependencies.paymentProvider.mode)),
                FormState.Field(id: CardField.expiry.rawValue, label: "Expiry", hint: "MM/YY"),
                FormState.Field(id: CardField.securityCode.rawValue, label: "Security code", hint: "3 digits, 4 for Amex", isMasked: true),
                FormState.Field(id: CardField.name.rawValue, label: "Name on card", value: profile?.name ?? ""),
                FormState.Field(id: CardField.postalCode.rawValue, label: "Billing postal code"),
            ],
            submitLabel: "Save card"
        )
    }

    /// Checks the fields against this month; when they are good, the provider vaults the card.
    static func submit(_ state: inout FormFeature.State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        let entry = CardEntry(
            number: form.value(CardField.number.rawValue), expiry: form.value(CardField.expiry.rawValue),
            securityCode: form.value(CardField.securityCode.rawValue), name: form.value(CardField.name.rawValue),
            postalCode: form.value(CardField.postalCode.rawValue)
        )
        state.shell.form?.isBusy = true
        state.shell.form?.status = "Saving your card…"
        state.shell.form?.isStatusError = false
        let provider = env.dependencies.paymentProvider
        let dates = env.dependencies.accounts.dates
        let customerID = state.customerID
        return .run { send in
            let now = UTCTime(dates.now())
            let details: CardDetails
            switch entry.validated(today: CardExpiry(month: now.month, year: now.year)) {
            case .failure(let errors):
                send(.form(.invalid(Dictionary(uniqueKeysWithValues: errors.fields.map { ($0.key.rawValue, $0.value) }))))
                return
            case .success(let valid):
                details = valid
            }
            do throws(PaymentProviderError) {
                send(.form(.cardVaulted(try await provider.vault(details, forCustomer: customerID))))
            } catch .typedCardsRefused {
                send(.form(.typedCardsRefused))
            } catch {
                send(.form(.failed(message: error.cardFormMessage, field: CardField.number.rawValue)))
            }
        }
    }

    /// The provider kept the card: the wallet repository keeps it next.
    static func vaulted(_ state: inout FormFeature.State, _ card: PaymentMethod, _ env: ShopEnvironment) -> Effect {
        state.shell.form?.showFieldErrors([:])
        state.shell.form?.status = "Saving your card…"
        let wallets = env.dependencies.accounts.wallets
        let (customer, makeDefault) = (state.customerID, state.wallet.cards.isEmpty)
        return .run { send in
            do {
                try await wallets.addCard(card, forCustomer: customer, makeDefault: makeDefault)
                send(.form(.cardSaved(card)))
            } catch {
                send(.form(.failed(message: "The card could not be saved: \(error)", field: nil)))
            }
        }
    }

    /// The card is saved: the wallet is read again, and the checkout that asked for it resumes.
    static func saved(_ state: inout FormFeature.State, _ card: PaymentMethod, _ env: ShopEnvironment) -> Effect {
        state.shell.dismissForm()
        state.shell.notice = Notice(.info, "Saved \(card.shortName).")
        return .send(.form(.delegate(.addedToWallet(.card(card)))))
    }

    private static func testCardHint(_ mode: PaymentMode) -> Localized {
        switch mode {
        case .sandbox: Localized("Sandbox: 4242 4242 4242 4242 succeeds")
        case .test: Localized("Test mode: 4242 4242 4242 4242 succeeds")
        case .live: ""
        }
    }
}

extension PaymentProviderError {
    /// The words for a card the provider would not keep, shown on the number field.
    var cardFormMessage: String {
        switch self {
        case .cardRejected(let reason): reason.message
        case .cardRefused(let why): why
        case .typedCardsRefused: "The payment service takes cards on its own page here; nothing is wrong with your card."
        case .unavailable(let why): "The payment provider is unavailable (\(why)); your card was not saved."
        }
    }
}
