import ShopModels
import ShopPorts

/// The checkout's answers: what the payment sheet's session, the wallet check and the catalog said, and how a
/// sheet closed without a payment ends.
extension CheckoutFeature {
    /// What the session answered.
    static func reduce(_ state: inout State, _ action: CheckoutAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .presented(nil):
            state.checkout = nil
            state.shell.notice = Notice(.error, CheckoutMessages.message(for: .unableToInitialize))
        case .presented(let options?):
            guard var checkout = state.checkout else { return .none }
            checkout.options = options
            checkout.card = options.selectedPaymentMethod
            checkout.shipTo = options.selectedContact
            checkout.contact = options.selectedContact
            state.checkout = checkout
            let summary = CheckoutSheet.summaryItems(lines: checkout.order.lines, shipping: checkout.shippingMethod, env.shopProfile)
            openSheet(&state, PaymentSheetState(merchantName: env.shopProfile.name, rowValues: [:], summaryItems: summary, phase: .reviewing))
            if let contact = options.selectedContact {
                // As Apple's sheet does, the preselected contact is checked before anything can be paid.
                CheckoutSheet.setRowErrors(&state, CheckoutSheet.contactErrors(for: contact, env.shopProfile))
            }
            CheckoutSheet.refreshRows(&state)
            if checkout.oneTap { requestAuthorization(&state, env) }
        case .summaryUpdated(let items):
            state.sheet?.summaryItems = items
            CheckoutSheet.refreshRows(&state)
        case .contactChecked(let update):
            CheckoutSheet.setRowErrors(&state, update.errors)
            state.sheet?.summaryItems = update.summaryItems
            CheckoutSheet.refreshRows(&state)
        case .processingStarted:
            state.sheet?.phase = .processing
        case .bankCheckShown(let url, let code):
            state.sheet?.phase = .checkingWithBank(BankCheck(url: url, qrCode: code))
        case .checkingPayment:
            state.sheet?.phase = .checkingPayment(isStopping: false)
        case .finished(.paid(let confirmation)):
            guard let checkout = state.checkout else { return .none }
            state.checkout = nil
            state.sheet = nil
            state.confirmation = confirmation
            state.shell.route = [.productList, .confirmation]
            let sessions = env.sessions
            let close = Effect.run { _ in
                await sessions.payment(checkout.sessionID)?.closeAfterPayment()
                sessions.endPayment(checkout.sessionID)
            }
            return checkout.order.clearsCartOnSuccess ? .send(.request(.emptyCart)) + close : close
        case .finished(.notPaid(let why)):
            state.sheet?.phase = .reviewing
            state.sheet?.failure = why
            CheckoutSheet.refreshRows(&state)
        case .sheetClosed(let didAuthorize):
            return sheetClosed(&state, didAuthorize: didAuthorize, env)
        case .walletChecked(let order, let oneTap, let canPay, let noticeBefore, let openOrders):
            state.isCheckingWallet = false
            if let held = heldByOpenOrders(&state, openOrders) { return held }
            return walletChecked(&state, order, oneTap: oneTap, canPay: canPay, noticeBefore: noticeBefore, env)
        case .productForOneTap(let product):
            return buyNow(&state, product, env)
        }
        return .none
    }

    /// The sheet closed without a successful payment (success ends in `.finished(.paid)`).
    ///
    /// Never authorized: the screen below gets back the status it had before checkout. Authorized and
    /// failed: that screen says the order was not paid and why, so the outcome outlives the sheet.
    private static func sheetClosed(_ state: inout State, didAuthorize: Bool, _ env: ShopEnvironment) -> Effect {
        guard let checkout = state.checkout else { return .none }
        let lastStatus = state.sheet?.status
        state.checkout = nil
        state.sheet = nil
        if state.shell.screen == .paymentSheet { state.shell.popScreen() }
        state.shell.notice =
            didAuthorize
            ? Notice(.error, "Not paid: \(lastStatus ?? "the payment did not go through.") Your cart is kept.")
            : checkout.noticeBeforeCheckout
        let sessions = env.sessions
        return .run { _ in sessions.endPayment(checkout.sessionID) }
    }
}
