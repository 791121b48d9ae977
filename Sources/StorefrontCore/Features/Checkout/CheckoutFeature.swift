import StoreClients
import StoreModels

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
    case finished(CheckoutOutcome)
    /// The sheet closed without a payment; whether one was authorized on it decides what is said.
    case sheetClosed(didAuthorize: Bool)
    /// The wallet was checked for a card on the shop's networks, for a checkout of `order` begun
    /// while the shopper saw `noticeBefore` (closing the sheet unpaid gives it back).
    case walletChecked(CheckoutOrder, oneTap: Bool, canPay: Bool, noticeBefore: Notice?)
    /// The product One-Tap buys, read fresh (nil: no longer sold).
    case productForOneTap(Product?)
}

/// The checkout: opening the payment sheet, its rows and choosers, Pay, and how it ends.
@MainActor
enum CheckoutFeature {
    /// Opens the payment sheet for `order`.
    ///
    /// Order of calls: canMakePayments → canMakePaymentsUsingNetworks, in an effect, as it reads the
    /// wallet (false: offer card setup) → makeController (nil: unable to initialize) → present → the
    /// shopper picks and pays.
    static func begin(_ state: inout AppState, _ order: CheckoutOrder, oneTap: Bool, _ env: ShopEnvironment) -> Effect {
        guard !order.lines.isEmpty else {
            state.notice = Notice(.info, "Your cart is empty. Press s to shop.")
            return .none
        }
        let auth = env.dependencies.paymentAuthorization
        guard auth.canMakePayments() else {
            state.notice = Notice(.error, "Payments are not available on this device.")
            return .none
        }
        guard let (_, request) = paymentRequest(for: order, oneTap: oneTap, env.storeProfile) else {
            state.notice = Notice(.error, "This shop has no shipping methods.")
            return .none
        }
        state.isCheckingWallet = true
        let networks = request.supportedNetworks
        let noticeBefore = state.noticeBeforeAction
        return .run { send in
            let canPay = await auth.canMakePaymentsUsingNetworks(networks)
            send(.checkout(.walletChecked(order, oneTap: oneTap, canPay: canPay, noticeBefore: noticeBefore)))
        }
    }

    /// The shipping method a checkout starts with (the cheapest for One-Tap) and its payment request; nil without shipping methods.
    private static func paymentRequest(for order: CheckoutOrder, oneTap: Bool, _ shop: StoreProfile) -> (ShippingMethod, PaymentRequest)? {
        let subtotal = order.lines.subtotal(in: shop.currency)
        let shipping = oneTap
            ? shop.shippingMethods.min { $0.cost(forSubtotal: subtotal).minorUnits < $1.cost(forSubtotal: subtotal).minorUnits }
            : shop.shippingMethods.first
        guard let shipping else { return nil }
        return (shipping, CheckoutSheet.paymentRequest(lines: order.lines, shipping: shipping, shop))
    }

    /// The wallet answered: the sheet offers card setup, or a fresh controller presents it.
    private static func walletChecked(_ state: inout AppState, _ order: CheckoutOrder, oneTap: Bool, canPay: Bool, noticeBefore: Notice?, _ env: ShopEnvironment) -> Effect {
        state.isCheckingWallet = false
        let shop = env.storeProfile
        guard let (shipping, request) = paymentRequest(for: order, oneTap: oneTap, shop) else { return .none }
        guard canPay else {
            state.sheetAwaits = .cardToStart(order)
            let networks = shop.supportedNetworks.map(\.displayName).joined(separator: ", ")
            openSheet(&state, PaymentSheetState(
                merchantName: shop.name, rowValues: [.card: "No card on \(networks)"], summaryItems: request.summaryItems, phase: .needsCard
            ))
            state.notice = Notice(.error, CheckoutMessages.message(for: .networksNotSupported))
            return .none
        }
        guard let controller = env.dependencies.paymentAuthorization.makeController(request) else {
            state.notice = Notice(.error, CheckoutMessages.message(for: .unableToInitialize))
            return .none
        }
        let session = PaymentSession(controller: controller, order: order, shippingMethod: shipping, customerID: state.customerID, env)
        state.checkout = Checkout(session: session, order: order, oneTap: oneTap, shippingMethod: shipping, noticeBeforeCheckout: noticeBefore)
        return .run { send in send(.checkout(.presented(await session.present()))) }
    }

    /// One-Tap's destination: the sheet with the defaults, straight to the authorization prompt.
    static func navigate(_ state: inout AppState, to destination: Destination, _ env: ShopEnvironment) -> Effect {
        switch destination {
        case .oneTapCheckout(.cart):
            return begin(&state, CheckoutOrder(lines: state.cart.lines, clearsCartOnSuccess: true), oneTap: true, env)
        case .oneTapCheckout(.product(let id)):
            let catalog = env.dependencies.catalog
            state.isCheckingWallet = true
            return .run { send in send(.checkout(.productForOneTap((try? await catalog.product(id: id)) ?? nil))) }
        }
    }

    /// The product One-Tap buys, as the catalog has it now.
    private static func buyNow(_ state: inout AppState, _ product: Product?, _ env: ShopEnvironment) -> Effect {
        state.isCheckingWallet = false
        guard let product else {
            state.notice = Notice(.error, "That product is no longer sold.")
            return .none
        }
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        return begin(&state, CheckoutOrder(lines: [line], clearsCartOnSuccess: false), oneTap: true, env)
    }

    /// A key on the sheet, by phase.
    static func reduceKey(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard var sheet = state.paymentSheet else { return .none }
        switch sheet.phase {
        case .authorizing, .processing:
            return .none
        case .confirming:
            switch action {
            case .confirm: return confirm(&state)
            case .back:
                state.paymentSheet?.phase = .reviewing
                CheckoutSheet.refreshRows(&state)
            default: break
            }
            return .none
        case .choosing(var chooser):
            switch action {
            case .moveUp, .moveDown:
                chooser.selectedIndex = ListSelection.moved(chooser.selectedIndex, by: action, count: chooser.rowCount) ?? chooser.selectedIndex
                state.paymentSheet?.phase = .choosing(chooser)
            case .back:
                state.paymentSheet?.phase = .reviewing
            case .confirm:
                state.paymentSheet?.phase = .reviewing
                if chooser.isOnAddRow {
                    SheetEntryFeature.openForm(&state, for: chooser.row, env)
                    return .none
                }
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
                if sheet.offersCardSetup {
                    FormFeature.open(CardForm.make(state, env), in: &state)
                    return .none
                }
                if let checkout = state.checkout {
                    let chooser = CheckoutSheet.chooser(for: sheet.selectedRow, checkout, env.storeProfile)
                    // Nothing to choose from: straight to the form that adds one.
                    guard !chooser.options.isEmpty || chooser.addTitle == nil else {
                        state.paymentSheet = sheet
                        SheetEntryFeature.openForm(&state, for: sheet.selectedRow, env)
                        return .none
                    }
                    sheet.phase = .choosing(chooser)
                }
            case .pay:
                requestAuthorization(&state)
                return .none
            case .back:
                return dismiss(&state)
            default: break
            }
            state.paymentSheet = sheet
            return .none
        }
    }

    /// What the session answered.
    static func reduce(_ state: inout AppState, _ action: CheckoutAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .presented(nil):
            state.checkout = nil
            state.notice = Notice(.error, CheckoutMessages.message(for: .unableToInitialize))
        case .presented(let options?):
            guard var checkout = state.checkout else { return .none }
            checkout.options = options
            checkout.card = options.selectedPaymentMethod
            checkout.shipTo = options.selectedContact
            checkout.contact = options.selectedContact
            state.checkout = checkout
            let summary = CheckoutSheet.summaryItems(lines: checkout.order.lines, shipping: checkout.shippingMethod, env.storeProfile)
            openSheet(&state, PaymentSheetState(merchantName: env.storeProfile.name, rowValues: [:], summaryItems: summary, phase: .reviewing))
            if let contact = options.selectedContact {
                // As Apple's sheet does, the preselected contact is checked before anything can be paid.
                CheckoutSheet.setRowErrors(&state, CheckoutSheet.contactErrors(for: contact, env.storeProfile))
            }
            CheckoutSheet.refreshRows(&state)
            if checkout.oneTap { requestAuthorization(&state) }
        case .summaryUpdated(let items):
            state.paymentSheet?.summaryItems = items
            CheckoutSheet.refreshRows(&state)
        case .contactChecked(let update):
            CheckoutSheet.setRowErrors(&state, update.errors)
            state.paymentSheet?.summaryItems = update.summaryItems
            CheckoutSheet.refreshRows(&state)
        case .processingStarted:
            state.paymentSheet?.phase = .processing
        case .finished(.paid(let confirmation)):
            guard let checkout = state.checkout else { return .none }
            if checkout.order.clearsCartOnSuccess {
                state.cart.removeAll()
                CartFeature.showCart(&state, env)
            }
            state.checkout = nil
            state.paymentSheet = nil
            state.confirmation = confirmation
            state.route = [.productList, .confirmation]
            return .run { _ in await checkout.session.closeAfterPayment() }
        case .finished(.notPaid(let why)):
            state.paymentSheet?.phase = .reviewing
            state.paymentSheet?.failure = why
            CheckoutSheet.refreshRows(&state)
        case .sheetClosed(let didAuthorize):
            sheetClosed(&state, didAuthorize: didAuthorize)
        case .walletChecked(let order, let oneTap, let canPay, let noticeBefore):
            return walletChecked(&state, order, oneTap: oneTap, canPay: canPay, noticeBefore: noticeBefore, env)
        case .productForOneTap(let product):
            return buyNow(&state, product, env)
        }
        return .none
    }

    private static func openSheet(_ state: inout AppState, _ sheet: PaymentSheetState) {
        state.paymentSheet = sheet
        if state.screen != .paymentSheet { state.route.append(.paymentSheet) }
    }

    /// Applies a choice from a chooser: the session reports it to the controller, whose answer updates the sheet.
    static func choose(_ state: inout AppState, row: PaymentSheetRow, index: Int, _ env: ShopEnvironment) -> Effect {
        guard var checkout = state.checkout else { return .none }
        let session = checkout.session
        switch row {
        case .card:
            guard let method = checkout.options.paymentMethods[safe: index] else { return .none }
            checkout.card = method
            state.checkout = checkout
            CheckoutSheet.refreshRows(&state)
            return .run { send in send(.checkout(.summaryUpdated(await session.select(method).summaryItems))) }
        case .shippingMethod:
            guard let method = env.storeProfile.shippingMethods[safe: index] else { return .none }
            checkout.shippingMethod = method
            state.checkout = checkout
            CheckoutSheet.refreshRows(&state)
            return .run { send in send(.checkout(.summaryUpdated(await session.select(method).summaryItems))) }
        case .shippingAddress, .contact:
            guard let picked = checkout.options.contacts[safe: index] else { return .none }
            if row == .shippingAddress { checkout.shipTo = picked } else { checkout.contact = picked }
            state.checkout = checkout
            CheckoutSheet.refreshRows(&state)
            guard let contact = checkout.shippingContact else { return .none }
            return .run { send in send(.checkout(.contactChecked(await session.select(contact)))) }
        }
    }

    /// Pay: "Authorizing…" and the confirmation prompt; Enter confirms, Esc cancels.
    private static func requestAuthorization(_ state: inout AppState) {
        guard let sheet = state.paymentSheet, sheet.isPayEnabled, let total = sheet.summaryItems.last else {
            if state.paymentSheet?.offersCardSetup == true {
                state.notice = Notice(.error, CheckoutMessages.message(for: .networksNotSupported))
            } else if let attention = state.paymentSheet?.attention {
                // As Apple's sheet marks a field in red: the cursor goes to the first row that needs attention.
                state.paymentSheet?.selectedRow = attention.row
                state.paymentSheet?.markedRow = attention.row
                state.notice = Notice(.error, attention.reason)
            }
            return
        }
        state.paymentSheet?.phase = .confirming(prompt: "Pay \(total.label) \(total.amount.formatted)? Enter to confirm, Esc to cancel")
    }

    private static func confirm(_ state: inout AppState) -> Effect {
        guard let session = state.checkout?.session else { return .none }
        state.paymentSheet?.phase = .authorizing
        return .run { send in send(.checkout(.finished(await session.authorize()))) }
    }

    /// Esc on the sheet: the session closes it, and `.sheetClosed` follows.
    private static func dismiss(_ state: inout AppState) -> Effect {
        guard let session = state.checkout?.session else {
            // The "Set up card" sheet: leaving it drops the checkout it was waiting to resume.
            state.sheetAwaits = nil
            state.paymentSheet = nil
            AppReducer.popScreen(&state)
            return .none
        }
        return .run { _ in await session.close() }
    }

    /// The sheet closed without a successful payment (success ends in `.finished(.paid)`).
    ///
    /// Never authorized: the screen below gets back the status it had before checkout. Authorized and
    /// failed: that screen says the order was not paid and why, so the outcome outlives the sheet.
    private static func sheetClosed(_ state: inout AppState, didAuthorize: Bool) {
        guard let checkout = state.checkout else { return }
        let lastStatus = state.paymentSheet?.status
        state.checkout = nil
        state.paymentSheet = nil
        if state.screen == .paymentSheet { AppReducer.popScreen(&state) }
        state.notice = didAuthorize
            ? Notice(.error, "Not paid: \(lastStatus ?? "the payment did not go through.") Your cart is kept.")
            : checkout.noticeBeforeCheckout
    }
}
