import ShopModels
import ShopPorts

/// The root reducer: the keys every screen shares, help, the notice, and dispatch to the features, each given
/// its own scope of the state (`AppState.scope`, by key path).
@MainActor
public enum AppReducer {
    /// The state a shop opens with, before anything is read: `.opened` reads the saved cart, the wallet and the first products.
    public static func initialState(_ env: ShopEnvironment) -> AppState {
        let dependencies = env.dependencies
        let profile = env.shopProfile
        let account = dependencies.accounts.signedIn
        var state = AppState(
            shopName: profile.name, currency: profile.currency, customerID: account?.customerID ?? dependencies.accounts.guestID, signedIn: account)
        state.shell.notice = dependencies.accounts.launchNotice.map { Notice(.error, $0) }
        state.paymentMode = dependencies.paymentProvider.mode
        state.productList.list.isLoading = true
        if dependencies.carts == nil { state.cart.savedCart = [] }
        state.canCancelOrders = dependencies.backOffice != nil
        if case .merchant(let name) = dependencies.console {
            // The console sells nothing: no products, cart or wallet are read, and keys are taken at once.
            state.shell.route = [.merchantQueue]
            state.merchant = MerchantFeature.Owned(console: MerchantConsoleState(merchantName: name))
            state.account.shopperLabel = "merchant \(name)"
            state.canCancelOrders = false
            state.cart.savedCart = []
            state.productList.isOpening = false
            return state
        }
        state.scope(\.account) { AccountFeature.refresh(&$0, env) }
        state.scope(\.cart) { CartFeature.showCart(&$0, env) }
        return state
    }

    /// One step of the store: `action`, then every action posted to the mailbox while it ran, then the screens
    /// others' state shows, the screens left behind dropped, and the cart's follow-up (a write or a stock check).
    public static func step(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        env.mailbox.isReducing = true
        defer { env.mailbox.isReducing = false }
        // What the shopper sees now, before this step changes it: a key may open a checkout that gives it back.
        state.noticeBeforeAction = state.shell.notice
        let derivedFrom = DerivedScreens.inputs(state)
        let wasWaitingForStorage = state.shell.isWaitingForStorage
        var effect = reduceWithSends(&state, action, env)
        while let next = env.mailbox.takeQueued() {
            effect += reduceWithSends(&state, next, env)
        }
        DerivedScreens.update(&state, since: derivedFrom, env)
        dropScreensLeftBehind(&state)
        if wasWaitingForStorage, !state.shell.isWaitingForStorage { state.scope(\.cart) { CartFeature.storageIsBack(&$0) } }
        return effect + state.scope(\.cart) { CartFeature.followUp(&$0, env) }
    }

    /// `action`, with every action its reduction sends reduced in its place, depth first, as a call would have been.
    private static func reduceWithSends(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        var effect = Effect()
        for item in reduce(&state, action, env).items {
            if case .send(let sent) = item { effect += reduceWithSends(&state, sent, env) } else { effect.items.append(item) }
        }
        return effect
    }

    static func reduce(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .opened where state.merchant != nil:
            return state.scope(\.console) { MerchantFeature.open(&$0, env) }
        case .opened:
            return route(&state, .customerChanged, env) + state.scope(\.productList) { ProductListFeature.reload(&$0, env, keepSelection: false) }
        case .key(let key): return reduceKey(&state, key, env)
        case .navigate(let destination): return state.scope(\.checkout) { CheckoutFeature.navigate(&$0, to: destination, env) }
        case .checkout(let event): return state.scope(\.checkout) { CheckoutFeature.reduce(&$0, event, env) }
        case .form(let event): return state.scope(\.forms) { FormFeature.reduce(&$0, event, env) }
        case .cardLink(let event): return state.scope(\.cardLink) { CardLinkFeature.reduce(&$0, event, env) }
        case .signIn(let event): return state.scope(\.signIn) { SignInFeature.reduce(&$0, event, env) }
        case .productList(let answer): return state.scope(\.productList) { ProductListFeature.reduce(&$0, answer, env) }
        case .cart(let answer): return state.scope(\.cart) { CartFeature.reduce(&$0, answer, env) }
        case .wallet(let read): return state.scope(\.account) { AccountFeature.loaded(&$0, read, env) }
        case .orders(let answer): return state.scope(\.orders) { OrdersFeature.reduce(&$0, answer, env) }
        case .merchant(let answer): return state.scope(\.console) { MerchantFeature.reduce(&$0, answer, env) }
        case .request(let request): return route(&state, request, env)
        }
    }

    /// Hands what one feature asks of another to the feature that does it.
    private static func route(_ state: inout AppState, _ request: FeatureRequest, _ env: ShopEnvironment) -> Effect {
        switch request {
        case .addToCart(let product): return state.scope(\.cart) { CartFeature.add(&$0, product, env) }
        case .emptyCart: state.scope(\.cart) { CartFeature.empty(&$0) }
        case .removeBoughtLines(let lines): state.scope(\.cart) { CartFeature.removeBought(lines, &$0) }
        case .handOverCart(let leaving, let merging):
            return state.scope(\.cart) { CartFeature.handOver(&$0, leaving: leaving, mergingIntoNext: merging, env) }
        case .openProduct(let product): state.scope(\.productDetail) { ProductDetailFeature.open(&$0, product, env) }
        case .addCard:
            guard env.dependencies.paymentProvider.cardCollection == .onTheProvidersPage else {
                state.scope(\.forms) { FormFeature.presentCardForm(&$0, env) }
                return .none
            }
            return state.scope(\.cardLink) { CardLinkFeature.open(&$0, env) }
        case .addCardOnProvidersPage: return state.scope(\.cardLink) { CardLinkFeature.open(&$0, env) }
        case .beginCheckout(let order): return state.scope(\.checkout) { CheckoutFeature.begin(&$0, order, oneTap: false, env) }
        case .addedToWallet(.card(let card)): return state.scope(\.checkout) { CheckoutFeature.entryAdded(card: card, &$0, env) }
        case .addedToWallet(.address(let contact)): return state.scope(\.checkout) { CheckoutFeature.entryAdded(contact: contact, &$0, env) }
        case .walletEntryCanceled(let purpose): state.scope(\.checkout) { CheckoutFeature.entryCanceled(purpose, &$0) }
        case .beginSignIn: return state.scope(\.signIn) { SignInFeature.begin(&$0, env) }
        case .signOut: return state.scope(\.signIn) { SignInFeature.signOut(&$0, env) }
        case .submitSignInPrompt(let form): return state.scope(\.signIn) { SignInFeature.submitPrompt(&$0, form, env) }
        case .cancelSignInPrompt: return state.scope(\.signIn) { SignInFeature.cancelPrompt(&$0, env) }
        case .reloadWallet: return state.scope(\.account) { AccountFeature.reloadWallet(&$0, env) }
        case .showNewAPIToken(let secret, let name):
            return state.scope(\.account) { AccountFeature.showNewToken(&$0, secret: secret, name: name, env) }
        case .submitMerchantForm(let form): return state.scope(\.console) { MerchantFeature.submitForm(&$0, form, env) }
        case .customerChanged:
            return AccountFeature.pointTheSheetsWallet(at: state.customer.customerID, env) + state.scope(\.cart) { CartFeature.restore(&$0, env) }
                + state.scope(\.account) { AccountFeature.reloadWallet(&$0, env) }
        }
        return .none
    }

    private static func reduceKey(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .viewportChanged(let rows):
            state.listRowCapacity = max(1, rows)
            if state.merchant != nil {
                return state.screen == .merchantQueue ? state.scope(\.console) { MerchantFeature.reloadQueue(&$0, env) } : .none
            }
            let list = state.scope(\.productList) { ProductListFeature.reload(&$0, env, keepSelection: true) }
            // The orders are read when their screen opens; reading them here would cost every start two queries.
            if state.screen == .orders || state.screen == .orderDetail { return list + state.scope(\.orders) { OrdersFeature.reload(&$0, env) } }
            return list
        case .tick:
            if state.screens.isBusy { state.spinnerPhase &+= 1 }
            // While the database is away, a tick tries again what the shop needs from it: the products on screen.
            // A try still pending is left be, so a slow database is not asked again and again.
            guard state.shell.isWaitingForStorage, state.productList.pending == nil else { return .none }
            return state.scope(\.productList) { ProductListFeature.reload(&$0, env, keepSelection: true) }
        case .quit:
            state.isQuitting = true
            return state.scope(\.cart) { CartFeature.quit(&$0) }
        default:
            break
        }
        state.shell.notice = nil
        // A database still out of reach stays said, whatever the key.
        if state.shell.isWaitingForStorage { state.shell.notice = Notice(.error, StorageError.unavailableMessage) }
        if state.isHelpShown {
            if action == .toggleHelp || action == .back { state.isHelpShown = false }
            return .none
        }
        if action == .toggleHelp, !state.screens.isTakingText {
            state.isHelpShown = true
            return .none
        }
        // Keys every browsing screen shares, before the screen's own.
        if state.screen.isBrowsing, !state.screens.isTakingText, let effect = navigation(&state, action, env) {
            return effect
        }
        // Each screen's feature takes the keys its own action enum names, and handles every one of them.
        switch state.screen {
        case .productList:
            guard let key = ProductListFeature.Action(action) else { return .none }
            return state.scope(\.productList) { ProductListFeature.reduce(&$0, key, env) }
        case .productDetail:
            guard let key = ProductDetailFeature.Action(action) else { return .none }
            return state.scope(\.productDetail) { ProductDetailFeature.reduce(&$0, key, env) }
        case .cart:
            guard let key = CartFeature.Action(action) else { return .none }
            return state.scope(\.cart) { CartFeature.reduce(&$0, key, env) }
        case .paymentSheet:
            guard let key = CheckoutFeature.Action(action) else { return .none }
            return state.scope(\.checkout) { CheckoutFeature.reduceKey(&$0, key, env) }
        case .confirmation:
            guard let key = ConfirmationFeature.Action(action) else { return .none }
            return ConfirmationFeature.reduce(&state.shell, key, env)
        case .orders:
            guard let key = OrdersFeature.ListAction(action) else { return .none }
            return state.scope(\.orders) { OrdersFeature.reduce(&$0, key, env) }
        case .orderDetail:
            guard let key = OrdersFeature.DetailAction(action) else { return .none }
            return state.scope(\.orders) { OrdersFeature.reduceDetail(&$0, key, env) }
        case .account:
            guard let key = AccountFeature.Action(action) else { return .none }
            return state.scope(\.account) { AccountFeature.reduce(&$0, key, env) }
        case .form:
            guard let key = FormFeature.Action(action) else { return .none }
            return state.scope(\.forms) { FormFeature.reduceKey(&$0, key, env) }
        case .cardLink:
            guard let key = CardLinkFeature.Action(action) else { return .none }
            return state.scope(\.cardLink) { CardLinkFeature.reduceKey(&$0, key, env) }
        case .merchantQueue, .merchantOrder, .merchantRefund, .merchantStock, .merchantSales:
            guard let key = MerchantFeature.Action(action) else { return .none }
            return state.scope(\.console) { MerchantFeature.reduceKey(&$0, key, env) }
        }
    }

    /// Keys every browsing screen shares: go to the shop, cart, orders or account. Nil when `action` is none of them.
    static func navigation(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect? {
        switch action {
        case .showShop: state.shell.goToShop()
        case .showCart: state.shell.show(.cart)
        case .showOrders: return state.scope(\.orders) { OrdersFeature.open(&$0, env) }
        case .showAccount:
            // A new token's secret is shown once: coming back to the screen does not show it again.
            state.account.screen.newToken = nil
            state.shell.show(.account)
        default: return nil
        }
        return Effect.none
    }

    /// The screens of a finished purchase or order go with their place in the route: back in the shop, the
    /// "Thank you" and the order opened are dropped.
    private static func dropScreensLeftBehind(_ state: inout AppState) {
        if state.checkout.confirmation != nil, !state.shell.route.contains(.confirmation) { state.checkout.confirmation = nil }
        if state.orders.detail != nil, !state.shell.route.contains(.orderDetail) {
            state.orders.detail = nil
            state.orders.events = []
            state.orders.cancel = nil
            state.orders.messages = []
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
