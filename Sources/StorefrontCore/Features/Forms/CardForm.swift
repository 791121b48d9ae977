import Foundation
import StoreClients
import StoreModels

/// The card form: checked in place, then vaulted by the payment provider and saved to the wallet.
@MainActor
enum CardForm {
    static func make(_ state: AppState, _ env: ShopEnvironment) -> FormState {
        FormState(
            purpose: .addCard, title: "Add a card",
            message: "The number and security code go to the payment provider once; the shop keeps only its token, the network, the last 4 digits and the expiry.",
            fields: [
                FormState.Field(id: CardField.number.rawValue, label: "Card number", hint: testCardHint(env.dependencies.paymentProvider.mode)),
                FormState.Field(id: CardField.expiry.rawValue, label: "Expiry", hint: "MM/YY"),
                FormState.Field(id: CardField.securityCode.rawValue, label: "Security code", hint: "3 digits, 4 for Amex", isMasked: true),
                FormState.Field(id: CardField.name.rawValue, label: "Name on card", value: FormFeature.profile(state, env)?.name ?? ""),
                FormState.Field(id: CardField.postalCode.rawValue, label: "Billing postal code"),
            ],
            submitLabel: "Save card"
        )
    }

    /// Checks the fields; when they are good, the provider vaults the card.
    static func submit(_ state: inout AppState, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        let entry = CardEntry(
            number: form.value(CardField.number.rawValue), expiry: form.value(CardField.expiry.rawValue),
            securityCode: form.value(CardField.securityCode.rawValue), name: form.value(CardField.name.rawValue),
            postalCode: form.value(CardField.postalCode.rawValue)
        )
        let details: CardDetails
        switch entry.validated(today: currentMonth(env)) {
        case .failure(let errors):
            FormFeature.showFieldErrors(&state, Dictionary(uniqueKeysWithValues: errors.fields.map { ($0.key.rawValue, $0.value) }))
            return .none
        case .success(let valid):
            details = valid
        }
        FormFeature.showFieldErrors(&state, [:])
        state.form?.isBusy = true
        state.form?.status = "Saving your card…"
        let provider = env.dependencies.paymentProvider
        let customerID = state.customerID
        return .run { send in
            do throws(PaymentProviderError) {
                send(.form(.cardVaulted(try await provider.vault(details, forCustomer: customerID))))
            } catch {
                send(.form(.failed(message: error.cardFormMessage, field: CardField.number.rawValue)))
            }
        }
    }

    /// The provider kept the card: save it, and resume the checkout that asked for it.
    static func vaulted(_ state: inout AppState, _ card: PaymentMethod, _ env: ShopEnvironment) -> Effect {
        do {
            try env.dependencies.accounts.wallets.addCard(card, forCustomer: state.customerID, makeDefault: state.wallet.cards.isEmpty)
        } catch {
            FormFeature.failed(&state, "The card could not be saved: \(error)", field: nil)
            return .none
        }
        FormFeature.close(&state)
        AccountFeature.reloadWallet(&state, env)
        state.notice = Notice(.info, "Saved \(card.shortName).")
        if case .entry = state.sheetAwaits { return SheetEntryFeature.added(card: card, &state, env) }
        guard case .cardToStart(let pending) = state.sheetAwaits, state.screen == .paymentSheet else { return .none }
        // "Set up card" came from the sheet: start that checkout again with the new card.
        state.sheetAwaits = nil
        state.paymentSheet = nil
        AppReducer.popScreen(&state)
        return CheckoutFeature.begin(&state, pending, oneTap: false, env)
    }

    /// A card that succeeds, where no real money moves; nothing in live mode.
    private static func testCardHint(_ mode: PaymentMode) -> String {
        switch mode {
        case .sandbox: "Sandbox: 4242 4242 4242 4242 succeeds"
        case .test: "Test mode: 4242 4242 4242 4242 succeeds"
        case .live: ""
        }
    }

    /// This month in UTC, for card expiry.
    private static func currentMonth(_ env: ShopEnvironment) -> CardExpiry {
        let now = UTCTime(env.dependencies.accounts.dates.now())
        return CardExpiry(month: now.month, year: now.year)
    }
}

extension PaymentProviderError {
    /// The words for a card the provider would not keep, shown on the number field.
    var cardFormMessage: String {
        switch self {
        case .cardRejected(let reason): reason.message
        case .cardRefused(let why): why
        case .unavailable(let why): "The payment provider is unavailable (\(why)); your card was not saved."
        }
    }
}
