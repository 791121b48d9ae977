import ShopModels
import ShopPorts

/// The checkout's answers: what the controller presented, how the charge went, and what the wallet check and the
/// catalog said.
extension CheckoutFeature {
    /// What an effect answered.
    static func reduce(_ state: inout State, _ action: CheckoutAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): return Action(key).map { reduceKey(&state, $0, env) } ?? .none
        case .navigate(let destination): return navigate(&state, to: destination, env)
        case .begin(let order): return begin(&state, order, oneTap: false, env)
        case .entryAdded(.card(let card)): return entryAdded(card: card, &state, env)
        case .entryAdded(.address(let contact)): return entryAdded(contact: contact, &state, env)
        case .entryCanceled(let purpose): entryCanceled(purpose, &state)
        case .applyDiscountCode(let typed): return submitDiscountCode(&state, typed, env)
        case .delegate: return .none
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
            var sheet = PaymentSheetState(merchantName: env.shopProfile.name, rowValues: [:], summaryItems: [], phase: .reviewing)
            if checkout.order.subscription != nil { sheet.rows = PaymentSheetRow.subscribing }
            openSheet(&state, sheet)
            let env = CheckoutSheet.followShipTo(&state, env)
            CheckoutSheet.recompute(&state, env.shopProfile)
            CheckoutSheet.shippingContactChanged(&state, env.shopProfile)
            CheckoutSheet.refreshRows(&state, env)
            if checkout.oneTap { requestAuthorization(&state, env) }
        case .processingStarted:
            state.sheet?.phase = .processing
        case .bankCheckShown(let url, let code):
            state.sheet?.phase = .checkingWithBank(BankCheck(url: url, qrCode: code))
        case .checkingPayment:
            state.sheet?.phase = .checkingPayment(isStopping: false)
        case .finished(.paid(let confirmation), _):
            guard let checkout = state.checkout else { return .none }
            state.checkout = nil
            state.sheet = nil
            state.confirmation = confirmation
            state.shell.route = [.productList, .confirmation]
            return checkout.order.clearsCartOnSuccess ? .send(.checkout(.delegate(.emptyCart))) : .none
        case .finished(.repriced(let lines, let why), _):
            // Nothing was charged: the sheet shows today's prices and the buyer confirms again.
            guard let checkout = state.checkout else { return .none }
            state.checkout?.order.lines = lines
            state.checkout?.attempt = nil
            state.sheet?.phase = .reviewing
            state.sheet?.failure = .lookup(why)
            let env = CheckoutSheet.followShipTo(&state, env)
            CheckoutSheet.shippingContactChanged(&state, env.shopProfile)
            CheckoutSheet.recompute(&state, env.shopProfile)
            CheckoutSheet.refreshRows(&state, env)
            return checkout.order.clearsCartOnSuccess ? .send(.checkout(.delegate(.repriceCart(lines)))) : .none
        case .finished(.notPaid(let why), let attempt):
            state.checkout?.attempt = attempt
            state.sheet?.phase = .reviewing
            state.sheet?.failure = why
            CheckoutSheet.refreshRows(&state, env)
        case .walletChecked(let order, let oneTap, let canPay, let noticeBefore, let openOrders):
            state.isCheckingWallet = false
            if let held = heldByOpenOrders(&state, openOrders) { return held }
            return walletChecked(&state, order, oneTap: oneTap, canPay: canPay, noticeBefore: noticeBefore, env)
        case .productForOneTap(let product):
            return buyNow(&state, product, env)
        case .discountChecked(let answer):
            return discountChecked(&state, answer, env)
        }
        return .none
    }
}
