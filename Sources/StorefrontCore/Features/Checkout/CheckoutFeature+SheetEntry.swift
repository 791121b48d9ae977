import ShopModels
import ShopPorts

/// Adding a card, an address or a contact from the open payment sheet: the chooser's "Add a new …"
/// row (or an empty chooser) opens the form, and what it saves is chosen on the sheet.
///
/// Order of calls: `openEntryForm` → the form saves to the wallet → `entryAdded(card:)` or `entryAdded(contact:)`
/// → `choose`, whose answer from the controller updates the sheet.
extension CheckoutFeature {
    /// Opens the form that adds an entry for `row`, saying what the sheet lacks when it lacks it.
    static func openEntryForm(_ state: inout State, for row: PaymentSheetRow, _ env: ShopEnvironment) -> Effect {
        let effect: Effect
        switch row {
        case .card:
            effect = .send(.checkout(.delegate(.addCard)))
        case .shippingAddress, .contact:
            state.shell.presentForm(AddressForm.make(profile: state.profile, env))
            effect = .none
        case .shippingMethod, .discountCode, .schedule, .items:
            return .none
        }
        state.sheetAwaits = .entry(row)
        if state.sheet?.unchosenRows.contains(row) == true {
            state.shell.notice = Notice(.info, row == .card ? "No card yet: add one to pay with." : "No address yet: add one to ship to.")
        }
        return effect
    }

    /// A card was saved while the sheet waited for one: offer it on the sheet and choose it; or, when "Set up card"
    /// asked for it, start that checkout again with the new card.
    static func entryAdded(card: PaymentMethod, _ state: inout State, _ env: ShopEnvironment) -> Effect {
        if case .cardToStart(let pending) = state.sheetAwaits, state.shell.screen == .paymentSheet {
            state.sheetAwaits = nil
            state.sheet = nil
            state.shell.popScreen()
            return .send(.checkout(.begin(pending)))
        }
        guard state.sheetAwaits == .entry(.card), var checkout = state.checkout else { return .none }
        state.sheetAwaits = nil
        if !checkout.options.paymentMethods.contains(where: { $0.id == card.id }) { checkout.options.paymentMethods.append(card) }
        state.checkout = checkout
        return choose(&state, row: .card, index: checkout.options.paymentMethods.firstIndex { $0.id == card.id } ?? 0, env)
    }

    /// An address was saved while the sheet waited for one: offer it and choose it for the row that asked. An address
    /// typed for Ship to is the contact too: its form asks for the email that gets the receipt, so that is the one the
    /// receipt goes to, as the API sends it to the address's email.
    static func entryAdded(contact: Contact, _ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard case .entry(let row) = state.sheetAwaits, row == .shippingAddress || row == .contact, var checkout = state.checkout else {
            return .none
        }
        state.sheetAwaits = nil
        checkout.options.contacts.append(contact)
        if row == .shippingAddress || checkout.shipTo == nil { checkout.shipTo = contact }
        checkout.contact = contact
        state.checkout = checkout
        return choose(&state, row: row, index: checkout.options.contacts.count - 1, env)
    }

    /// A form for a new card or address was left: a sheet waiting for its entry stops waiting, and says so.
    static func entryCanceled(_ purpose: FormState.Purpose, _ state: inout State) {
        let fromSheet = state.sheetAwaits != nil
        if case .entry = state.sheetAwaits { state.sheetAwaits = nil }
        guard fromSheet, state.shell.screen == .paymentSheet else { return }
        state.shell.notice = Notice(.info, purpose == .addCard ? "No card was added." : "No address was added.")
    }
}
