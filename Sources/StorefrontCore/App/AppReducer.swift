import ShopModels
import ShopPorts

/// The root reducer: the keys every screen shares, help, the notice, and dispatch to the features, each given
/// its own scope of the state (`AppState+Scopes`).
@MainActor
public enum AppReducer {
    /// The state a shop opens with, before anything is read: `.opened` reads the saved cart, the wallet and the first products.
    public static func initialState(_ env: ShopEnvironment) -> AppState {
        let dependencies = env.dependencies
        let profile = env.shopProfile
        let account = dependencies.accounts.signedIn
        var screens = StorefrontState(shopName: profile.name, currency: profile.currency)
        screens.notice = dependencies.accounts.launchNotice.map { Notice(.error, $0) }
        screens.paymentMode = dependencies.paymentProvider.mode
        screens.productList.isLoading = true
        var state = AppState(
            screens: screens, cart: Cart(currency: profile.currency),
            customerID: account?.customerID ?? dependencies.accounts.guestID, signedIn: account
        )
        if dependencies.carts == nil { state.savedCart = [] }
        state.screens.canCancelOrders = dependencies.backOffice != nil
        if case .merchant(let name) = dependencies.console {
            // The console sells nothing: no products, cart or wallet are read, and keys are taken at once.
            state.route = [.merchantQueue]
            state.screens.merchant = MerchantConsoleState(merchantName: name)
            state.screens.shopperLabel = "merchant \(name)"
            state.screens.canCancelOrders = false
            state.savedCart = []
            state.isOpening = false
            return state
        }
        AccountFeature.refresh(&state.accountScope, env)
        CartFeature.showCart(&state.cartScope, env)
        return state
    }

    /// One step of the store: `action`, then every action posted to the mailbox while it ran, then the screens
    /// others' state shows, the screens left behind dropped, and the cart's follow-up (a write or a stock check).
    public static func step(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        env.mailbox.isReducing = true
        defer { env.mailbox.isReducing = false }
        // What the shopper sees now, before this step changes it: a key may open a checkout that gives it back.
        state.noticeBeforeAction = state.notice
        let derivedFrom = DerivedScreens.inputs(state)
        let wasWaitingForStorage = state.isWaitingForStorage
        var effect = reduceWithSends(&state, action, env)
        while let next = env.mailbox.takeQueued() {
            effect += reduceWithSends(&state, next, env)
        }
        DerivedScreens.update(&state, since: derivedFrom, env)
        dropScreensLeftBehind(&state)
        if wasWaitingForStorage, !state.isWaitingForStorage { CartFeature.storageIsBack(&state.cartScope) }
        return effect + CartFeature.followUp(&state.cartScope, env)
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
        case .opened where state.screens.merchant != nil:
            return MerchantFeature.open(&state.merchantScope, env)
        case .opened:
            return route(&state, .customerChanged, env) + ProductListFeature.reload(&state.productListScope, env, keepSelection: false)
        case .key(let key): return reduceKey(&state, key, env)
        case .navigate(let destination): return CheckoutFeature.navigate(&state.checkoutScope, to: destination, env)
        case .checkout(let event): return CheckoutFeature.reduce(&state.checkoutScope, event, env)
        case .form(let event): return FormFeature.reduce(&state.formScope, event, env)
        case .cardLink(let event): return CardLinkFeature.reduce(&state.cardLinkScope, event, env)
        case .signIn(let event): return SignInFeature.reduce(&state.signInScope, event, env)
        case .productList(let answer): return ProductListFeature.reduce(&state.productListScope, answer, env)
        case .cart(let answer): return CartFeature.reduce(&state.cartScope, answer, env)
        case .wallet(let read): return AccountFeature.loaded(&state.accountScope, read, env)
        case .orders(let answer): return OrdersFeature.reduce(&state.ordersScope, answer, env)
        case .merchant(let answer): return MerchantFeature.reduce(&state.merchantScope, answer, env)
        case .request(let request): return route(&state, request, env)
        }
    }

    /// Hands what one feature asks of another to the feature that does it.
    private static func route(_ state: inout AppState, _ request: FeatureRequest, _ env: ShopEnvironment) -> Effect {
        switch request {
        case .addToCart(let product): return CartFeature.add(&state.cartScope, product, env)
        case .emptyCart: CartFeature.empty(&state.cartScope)
        case .removeBoughtLines(let lines): CartFeature.removeBought(lines, &state.cartScope)
        case .handOverCart(let leaving, let merging): return CartFeature.handOver(&state.cartScope, leaving: leaving, mergingIntoNext: merging, env)
        case .openProduct(let product): ProductDetailFeature.open(&state.productDetailScope, product, env)
        case .addCard:
            guard env.dependencies.paymentProvider.cardCollection == .onTheProvidersPage else {
                FormFeature.presentCardForm(&state.formScope, env)
                return .none
            }
            return CardLinkFeature.open(&state.cardLinkScope, env)
        case .addCardOnProvidersPage: return CardLinkFeature.open(&state.cardLinkScope, env)
        case .beginCheckout(let order): return CheckoutFeature.begin(&state.checkoutScope, order, oneTap: false, env)
        case .addedToWallet(.card(let card)): return CheckoutFeature.entryAdded(card: card, &state.checkoutScope, env)
        case .addedToWallet(.address(let contact)): return CheckoutFeature.entryAdded(contact: contact, &state.checkoutScope, env)
        case .walletEntryCanceled(let purpose): CheckoutFeature.entryCanceled(purpose, &state.checkoutScope)
        case .beginSignIn: return SignInFeature.begin(&state.signInScope, env)
        case .signOut: return SignInFeature.signOut(&state.signInScope, env)
        case .submitSignInPrompt(let form): return SignInFeature.submitPrompt(&state.signInScope, form, env)
        case .cancelSignInPrompt: return SignInFeature.cancelPrompt(&state.signInScope, env)
        case .reloadWallet: return AccountFeature.reloadWallet(&state.accountScope, env)
        case .showNewAPIToken(let secret, let name): return AccountFeature.showNewToken(&state.accountScope, secret: secret, name: name, env)
        case .submitMerchantForm(let form): return MerchantFeature.submitForm(&state.merchantScope, form, env)
        case .customerChanged:
            return AccountFeature.pointTheSheetsWallet(at: state.customerID, env) + CartFeature.restore(&state.cartScope, env)
                + AccountFeature.reloadWallet(&state.accountScope, env)
        }
        return .none
    }

    private static func reduceKey(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .viewportChanged(let rows):
            state.listRowCapacity = max(1, rows)
            if state.screens.merchant != nil {
                return state.screen == .merchantQueue ? MerchantFeature.reloadQueue(&state.merchantScope, env) : .none
            }
            let list = ProductListFeature.reload(&state.productListScope, env, keepSelection: true)
            // The orders are read when their screen opens; reading them here would cost every start two queries.
            if state.screen == .orders || state.screen == .orderDetail { return list + OrdersFeature.reload(&state.ordersScope, env) }
            return list
        case .tick:
            if state.isBusy { state.spinnerPhase &+= 1 }
            // While the database is away, a tick tries again what the shop needs from it: the products on screen.
            // A try still pending is left be, so a slow database is not asked again and again.
            guard state.isWaitingForStorage, state.productListPending == nil else { return .none }
            return ProductListFeature.reload(&state.productListScope, env, keepSelection: true)
        case .quit:
            state.isQuitting = true
            return CartFeature.quit(&state.cartScope)
        default:
            break
        }
        state.notice = nil
        // A database still out of reach stays said, whatever the key.
        if state.screens.isWaitingForStorage { state.notice = Notice(.error, StorageError.unavailableMessage) }
        if state.isHelpShown {
            if action == .toggleHelp || action == .back { state.isHelpShown = false }
            return .none
        }
        if action == .toggleHelp, !state.isTakingText {
            state.isHelpShown = true
            return .none
        }
        // Keys every browsing screen shares, before the screen's own.
        if state.screen.isBrowsing, !state.isTakingText, let effect = navigation(&state, action, env) {
            return effect
        }
        switch state.screen {
        case .productList: return ProductListFeature.reduce(&state.productListScope, action, env)
        case .productDetail: return ProductDetailFeature.reduce(&state.productDetailScope, action, env)
        case .cart: return CartFeature.reduce(&state.cartScope, action, env)
        case .paymentSheet: return CheckoutFeature.reduceKey(&state.checkoutScope, action, env)
        case .confirmation: return ConfirmationFeature.reduce(&state.shell, action, env)
        case .orders: return OrdersFeature.reduce(&state.ordersScope, action, env)
        case .orderDetail: return OrdersFeature.reduceDetail(&state.ordersScope, action, env)
        case .account: return AccountFeature.reduce(&state.accountScope, action, env)
        case .form: return FormFeature.reduceKey(&state.formScope, action, env)
        case .cardLink: return CardLinkFeature.reduceKey(&state.cardLinkScope, action, env)
        case .merchantQueue, .merchantOrder, .merchantRefund, .merchantStock, .merchantSales:
            return MerchantFeature.reduceKey(&state.merchantScope, action, env)
        }
    }

    /// Keys every browsing screen shares: go to the shop, cart, orders or account. Nil when `action` is none of them.
    static func navigation(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect? {
        switch action {
        case .showShop: state.shell.goToShop()
        case .showCart: state.shell.show(.cart)
        case .showOrders: return OrdersFeature.open(&state.ordersScope, env)
        case .showAccount:
            // A new token's secret is shown once: coming back to the screen does not show it again.
            state.screens.account.newToken = nil
            state.shell.show(.account)
        default: return nil
        }
        return Effect.none
    }

    /// The screens of a finished purchase or order go with their place in the route: back in the shop, the
    /// "Thank you" and the order opened are dropped.
    private static func dropScreensLeftBehind(_ state: inout AppState) {
        if state.confirmation != nil, !state.route.contains(.confirmation) { state.screens.confirmation = nil }
        if state.orderDetail != nil, !state.route.contains(.orderDetail) {
            state.screens.orderDetail = nil
            state.screens.orderDetailEvents = []
            state.screens.orderCancel = nil
            state.screens.orderDetailMessages = []
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
