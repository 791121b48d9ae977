import ShopModels
import ShopPorts

/// What the payment sheet's session answers with.
public enum CheckoutAction: Equatable, Sendable {
    /// The sheet is up with these options, or could not be shown (nil).
    case presented(PaymentSheetOptions?)
    /// The controller's answer to a new card or shipping method.
    case summaryUpdated([SummaryItem])
    /// The controller's answer to a new address or contact: new totals, or what is wrong with it.
    case contactChecked(ShippingContactUpdate)
    /// The payment was authorized and the order is being placed.
    case processingStarted
    /// The card's bank wants the shopper to pass its check at this address before it charges; with its QR code.
    case bankCheckShown(String, QRCode?)
    /// A charge went unanswered: the shop asks the provider again, backing off, whether it went through.
    case checkingPayment
    case finished(CheckoutOutcome)
    /// The sheet closed without a payment; whether one was authorized on it decides what is said.
    case sheetClosed(didAuthorize: Bool)
    /// The customer's unanswered orders were settled and the wallet checked for a card on the shop's networks, for
    /// a checkout of `order` begun while the shopper saw `noticeBefore` (closing the sheet unpaid gives it back).
    case walletChecked(
        CheckoutOrder, oneTap: Bool, canPay: Bool, noticeBefore: Notice?,
        openOrders: Result<OpenOrderCheck, MerchantBackendError> = .success(.nothingOpen)
    )
    /// The product One-Tap buys, read fresh (nil: no longer sold).
    case productForOneTap(Product?)
}

/// The checkout: the payment sheet's rows and choosers, Pay, and how it ends. Opening it is in `CheckoutFeature+Begin`.
@MainActor
enum CheckoutFeature {
    /// What the checkout reduces: the sheet, its session and choices, what it waits for from a form, the
    /// confirmation it ends on, and the shell; with what it reads of the shopper.
    struct State: Equatable {
        var sheet: PaymentSheetState?
        var checkout: Checkout?
        var sheetAwaits: SheetAwaits?
        var isCheckingWallet: Bool
        /// The id the next payment sheet or sign-in session is filed under.
        var nextSessionID: Int
        var confirmation: ConfirmationState?
        var shell: Shell
        /// What the shopper saw before the action being handled; a checkout closed unpaid gives it back.
        let noticeBeforeAction: Notice?
        let cartLines: [CartLine]
        let customerID: String
        let profile: AccountProfile?
    }

    /// A key on the sheet, by phase.
    static func reduceKey(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard var sheet = state.sheet else { return .none }
        switch sheet.phase {
        case .authorizing, .processing:
            return .none
        case .checkingWithBank(var check):
            guard action == .back, !check.isCanceling, let id = state.checkout?.sessionID else { return .none }
            // Esc: the charge waiting for the bank is given up; the outcome comes back as `.finished`.
            check.isCanceling = true
            state.sheet?.phase = .checkingWithBank(check)
            let sessions = env.sessions
            return .run { _ in sessions.payment(id)?.stopWaiting() }
        case .checkingPayment(let isStopping):
            guard action == .back, !isStopping, let id = state.checkout?.sessionID else { return .none }
            // Esc: the shop stops asking; the order stays "being checked", and the next Pay settles it first.
            state.sheet?.phase = .checkingPayment(isStopping: true)
            let sessions = env.sessions
            return .run { _ in sessions.payment(id)?.stopWaiting() }
        case .confirming:
            switch action {
            case .confirm: return confirm(&state, env)
            case .back:
                state.sheet?.phase = .reviewing
                CheckoutSheet.refreshRows(&state)
            default: break
            }
            return .none
        case .choosing(var chooser):
            switch action {
            case .moveUp, .moveDown:
                chooser.selectedIndex = ListSelection.moved(chooser.selectedIndex, by: action, count: chooser.rowCount) ?? chooser.selectedIndex
                state.sheet?.phase = .choosing(chooser)
            case .back:
                state.sheet?.phase = .reviewing
            case .confirm:
                state.sheet?.phase = .reviewing
                if chooser.isOnAddRow { return openEntryForm(&state, for: chooser.row, env) }
                return choose(&state, row: chooser.row, index: chooser.selectedIndex, env)
            default: break
            }
            return .none
        case .reviewing, .needsCard:
            let rows = PaymentSheetRow.allCases
            switch action {
            case .moveUp: sheet.selectedRow = rows[ListSelection.clamped(sheet.selectedRow.rawValue - 1, count: rows.count)]
            case .moveDown: sheet.selectedRow = rows[ListSelection.clamped(sheet.selectedRow.rawValue + 1, count: rows.count)]
            case .confirm:
                if sheet.offersCardSetup { return .send(.request(.addCard)) }
                if let checkout = state.checkout {
                    let chooser = CheckoutSheet.chooser(for: sheet.selectedRow, checkout, env.shopProfile)
                    // Nothing to choose from: straight to the form that adds one.
                    guard !chooser.options.isEmpty || chooser.addTitle == nil else {
                        state.sheet = sheet
                        return openEntryForm(&state, for: sheet.selectedRow, env)
                    }
                    sheet.phase = .choosing(chooser)
                }
            case .pay:
                requestAuthorization(&state, env)
                return .none
            case .back:
                return dismiss(&state, env)
            default: break
            }
            state.sheet = sheet
            return .none
        }
    }

    static func openSheet(_ state: inout State, _ sheet: PaymentSheetState) {
        state.sheet = sheet
        if state.shell.screen != .paymentSheet { state.shell.push(.paymentSheet) }
    }

    /// Applies a choice from a chooser: the session reports it to the controller, whose answer updates the sheet.
    static func choose(_ state: inout State, row: PaymentSheetRow, index: Int, _ env: ShopEnvironment) -> Effect {
        guard var checkout = state.checkout else { return .none }
        let (sessions, id) = (env.sessions, checkout.sessionID)
        switch row {
        case .card:
            guard let method = checkout.options.paymentMethods[safe: index] else { return .none }
            checkout.card = method
            state.checkout = checkout
            CheckoutSheet.refreshRows(&state)
            return .run { send in
                guard let update = await sessions.payment(id)?.select(method) else { return }
                send(.checkout(.summaryUpdated(update.summaryItems)))
            }
        case .shippingMethod:
            guard let method = env.shopProfile.shippingMethods[safe: index] else { return .none }
            checkout.shippingMethod = method
            state.checkout = checkout
            CheckoutSheet.refreshRows(&state)
            return .run { send in
                guard let update = await sessions.payment(id)?.select(method) else { return }
                send(.checkout(.summaryUpdated(update.summaryItems)))
            }
        case .shippingAddress, .contact:
            guard let picked = checkout.options.contacts[safe: index] else { return .none }
            if row == .shippingAddress { checkout.shipTo = picked } else { checkout.contact = picked }
            state.checkout = checkout
            CheckoutSheet.refreshRows(&state)
            guard let contact = checkout.shippingContact else { return .none }
            return .run { send in
                guard let update = await sessions.payment(id)?.select(contact) else { return }
                send(.checkout(.contactChecked(update)))
            }
        }
    }

    /// Pay: "Authorizing…" and the confirmation prompt; Enter confirms, Esc cancels.
    static func requestAuthorization(_ state: inout State, _ env: ShopEnvironment) {
        guard let sheet = state.sheet, sheet.isPayEnabled, let total = sheet.summaryItems.last else {
            if state.sheet?.offersCardSetup == true {
                state.shell.notice = Notice(.error, CheckoutMessages.message(for: .networksNotSupported))
            } else if let attention = state.sheet?.attention {
                // As Apple's sheet marks a field in red: the cursor goes to the first row that needs attention.
                state.sheet?.selectedRow = attention.row
                state.sheet?.markedRow = attention.row
                state.shell.notice = Notice(.error, attention.reason)
            }
            return
        }
        // The provider's own rules (its smallest charge) are checked here, before anything is sent.
        if let refusal = env.dependencies.paymentProvider.chargeRefusal(total.amount) {
            state.sheet?.failure = refusal
            state.shell.notice = Notice(.error, refusal)
            return
        }
        state.sheet?.phase = .confirming(prompt: "Pay \(total.label) \(total.amount.formatted)? Enter to confirm, Esc to cancel")
    }

    private static func confirm(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let id = state.checkout?.sessionID else { return .none }
        state.sheet?.phase = .authorizing
        let sessions = env.sessions
        let codes = env.dependencies.qrCodes
        return .run { send in
            guard
                let outcome = await sessions.payment(id)?.authorize(
                    processing: { send(.checkout(.processingStarted)) },
                    bankCheck: { url in send(.checkout(.bankCheckShown(url, codes.qrCode(for: url)))) },
                    checking: { send(.checkout(.checkingPayment)) }
                )
            else { return }
            send(.checkout(.finished(outcome)))
        }
    }

    /// Esc on the sheet: the session closes it, and `.sheetClosed` follows.
    static func dismiss(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let id = state.checkout?.sessionID else {
            // The "Set up card" sheet: leaving it drops the checkout it was waiting to resume.
            state.sheetAwaits = nil
            state.sheet = nil
            state.shell.popScreen()
            return .none
        }
        let sessions = env.sessions
        return .run { send in
            guard let didAuthorize = await sessions.payment(id)?.close() else { return }
            send(.checkout(.sheetClosed(didAuthorize: didAuthorize)))
        }
    }

}
