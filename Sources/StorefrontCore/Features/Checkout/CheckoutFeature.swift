import ShopApplication
import ShopLanguages
import ShopModels
import ShopPorts

/// What the checkout's effects answer with: the controller that presented the sheet, and the charge.
/// Checkout's actions: the sheet's keys, One-Tap's destinations, what the app hands it, its effects' answers, and what
/// it asks of the others.
public enum CheckoutAction: KeyedFeatureAction {
    case key(Action)
    /// One-Tap asked its navigator for a destination.
    case navigate(Destination)
    /// Put `order` on the payment sheet.
    case begin(CheckoutOrder)
    /// A form or the card page saved this to the wallet; a sheet waiting for it takes it.
    case entryAdded(WalletEntry)
    /// A form for a new card or address was left unsaved; a sheet waiting for it stops waiting.
    case entryCanceled(FormState.Purpose)
    /// The discount code typed on the sheet's field; empty takes the code off.
    case applyDiscountCode(String)
    /// The sheet is up with these options, or could not be shown (nil).
    case presented(PaymentSheetOptions?)
    /// The payment was authorized and the order is being placed.
    case processingStarted
    /// The card's bank wants the shopper to pass its check at this address before it charges; with its QR code.
    case bankCheckShown(String, QRCode?)
    /// A charge went unanswered: the shop asks the provider again, backing off, whether it went through.
    case checkingPayment
    /// The charge ended; a charge left unfinished (unanswered, or with the bank) is kept for the next Pay.
    case finished(CheckoutOutcome, keeping: ChargeAttempt? = nil)
    /// The customer's unanswered orders were settled and the wallet checked for a card on the shop's networks, for
    /// a checkout of `order` begun while the shopper saw `noticeBefore` (closing the sheet unpaid gives it back).
    case walletChecked(
        CheckoutOrder, oneTap: Bool, canPay: Bool, noticeBefore: Notice?,
        openOrders: Result<OpenOrderCheck, MerchantBackendError> = .success(.nothingOpen)
    )
    /// The product One-Tap buys, read fresh (nil: no longer sold).
    case productForOneTap(Product?)
    /// The discount code typed on the sheet, as the shop has it (holding today, with a use left for this customer), or why not.
    case discountChecked(Result<DiscountCode, DiscountRefusal>)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        /// The cart was bought: empty it.
        case emptyCart
        /// The catalog sells these lines at other prices now: the cart takes them.
        case repriceCart([CartLine])
        /// These lines were bought in an earlier order that went unanswered: out of the cart with them.
        case removeBoughtLines([CartLine])
        /// Take a new card: the provider's page, or the card form.
        case addCard
    }

    public init?(_ action: AppAction) {
        guard case .checkout(let action) = action else { return nil }
        self = action
    }
}

/// The checkout: the payment sheet's rows and choosers, Pay, and how it ends. Opening it is in `CheckoutFeature+Begin`.
@MainActor
public enum CheckoutFeature {
    /// What checkout owns: the payment sheet, what it buys and offers, the charge, and the "Thank you" after it.
    public struct Owned: Equatable, Sendable {
        public var sheet: PaymentSheetState?
        /// The payment sheet's checkout: what it buys, what the sheet offers, the shopper's choices and the charge.
        public var checkout: Checkout?
        /// What the payment sheet waits for from a form it opened, and what to do with it.
        public var sheetAwaits: SheetAwaits?
        /// The wallet is being checked for a card the shop takes, before the payment sheet is made.
        public var isCheckingWallet = false
        /// Codes entered this session that are not the shop's: past `unknownCodeTries`, the field takes no more.
        public var unknownCodes = 0
        public var confirmation: ConfirmationState?

        public init() {}
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, CheckoutAction> { FeatureReducer(body: reduce) }

    /// The keys the payment sheet takes, in whichever phase.
    enum Action: FeatureKeys {
        /// Up, down, a page, Home or End: every list move, in a chooser as on the sheet's rows.
        case move(ListMove)
        case confirm, pay, back

        static let keys: [StorefrontCore.Action: Self] = ListMove.keys.mapValues(Self.move).merging([.confirm: .confirm, .pay: .pay, .back: .back]) {
            $1
        }
    }

    /// A key on the sheet, by phase.
    static func reduceKey(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard var sheet = state.sheet else { return .none }
        switch sheet.phase {
        case .authorizing, .processing:
            return .none
        case .checkingWithBank(var check):
            guard action == .back, !check.isCanceling else { return .none }
            // Esc: the charge waiting for the bank is given up; the outcome comes back as `.finished`.
            check.isCanceling = true
            state.sheet?.phase = .checkingWithBank(check)
            return .stop(.checkoutCharge)
        case .checkingPayment(let isStopping):
            guard action == .back, !isStopping else { return .none }
            // Esc: the shop stops asking; the order stays "being checked", and the next Pay settles it first.
            state.sheet?.phase = .checkingPayment(isStopping: true)
            return .stop(.checkoutCharge)
        case .confirming:
            switch action {
            case .confirm: return confirm(&state, env)
            case .back:
                state.sheet?.phase = .reviewing
                CheckoutSheet.refreshRows(&state, env)
            case .move, .pay: break
            }
            return .none
        case .choosing(var chooser):
            switch action {
            case .move(let move):
                chooser.selectedIndex = ListSelection.moved(chooser.selectedIndex, by: move, count: chooser.rowCount)
                state.sheet?.phase = .choosing(chooser)
            case .back:
                state.sheet?.phase = .reviewing
            case .confirm:
                state.sheet?.phase = .reviewing
                if chooser.isOnAddRow { return openEntryForm(&state, for: chooser.row, env) }
                return choose(&state, row: chooser.row, index: chooser.selectedIndex, env)
            case .pay: break
            }
            return .none
        case .reviewing, .needsCard:
            let rows = sheet.rows
            let at = rows.firstIndex(of: sheet.selectedRow) ?? 0
            switch action {
            case .move(let move): sheet.selectedRow = rows[ListSelection.moved(at, by: move, count: rows.count)]
            case .confirm:
                if sheet.offersCardSetup { return .send(.checkout(.delegate(.addCard))) }
                if sheet.selectedRow == .discountCode, state.checkout != nil {
                    state.sheet = sheet
                    openDiscountCodeForm(&state)
                    return .none
                }
                if let checkout = state.checkout {
                    let chooser = CheckoutSheet.chooser(for: sheet.selectedRow, checkout, env.shopProfile, items: sheet.items)
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
            }
            state.sheet = sheet
            return .none
        }
    }

    static func openSheet(_ state: inout State, _ sheet: PaymentSheetState) {
        state.sheet = sheet
        if state.shell.screen != .paymentSheet { state.shell.push(.paymentSheet) }
    }

    /// Applies a choice from a chooser; the summary and the contact's errors follow in the same frame.
    static func choose(_ state: inout State, row: PaymentSheetRow, index: Int, _ env: ShopEnvironment) -> Effect {
        guard var checkout = state.checkout else { return .none }
        let shop = env.shopProfile
        switch row {
        case .card:
            guard let method = checkout.options.paymentMethods[safe: index] else { return .none }
            checkout.card = method
        case .shippingMethod:
            guard let method = checkout.quote.methods[safe: index] else { return .none }
            checkout.shippingMethod = method
            state.checkout = checkout
            CheckoutSheet.recompute(&state, shop)
        case .schedule:
            guard let weeks = checkout.order.subscription?.offered[safe: index] else { return .none }
            checkout.order.subscription?.everyWeeks = weeks
        case .discountCode, .items:
            return .none
        case .shippingAddress, .contact:
            guard let picked = checkout.options.contacts[safe: index] else { return .none }
            if row == .shippingAddress { checkout.shipTo = picked } else { checkout.contact = picked }
            state.checkout = checkout
            let env = CheckoutSheet.followShipTo(&state, env)
            CheckoutSheet.shippingContactChanged(&state, env.shopProfile)
            CheckoutSheet.refreshRows(&state, env)
            return .none
        }
        state.checkout = checkout
        CheckoutSheet.refreshRows(&state, env)
        return .none
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
            state.sheet?.failure = .lookup(refusal)
            state.shell.notice = Notice(.error, .lookup(refusal))
            return
        }
        let prompt =
            state.checkout?.order.subscription.map {
                Localized(
                    "Pay \(total.label) \(total.amount) now and every \(RenewalSchedule.everyWords($0.everyWeeks)) until you cancel? Enter to confirm, Esc to cancel"
                )
            } ?? Localized("Pay \(total.label) \(total.amount)? Enter to confirm, Esc to cancel")
        state.sheet?.phase = .confirming(prompt: prompt)
    }

    /// Enter on the prompt: one effect places the order through the application's `PlaceOrder` and streams its
    /// progress back; Esc on a wait stops it (`.stop`), and its outcome still comes back as `.finished`.
    private static func confirm(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let checkout = state.checkout, let card = checkout.card, let contact = checkout.shippingContact else { return .none }
        state.sheet?.phase = .authorizing
        state.checkout?.didAuthorize = true
        let dependencies = env.dependencies
        let pay = Pay(
            placing: PlaceOrder(provider: dependencies.paymentProvider, backend: dependencies.merchantBackend), catalog: dependencies.catalog,
            ids: dependencies.ids, shop: env.shopProfile, order: checkout.order, discount: checkout.discount, exchange: checkout.exchange,
            language: state.shell.formats.tag, customerID: state.customerID,
            dates: dependencies.subscriptions?.dates)
        let clock = dependencies.clock
        let payment = Payment(
            method: card, methodData: dependencies.paymentAuthorization.paymentData(card), shippingContact: contact,
            shippingMethod: checkout.shippingMethod, transactionIdentifier: dependencies.ids.next())
        let codes = dependencies.qrCodes
        return .run(id: .checkoutCharge) { send, stops in
            send(.checkout(.processingStarted))
            let (outcome, attempt) = await pay.place(
                payment, after: checkout.attempt,
                progress: { step in
                    switch step {
                    case .bankCheck(let url): send(.checkout(.bankCheckShown(url, codes.qrCode(for: url))))
                    case .checking: send(.checkout(.checkingPayment))
                    }
                }, wait: { await stops.wait($0, on: clock) })
            send(.checkout(.finished(outcome, keeping: attempt)))
        }
    }

    /// Esc on the sheet: it closes. Never authorized, the screen below gets back the status it had before
    /// checkout; authorized and not paid, that screen says the order was not paid and why, so the outcome
    /// outlives the sheet.
    static func dismiss(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let checkout = state.checkout else {
            // The "Set up card" sheet: leaving it drops the checkout it was waiting to resume.
            state.sheetAwaits = nil
            state.sheet = nil
            state.shell.popScreen()
            return .none
        }
        let lastStatus = state.sheet?.status
        state.checkout = nil
        state.sheet = nil
        if state.shell.screen == .paymentSheet { state.shell.popScreen() }
        state.shell.notice =
            checkout.didAuthorize
            ? Notice(.error, "Not paid: \(lastStatus ?? "the payment did not go through.") Your cart is kept.")
            : checkout.noticeBeforeCheckout
        return .none
    }
}
