import StoreClients
import StoreModels

/// The whole shop as a pure Swift object: actions in, `StorefrontState` out through `onState`.
///
/// It never draws, never reads a global and never sleeps. Asynchronous work (the payment flow)
/// runs as tracked tasks whose results mutate state on the main actor; `settled()` waits for
/// all of them, which is how headless drivers know a key's effects are done.
@MainActor
public final class StorefrontViewModel {
    public internal(set) var state: StorefrontState
    private var published: StorefrontState
    private let onState: (StorefrontState) -> Void
    let dependencies: StorefrontDependencies
    let storeProfile: StoreProfile

    var cart: Cart
    private var listRowCapacity = 10
    private var checkout: CheckoutSession?
    /// Whose cart, wallet and orders these are: the signed-in account's, or the guest's.
    var customerID: String
    var account: SignedInAccount?
    /// The customer's saved cards and addresses, re-read after every change to them.
    var wallet = WalletContents()
    /// The sign-in in progress, kept alive until its delegate hears the outcome.
    var signInController: (any SignInAuthorizationControlling)?
    /// The nonce of the sign-in in progress; its identity token must carry it.
    var signInNonce: String?
    /// Where the shopper's answer to the shown sign-in prompt goes.
    var signInReply: (@MainActor ([String: String]?) async -> Void)?
    /// The checkout to start again once "Set up card" has saved a card.
    var checkoutAwaitingCard: (lines: [CartLine], clearsCartOnSuccess: Bool, oneTap: Bool)?
    /// Set while the payment sheet is being presented.
    private var isPresentingSheet = false
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextTaskID = 0
    private lazy var productOneTap: (ProductID) -> OneTapCheckout = { [unowned self] id in
        OneTapCheckout(entryPoint: .product(id: id), flags: self.dependencies.featureFlags, navigator: self)
    }
    private lazy var cartOneTap = OneTapCheckout(entryPoint: .cart, flags: dependencies.featureFlags, navigator: self)

    /// Number of times a timed-out charge is retried with the same idempotency key.
    nonisolated public static let timeoutRetries = 2

    public init(dependencies: StorefrontDependencies, onState: @escaping (StorefrontState) -> Void) {
        self.dependencies = dependencies
        self.storeProfile = dependencies.catalog.store
        self.onState = onState
        self.account = dependencies.accounts.signedIn
        self.customerID = dependencies.accounts.signedIn?.customerID ?? dependencies.accounts.guestID
        self.cart = Cart(currency: storeProfile.currency)
        var initial = StorefrontState(shopName: storeProfile.name, currency: storeProfile.currency)
        initial.notice = dependencies.accounts.launchNotice.map { Notice(.error, $0) }
        self.state = initial
        self.published = initial
        if let failure = restoreCart() { state.notice = Notice(.error, failure) }
        dependencies.accounts.walletOwner.customerID = customerID
        reloadWallet()
        reloadProducts(keepSelection: false)
        saveCartAndShowIt()
        published = state
        onState(state)
    }

    /// Handles one action and publishes the resulting state once, if it changed.
    public func send(_ action: Action) {
        handle(action)
        publish()
    }

    /// False while a screen is on its way (the payment sheet being presented, a form being
    /// checked): keys typed now belong to what comes next, so hosts hold them until this is true again.
    public var isAcceptingInput: Bool { !isPresentingSheet && !(state.form?.isBusy ?? false) }

    private func finishPresenting() {
        isPresentingSheet = false
    }

    /// Waits until every effect started so far, and any effect they started, has finished.
    public func settled() async {
        while let (id, task) = tasks.first {
            await task.value
            tasks[id] = nil
        }
    }

    // MARK: - Dispatch

    private func handle(_ action: Action) {
        switch action {
        case .viewportChanged(let rows):
            listRowCapacity = max(1, rows)
            reloadProducts(keepSelection: true)
            reloadOrders()
            return
        case .tick:
            if state.isBusy { state.spinnerPhase &+= 1 }
            return
        case .quit:
            state.isQuitting = true
            return
        default:
            break
        }
        state.notice = nil
        if state.isHelpShown {
            if action == .toggleHelp || action == .back { state.isHelpShown = false }
            return
        }
        if action == .toggleHelp, !state.productList.isEditingQuery {
            state.isHelpShown = true
            return
        }
        switch state.screen {
        case .productList: handleProductList(action)
        case .productDetail: handleProductDetail(action)
        case .cart: handleCart(action)
        case .paymentSheet: handlePaymentSheet(action)
        case .confirmation: handleConfirmation(action)
        case .orders: handleOrders(action)
        case .orderDetail: handleOrderDetail(action)
        case .account: handleAccount(action)
        case .form: handleForm(action)
        }
    }

    /// Keys every browsing screen shares: go to the shop, cart or orders.
    func handleGlobalNavigation(_ action: Action) -> Bool {
        switch action {
        case .showShop: goToShop()
        case .showCart: show(.cart)
        case .showOrders: showOrders()
        case .showAccount: showAccount()
        default: return false
        }
        return true
    }

    // MARK: - Product list

    private func handleProductList(_ action: Action) {
        if state.productList.isEditingQuery {
            switch action {
            case .textInput(let text):
                state.productList.query += text
                reloadProducts(keepSelection: false)
                return
            case .deleteBackward:
                if !state.productList.query.isEmpty {
                    state.productList.query.removeLast()
                    reloadProducts(keepSelection: false)
                }
                return
            case .confirm:
                state.productList.isEditingQuery = false
                return
            case .back:
                state.productList.isEditingQuery = false
                state.productList.query = ""
                reloadProducts(keepSelection: false)
                return
            case .moveUp, .moveDown, .pageUp, .pageDown:
                break
            default:
                return
            }
        }
        if handleGlobalNavigation(action) { return }
        switch action {
        case .moveUp: moveProductSelection(by: -1)
        case .moveDown: moveProductSelection(by: 1)
        case .pageUp: moveProductSelection(by: -listRowCapacity)
        case .pageDown: moveProductSelection(by: listRowCapacity)
        case .moveToTop: moveProductSelection(by: -state.productList.totalCount)
        case .moveToBottom: moveProductSelection(by: state.productList.totalCount)
        case .confirm:
            if let product = state.productList.selectedProduct { openDetail(product) }
        case .addToCart:
            if let product = state.productList.selectedProduct { add(product) }
        case .beginSearch:
            state.productList.isEditingQuery = true
        case .back:
            if !state.productList.query.isEmpty {
                state.productList.query = ""
                reloadProducts(keepSelection: false)
            }
        default: break
        }
    }

    private func moveProductSelection(by delta: Int) {
        var list = state.productList
        guard list.totalCount > 0 else { return }
        let target = ListSelection.clamped(list.selectedIndex + delta, count: list.totalCount)
        guard target != list.selectedIndex else { return }
        list.selectedIndex = target
        let start = ListSelection.windowStart(selected: target, currentStart: list.windowStart, capacity: listRowCapacity, total: list.totalCount)
        state.productList = list
        if start != list.windowStart { loadProductWindow(start: start) }
    }

    /// Re-reads the count and visible window, e.g. after the query or viewport changed.
    private func reloadProducts(keepSelection: Bool) {
        let query = state.productList.query
        do {
            let total = try dependencies.catalog.count(matching: query)
            state.productList.totalCount = total
            let selected = keepSelection ? ListSelection.clamped(state.productList.selectedIndex, count: total) : 0
            state.productList.selectedIndex = selected
            let start = ListSelection.windowStart(selected: selected, currentStart: keepSelection ? state.productList.windowStart : 0, capacity: listRowCapacity, total: total)
            loadProductWindow(start: start)
        } catch {
            state.notice = Notice(.error, "Could not read the catalog: \(error)")
        }
    }

    private func loadProductWindow(start: Int) {
        do {
            state.productList.rows = try dependencies.catalog.page(matching: state.productList.query, offset: start, limit: listRowCapacity)
            state.productList.windowStart = start
        } catch {
            state.notice = Notice(.error, "Could not read the catalog: \(error)")
        }
    }

    // MARK: - Product detail

    private func openDetail(_ product: Product) {
        state.productDetail = ProductDetailState(product: product, quantityInCart: 0, canBuyNow: false)
        refreshDetail()
        state.route.append(.productDetail)
    }

    func refreshDetail() {
        guard let product = state.productDetail?.product else { return }
        state.productDetail?.quantityInCart = cart.lines.first { $0.productID == product.id }?.quantity ?? 0
        // Computed first: an optional-chained assignment holds `state` while its right side runs.
        let canBuyNow = productOneTap(product.id).isEnabled && state.account.isOneTapReady
        state.productDetail?.canBuyNow = canBuyNow
    }

    private func handleProductDetail(_ action: Action) {
        if handleGlobalNavigation(action) { return }
        guard let product = state.productDetail?.product else { return }
        switch action {
        case .addToCart: add(product)
        case .buyNow: productOneTap(product.id).present()
        case .back: popScreen()
        default: break
        }
    }

    // MARK: - Cart

    /// Why one more unit of `productID` cannot go in the cart, or nil when it can. Reads fresh stock.
    private func stockRefusal(for productID: ProductID, name: String, adding: Int = 1) -> String? {
        guard let current = (try? dependencies.catalog.product(id: productID)) ?? nil, let stock = current.stock else { return nil }
        let inCart = cart.lines.first { $0.productID == productID }?.quantity ?? 0
        guard inCart + adding > stock else { return nil }
        if stock == 0 { return "\(name) is sold out." }
        return "Only \(stock) of \(name) left, and your cart has \(inCart)."
    }

    private func add(_ product: Product) {
        if let refusal = stockRefusal(for: product.id, name: product.name) {
            state.notice = Notice(.error, refusal)
            return
        }
        if let refusal = amountRefusal(after: { $0.add(product) }) {
            state.notice = Notice(.error, refusal)
            return
        }
        switch cart.add(product) {
        case .atMaximum: state.notice = Notice(.error, "You can buy at most \(CartLine.quantityRange.upperBound) of \(product.name).")
        default: state.notice = Notice(.info, "Added \(product.name) to your cart.")
        }
        saveCartAndShowIt()
        refreshDetail()
    }

    /// Why `change` would take the cart over the largest amount the shop handles, or nil.
    private func amountRefusal(after change: (inout Cart) -> Void) -> String? {
        var trial = cart
        change(&trial)
        guard !trial.isWithinMaximum(shippingMethods: storeProfile.shippingMethods, tax: storeProfile.tax) else { return nil }
        return "This would take the cart over \(Money.maximum(storeProfile.currency).formatted)."
    }

    /// The cart as last saved, so only real changes are written.
    var savedCart: [CartLine]?

    /// Writes the cart to the cart store when it changed; a failure is shown, the cart kept in memory.
    private func saveCartIfChanged() {
        guard let carts = dependencies.carts, savedCart != cart.lines else { return }
        do {
            try carts.save(cart.lines, forCustomer: customerID)
            savedCart = cart.lines
        } catch {
            state.notice = Notice(.error, "Your cart could not be saved: \(error)")
        }
    }

    /// Saves the cart when it changed, then puts it, its totals and the badge on screen.
    func saveCartAndShowIt() {
        if savedCart == nil { savedCart = cart.lines } else { saveCartIfChanged() }
        let shipping = storeProfile.shippingMethods.first
        state.cart.lines = cart.lines
        state.cart.totals = cart.totals(shipping: shipping, tax: storeProfile.tax)
        state.cart.shippingLabel = shipping?.label ?? ""
        state.cart.selectedIndex = ListSelection.clamped(state.cart.selectedIndex, count: cart.lines.count)
        state.cart.canBuyNow = cartOneTap.isEnabled && state.account.isOneTapReady && !cart.isEmpty
        state.cartBadge = CartBadge(itemCount: cart.itemCount, subtotal: cart.subtotal)
    }

    private func handleCart(_ action: Action) {
        if handleGlobalNavigation(action) { return }
        let index = state.cart.selectedIndex
        if let moved = ListSelection.moved(index, by: action, count: cart.lines.count) {
            state.cart.selectedIndex = moved
            return
        }
        switch action {
        case .increaseQuantity:
            if let line = cart.lines[safe: index], let refusal = stockRefusal(for: line.productID, name: line.name)
                ?? amountRefusal(after: { $0.setQuantity(at: index, to: line.quantity + 1) }) {
                state.notice = Notice(.error, refusal)
            } else if cart.setQuantity(at: index, to: (cart.lines[safe: index]?.quantity ?? 0) + 1) == .atMaximum {
                state.notice = Notice(.error, "At most \(CartLine.quantityRange.upperBound) per product.")
            }
        case .decreaseQuantity:
            if cart.setQuantity(at: index, to: (cart.lines[safe: index]?.quantity ?? 0) - 1) == .atMinimum {
                state.notice = Notice(.info, "Press x to remove the line.")
            }
        case .removeLine:
            if let line = cart.lines[safe: index] {
                cart.removeLine(at: index)
                state.notice = Notice(.info, "Removed \(line.name).")
            }
        case .confirm, .pay:
            beginCheckout(lines: cart.lines, clearsCartOnSuccess: true, oneTap: false)
        case .buyNow: cartOneTap.present()
        case .back: popScreen()
        default: break
        }
        saveCartAndShowIt()
    }

    // MARK: - Orders

    private func showOrders() {
        state.orders.selectedIndex = 0
        state.orders.windowStart = 0
        reloadOrders()
        show(.orders)
    }

    func reloadOrders() {
        do {
            let total = try dependencies.orderHistory.count(customer: customerID)
            state.orders.totalCount = total
            state.orders.selectedIndex = ListSelection.clamped(state.orders.selectedIndex, count: total)
            let start = ListSelection.windowStart(selected: state.orders.selectedIndex, currentStart: state.orders.windowStart, capacity: listRowCapacity, total: total)
            state.orders.rows = try dependencies.orderHistory.orders(customer: customerID, offset: start, limit: listRowCapacity)
            state.orders.windowStart = start
        } catch {
            state.notice = Notice(.error, "Could not read your orders: \(error)")
        }
    }

    private func handleOrders(_ action: Action) {
        if handleGlobalNavigation(action) { return }
        if let moved = ListSelection.moved(state.orders.selectedIndex, by: action, count: state.orders.totalCount, page: listRowCapacity) {
            state.orders.selectedIndex = moved
            reloadOrders()
            return
        }
        switch action {
        case .confirm:
            let offset = state.orders.selectedIndex - state.orders.windowStart
            if let order = state.orders.rows[safe: offset] {
                state.orderDetail = order
                state.route.append(.orderDetail)
            }
            return
        case .back: popScreen()
        default: break
        }
    }

    private func handleOrderDetail(_ action: Action) {
        if handleGlobalNavigation(action) { return }
        if action == .back || action == .confirm { popScreen() }
    }

    private func handleConfirmation(_ action: Action) {
        if handleGlobalNavigation(action) { return }
        if action == .back || action == .confirm { goToShop() }
    }

    // MARK: - Navigation

    func show(_ screen: Screen) {
        if let existing = state.route.firstIndex(of: screen) {
            state.route.removeSubrange((existing + 1)...)
        } else {
            state.route.append(screen)
        }
    }

    func popScreen() {
        guard state.route.count > 1 else { return }
        state.route.removeLast()
    }

    private func goToShop() {
        state.route = [.productList]
        state.confirmation = nil
        state.orderDetail = nil
    }

    func publish() {
        guard state != published else { return }
        published = state
        onState(state)
    }

    /// Runs async work as a tracked task, so `settled()` can wait for it.
    func startTrackedTask(_ operation: @escaping @MainActor () async -> Void) {
        let id = nextTaskID
        nextTaskID += 1
        tasks[id] = Task { @MainActor in
            await operation()
        }
    }

    // MARK: - Checkout

    /// One payment sheet's worth of checkout. Private: flags such as `didAuthorize` never reach `State`.
    private struct CheckoutSession {
        var controller: any PaymentAuthorizationControlling
        var lines: [CartLine]
        var clearsCartOnSuccess: Bool
        var options: PaymentSheetOptions
        var card: PaymentMethod?
        var shipTo: Contact?
        var contact: Contact?
        var shippingMethod: ShippingMethod
        /// Set once the shopper authorizes a payment on this sheet; decides what closing the sheet leaves behind.
        var didAuthorize = false
        /// What the screen under the sheet said when checkout began; closing the sheet without authorizing restores it.
        var noticeBeforeCheckout: Notice?
        var statusBeforePay: String?
        /// The charge in flight: what it charges, its idempotency key and the token it was made with.
        /// Paying again for the same charge reuses both, so a charge that went through unanswered
        /// is found under its key instead of looking like a different charge.
        var attempt: (fingerprint: String, key: String, token: PaymentToken?)?
        var confirmation: ConfirmationState?
    }

    /// Opens the payment sheet for `lines`.
    ///
    /// Order of calls: canMakePayments → canMakePaymentsUsingNetworks (false: offer card setup) →
    /// makeController (nil: unable to initialize) → present → the shopper picks and pays.
    func beginCheckout(lines: [CartLine], clearsCartOnSuccess: Bool, oneTap: Bool) {
        guard !lines.isEmpty else {
            state.notice = Notice(.info, "Your cart is empty. Press s to shop.")
            return
        }
        let auth = dependencies.paymentAuthorization
        guard auth.canMakePayments() else {
            state.notice = Notice(.error, "Payments are not available on this device.")
            return
        }
        let subtotal = lines.map(\.total).sum(in: storeProfile.currency)
        let shipping = oneTap
            ? storeProfile.shippingMethods.min { $0.cost(forSubtotal: subtotal).minorUnits < $1.cost(forSubtotal: subtotal).minorUnits }
            : storeProfile.shippingMethods.first
        guard let shipping else {
            state.notice = Notice(.error, "This shop has no shipping methods.")
            return
        }
        let request = paymentRequest(lines: lines, shipping: shipping)
        guard auth.canMakePaymentsUsingNetworks(request.supportedNetworks) else {
            checkoutAwaitingCard = (lines, clearsCartOnSuccess, oneTap)
            openSheet(PaymentSheetState(
                merchantName: storeProfile.name, rowValues: [.card: "No card on \(networkList)"],
                summaryItems: request.summaryItems, isPayEnabled: false, offersCardSetup: true
            ))
            state.notice = Notice(.error, Self.message(for: .networksNotSupported))
            return
        }
        guard let controller = auth.makeController(request) else {
            state.notice = Notice(.error, Self.message(for: .unableToInitialize))
            return
        }
        controller.delegate = self
        isPresentingSheet = true
        // `published` is still what the shopper saw before this key: the status a canceled checkout gives back.
        let noticeBeforeCheckout = published.notice
        startTrackedTask { [weak self] in
            guard let options = await controller.present() else {
                self?.state.notice = Notice(.error, Self.message(for: .unableToInitialize))
                self?.finishPresenting()
                self?.publish()
                return
            }
            self?.sheetPresented(controller: controller, options: options, lines: lines, shipping: shipping, clearsCartOnSuccess: clearsCartOnSuccess, oneTap: oneTap, noticeBeforeCheckout: noticeBeforeCheckout)
        }
    }

    private var networkList: String { storeProfile.supportedNetworks.map(\.displayName).joined(separator: ", ") }

    static func message(for error: PaymentAuthorizationError) -> String {
        switch error {
        case .networksNotSupported: "No card in your wallet works here. Set up a card to pay."
        case .unableToInitialize: "The payment sheet could not be opened for this order."
        }
    }

    private func paymentRequest(lines: [CartLine], shipping: ShippingMethod) -> PaymentRequest {
        PaymentRequest(
            merchantIdentifier: storeProfile.merchantIdentifier, merchantName: storeProfile.name, countryCode: storeProfile.countryCode,
            currency: storeProfile.currency, supportedNetworks: storeProfile.supportedNetworks,
            merchantCapabilities: [.threeDSecure, .credit, .debit],
            summaryItems: summaryItems(lines: lines, shipping: shipping),
            shippingMethods: storeProfile.shippingMethods, requiredShippingContactFields: [.name, .email, .postalAddress]
        )
    }

    private func totals(lines: [CartLine], shipping: ShippingMethod) -> CartTotals {
        Cart(currency: storeProfile.currency, lines: lines).totals(shipping: shipping, tax: storeProfile.tax)
    }

    /// Subtotal, shipping, tax, then the total labelled with the merchant's name.
    private func summaryItems(lines: [CartLine], shipping: ShippingMethod) -> [SummaryItem] {
        let totals = totals(lines: lines, shipping: shipping)
        return [
            SummaryItem(label: "Subtotal", amount: totals.subtotal),
            SummaryItem(label: "Shipping (\(shipping.label))", amount: totals.shipping),
            SummaryItem(label: storeProfile.tax.label, amount: totals.tax),
            SummaryItem(label: storeProfile.name, amount: totals.total),
        ]
    }

    private func sheetPresented(controller: any PaymentAuthorizationControlling, options: PaymentSheetOptions, lines: [CartLine], shipping: ShippingMethod, clearsCartOnSuccess: Bool, oneTap: Bool, noticeBeforeCheckout: Notice?) {
        let session = CheckoutSession(
            controller: controller, lines: lines, clearsCartOnSuccess: clearsCartOnSuccess, options: options,
            card: options.selectedPaymentMethod, shipTo: options.selectedContact, contact: options.selectedContact,
            shippingMethod: shipping, noticeBeforeCheckout: noticeBeforeCheckout
        )
        checkout = session
        openSheet(PaymentSheetState(
            merchantName: storeProfile.name, rowValues: [:], summaryItems: summaryItems(lines: lines, shipping: shipping),
            isPayEnabled: false
        ))
        if let contact = options.selectedContact {
            // As Apple's sheet does, the preselected contact is checked before anything can be paid.
            setRowErrors(contactErrors(for: contact))
        }
        refreshSheetRows()
        if oneTap { requestAuthorization() }
        finishPresenting()
        publish()
    }

    private func openSheet(_ sheet: PaymentSheetState) {
        state.paymentSheet = sheet
        if state.screen != .paymentSheet { state.route.append(.paymentSheet) }
    }

    private func refreshSheetRows() {
        guard let session = checkout, var sheet = state.paymentSheet else { return }
        sheet.rowValues = [
            .card: session.card.map { "\($0.shortName)  \($0.displayName)" } ?? "Choose a card",
            .shippingAddress: session.shipTo.map(\.shipToLine) ?? "Choose an address",
            .shippingMethod: "\(session.shippingMethod.label) · \(session.shippingMethod.detail)",
            .contact: session.contact.map { [$0.email, $0.phone].filter { !$0.isEmpty }.joined(separator: " · ") } ?? "Choose a contact",
        ]
        sheet.isPayEnabled = session.card != nil && session.shipTo != nil && session.contact != nil
            && sheet.rowErrors.isEmpty && !sheet.isBusy
        state.paymentSheet = sheet
    }

    private func handlePaymentSheet(_ action: Action) {
        guard var sheet = state.paymentSheet else { return }
        if sheet.isBusy { return }
        if sheet.authorizationPrompt != nil {
            switch action {
            case .confirm: confirmAuthorization()
            case .back: cancelAuthorization()
            default: break
            }
            return
        }
        if let chooser = sheet.chooser {
            switch action {
            case .moveUp: sheet.chooser?.selectedIndex = ListSelection.clamped(chooser.selectedIndex - 1, count: chooser.options.count)
            case .moveDown: sheet.chooser?.selectedIndex = ListSelection.clamped(chooser.selectedIndex + 1, count: chooser.options.count)
            case .back: sheet.chooser = nil
            case .confirm:
                sheet.chooser = nil
                state.paymentSheet = sheet
                choose(row: chooser.row, index: chooser.selectedIndex)
                return
            default: break
            }
            state.paymentSheet = sheet
            return
        }
        let rows = PaymentSheetRow.allCases
        switch action {
        case .moveUp: sheet.selectedRow = rows[max(0, sheet.selectedRow.rawValue - 1)]
        case .moveDown: sheet.selectedRow = rows[min(rows.count - 1, sheet.selectedRow.rawValue + 1)]
        case .confirm:
            if sheet.offersCardSetup {
                state.paymentSheet = sheet
                openCardForm()
                return
            } else {
                sheet.chooser = chooser(for: sheet.selectedRow)
            }
        case .pay:
            state.paymentSheet = sheet
            requestAuthorization()
            return
        case .back:
            state.paymentSheet = sheet
            dismissSheet()
            return
        default: break
        }
        state.paymentSheet = sheet
    }

    private func chooser(for row: PaymentSheetRow) -> ChooserState? {
        guard let session = checkout else { return nil }
        switch row {
        case .card:
            let options = session.options.paymentMethods.map { ChooserState.Option(title: $0.shortName, detail: $0.displayName) }
            return ChooserState(row: row, options: options, selectedIndex: session.options.paymentMethods.firstIndex { $0.id == session.card?.id } ?? 0)
        case .shippingAddress:
            let options = session.options.contacts.map { ChooserState.Option(title: $0.name, detail: $0.address.singleLine) }
            return ChooserState(row: row, options: options, selectedIndex: session.options.contacts.firstIndex { $0.id == session.shipTo?.id } ?? 0)
        case .shippingMethod:
            let subtotal = session.lines.map(\.total).sum(in: storeProfile.currency)
            let options = storeProfile.shippingMethods.map { ChooserState.Option(title: "\($0.label) · \($0.cost(forSubtotal: subtotal).formatted)", detail: $0.detail) }
            return ChooserState(row: row, options: options, selectedIndex: storeProfile.shippingMethods.firstIndex { $0.id == session.shippingMethod.id } ?? 0)
        case .contact:
            let options = session.options.contacts.map { ChooserState.Option(title: $0.email.isEmpty ? "(no email)" : $0.email, detail: $0.phone) }
            return ChooserState(row: row, options: options, selectedIndex: session.options.contacts.firstIndex { $0.id == session.contact?.id } ?? 0)
        }
    }

    /// Applies a choice from a chooser: the controller reports it to its delegate, whose answer updates the sheet.
    private func choose(row: PaymentSheetRow, index: Int) {
        guard let session = checkout else { return }
        let controller = session.controller
        switch row {
        case .card:
            guard let method = session.options.paymentMethods[safe: index] else { return }
            checkout?.card = method
            refreshSheetRows()
            startTrackedTask { [weak self] in
                let update = await controller.selectPaymentMethod(method)
                self?.applySummary(update.summaryItems)
            }
        case .shippingMethod:
            guard let method = storeProfile.shippingMethods[safe: index] else { return }
            checkout?.shippingMethod = method
            refreshSheetRows()
            startTrackedTask { [weak self] in
                let update = await controller.selectShippingMethod(method)
                self?.applySummary(update.summaryItems)
            }
        case .shippingAddress, .contact:
            guard let picked = session.options.contacts[safe: index] else { return }
            if row == .shippingAddress { checkout?.shipTo = picked } else { checkout?.contact = picked }
            refreshSheetRows()
            guard let contact = shippingContact() else { return }
            startTrackedTask { [weak self] in
                let update = await controller.selectShippingContact(contact)
                self?.applyContactUpdate(update)
            }
        }
    }

    /// The address of the "Ship to" choice with the email and phone of the "Contact" choice.
    private func shippingContact() -> Contact? {
        guard let shipTo = checkout?.shipTo, let contact = checkout?.contact else { return nil }
        var merged = shipTo
        merged.email = contact.email
        merged.phone = contact.phone
        return merged
    }

    private func applySummary(_ items: [SummaryItem]) {
        state.paymentSheet?.summaryItems = items
        refreshSheetRows()
        publish()
    }

    private func applyContactUpdate(_ update: ShippingContactUpdate) {
        setRowErrors(update.errors)
        state.paymentSheet?.summaryItems = update.summaryItems
        refreshSheetRows()
        publish()
    }

    /// Shows each contact error next to its row: name and address by "Ship to", email and phone by "Contact".
    private func setRowErrors(_ contactErrors: [ContactFieldError]) {
        var errors: [PaymentSheetRow: String] = [:]
        for error in contactErrors {
            let row: PaymentSheetRow = error.field == .postalAddress || error.field == .name ? .shippingAddress : .contact
            errors[row] = errors[row].map { $0 + " " + error.message } ?? error.message
        }
        state.paymentSheet?.rowErrors = errors
    }

    /// Pay: shows "Authorizing…" and the confirmation prompt; Enter confirms, Esc cancels.
    private func requestAuthorization() {
        guard var sheet = state.paymentSheet, sheet.isPayEnabled, let total = sheet.summaryItems.last else {
            if state.paymentSheet?.offersCardSetup == true {
                state.notice = Notice(.error, Self.message(for: .networksNotSupported))
            } else if let error = state.paymentSheet?.rowErrors.values.first {
                state.notice = Notice(.error, error)
            }
            return
        }
        checkout?.statusBeforePay = sheet.status
        sheet.status = "Authorizing…"
        sheet.isStatusError = false
        sheet.isPayEnabled = false
        sheet.authorizationPrompt = "Pay \(total.label) \(total.amount.formatted)? Enter to confirm, Esc to cancel"
        state.paymentSheet = sheet
    }

    private func cancelAuthorization() {
        state.paymentSheet?.authorizationPrompt = nil
        restoreStatusAfterCancel()
        refreshSheetRows()
    }

    private func restoreStatusAfterCancel() {
        let before = checkout?.statusBeforePay
        state.paymentSheet?.status = before
        state.paymentSheet?.isStatusError = before != nil
    }

    private func confirmAuthorization() {
        guard let controller = checkout?.controller else { return }
        state.paymentSheet?.authorizationPrompt = nil
        state.paymentSheet?.isBusy = true
        startTrackedTask { [weak self] in
            let result = await controller.authorize()
            self?.authorizationFinished(result)
        }
    }

    private func authorizationFinished(_ result: PaymentAuthorizationResult) {
        state.paymentSheet?.isBusy = false
        if result.status == .success, let confirmation = checkout?.confirmation {
            let controller = checkout?.controller
            if checkout?.clearsCartOnSuccess == true {
                cart.removeAll()
                saveCartAndShowIt()
            }
            checkout = nil
            state.paymentSheet = nil
            state.confirmation = confirmation
            state.route = [.productList, .confirmation]
            if let controller { startTrackedTask { await controller.dismiss() } }
        } else {
            state.paymentSheet?.status = result.errors.first ?? "The payment did not go through."
            state.paymentSheet?.isStatusError = true
            refreshSheetRows()
        }
        publish()
    }

    /// Esc on the sheet: the controller dismisses and the delegate hears `didFinish`.
    private func dismissSheet() {
        guard let controller = checkout?.controller else {
            // The "Set up card" sheet: leaving it drops the checkout it was waiting to resume.
            checkoutAwaitingCard = nil
            state.paymentSheet = nil
            popScreen()
            return
        }
        startTrackedTask { await controller.dismiss() }
    }

    /// The sheet closed without a successful payment (success ends in `authorizationFinished`).
    ///
    /// Never authorized: the screen below gets back the status it had before checkout. Authorized and
    /// failed: that screen says the order was not paid and why, so the outcome outlives the sheet.
    private func sheetFinished() {
        guard let session = checkout else { return }
        let lastStatus = state.paymentSheet?.status
        checkout = nil
        state.paymentSheet = nil
        if state.screen == .paymentSheet { popScreen() }
        if session.didAuthorize {
            state.notice = Notice(.error, "Not paid: \(lastStatus ?? "the payment did not go through.") Your cart is kept.")
        } else {
            state.notice = session.noticeBeforeCheckout
        }
        publish()
    }

    /// The payment was authorized: make a token, then have the backend charge it.
    private func process(_ payment: Payment) async -> PaymentAuthorizationResult {
        guard let session = checkout else { return .failure("The checkout was closed.") }
        checkout?.didAuthorize = true
        state.paymentSheet?.status = "Processing…"
        publish()

        let draft = OrderDraft(
            lines: session.lines, totals: totals(lines: session.lines, shipping: payment.shippingMethod),
            shippingMethod: payment.shippingMethod, shippingContact: payment.shippingContact, customerID: customerID
        )
        let key = idempotencyKey(for: draft, method: payment.method)
        let token: PaymentToken
        if let kept = checkout?.attempt?.token {
            token = kept
        } else {
            do {
                token = try await dependencies.paymentProvider.createToken(for: payment)
            } catch {
                return .failure(Self.message(for: error))
            }
            checkout?.attempt?.token = token
        }
        var lastError: MerchantBackendError = .timedOut
        for _ in 0...Self.timeoutRetries {
            do {
                let confirmation = try await dependencies.merchantBackend.processPayment(token: token, order: draft, idempotencyKey: key)
                checkout?.attempt = nil
                checkout?.confirmation = ConfirmationState(
                    orderNumber: confirmation.orderNumber, total: confirmation.total,
                    itemCount: draft.lines.reduce(0) { $0 + $1.quantity },
                    paymentDescription: payment.method.shortName,
                    shipTo: payment.shippingContact.shipToLine,
                    shippingMethodLabel: payment.shippingMethod.label
                )
                return .success
            } catch .timedOut {
                lastError = .timedOut
                continue
            } catch {
                // A definite answer: the next attempt is a new charge with a new key.
                checkout?.attempt = nil
                return .failure(Self.message(for: error))
            }
        }
        return .failure(Self.message(for: lastError))
    }

    /// The key for this charge: reused while the same charge is retried, new for anything else.
    private func idempotencyKey(for draft: OrderDraft, method: PaymentMethod) -> String {
        let fingerprint = "\(method.id)|\(draft.totals.total.minorUnits)|\(draft.lines.map { "\($0.productID)x\($0.quantity)" })|\(draft.shippingMethod.id)"
        if let attempt = checkout?.attempt, attempt.fingerprint == fingerprint { return attempt.key }
        let key = dependencies.ids.next()
        checkout?.attempt = (fingerprint, key, nil)
        return key
    }

    static func message(for error: PaymentProviderError) -> String {
        switch error {
        case .cardRejected(let reason): reason.message
        case .unavailable(let why): "The payment provider is unavailable (\(why)). You were not charged."
        }
    }

    static func message(for error: MerchantBackendError) -> String {
        switch error {
        case .declined(let reason): reason.message
        case .soldOut(let name, let available):
            available == 0
                ? "Sorry, \(name) just sold out. You were not charged; the rest of your cart is kept."
                : "Only \(available) of \(name) left. You were not charged; lower the quantity and pay again."
        case .idempotencyMismatch: "This payment conflicts with an earlier attempt. You were not charged twice; please try again."
        case .timedOut: "The shop did not answer in time. No second charge will be made; please try again."
        case .unavailable(let why): "The shop could not take the order (\(why))."
        }
    }
}

// MARK: - Navigator

extension StorefrontViewModel: Navigator {
    /// One-Tap's destination: the sheet with the defaults, straight to the authorization prompt.
    public func navigate(to destination: Destination) {
        switch destination {
        case .oneTapCheckout(.cart):
            beginCheckout(lines: cart.lines, clearsCartOnSuccess: true, oneTap: true)
        case .oneTapCheckout(.product(let id)):
            guard let product = (try? dependencies.catalog.product(id: id)) ?? nil else {
                state.notice = Notice(.error, "That product is no longer sold.")
                return
            }
            let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
            beginCheckout(lines: [line], clearsCartOnSuccess: false, oneTap: true)
        }
    }
}

// MARK: - Payment sheet delegate

extension StorefrontViewModel: PaymentAuthorizationControllerDelegate {
    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectPaymentMethod method: PaymentMethod) async -> PaymentRequestUpdate {
        PaymentRequestUpdate(summaryItems: currentSummary())
    }

    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectShippingContact contact: Contact) async -> ShippingContactUpdate {
        ShippingContactUpdate(summaryItems: currentSummary(), errors: contactErrors(for: contact))
    }

    /// What the shop cannot accept about a shipping contact: the address form's checks, then where it ships.
    func contactErrors(for contact: Contact) -> [ContactFieldError] {
        let problems = AddressEntry(contact).problems()
        var errors = AddressField.allCases.compactMap { field in
            problems[field].map { ContactFieldError(field: field.contactField, message: $0) }
        }
        if problems[.country] == nil, contact.address.countryCode.uppercased() != storeProfile.countryCode {
            errors.append(ContactFieldError(field: .postalAddress, message: "\(storeProfile.name) ships to \(storeProfile.countryCode) addresses only."))
        }
        return errors
    }

    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectShippingMethod method: ShippingMethod) async -> PaymentRequestUpdate {
        PaymentRequestUpdate(summaryItems: currentSummary())
    }

    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didAuthorizePayment payment: Payment) async -> PaymentAuthorizationResult {
        await process(payment)
    }

    public func paymentAuthorizationControllerDidFinish(_ controller: any PaymentAuthorizationControlling) async {
        guard checkout?.controller === controller else { return }
        sheetFinished()
    }

    private func currentSummary() -> [SummaryItem] {
        guard let session = checkout else { return state.paymentSheet?.summaryItems ?? [] }
        return summaryItems(lines: session.lines, shipping: session.shippingMethod)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
