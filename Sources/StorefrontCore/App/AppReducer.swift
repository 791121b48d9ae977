import ShopLanguages
import ShopModels
import ShopPorts

/// The shop's root reducer: the keys every screen shares, help, the notice, and dispatch to the features, each given
/// its own scope of the state (`AppState.scope`, by key path). The merchant console is a root of its own
/// (`ConsoleReducer`); a store runs one or the other, by the shop's `console` dependency.
@MainActor
public enum AppReducer {
    /// The state a shop opens with, before anything is read: `.opened` reads the saved cart, the wallet and the first
    /// products (or the console's queue, in the console's root).
    public static func initialState(_ env: ShopEnvironment) -> AppState {
        if case .merchant(let name) = env.dependencies.console { return ConsoleReducer.initialState(env, merchant: name) }
        // The shopper's country's market, where their locale names a country the shop ships to.
        let env = env.inMarket(env.dependencies.region.flatMap { env.dependencies.markets?.market(country: $0) }?.id)
        let dependencies = env.dependencies
        let profile = env.shopProfile
        let account = dependencies.accounts.signedIn
        var state = AppState(
            shopName: profile.name, currency: profile.currency, customerID: account?.customerID ?? dependencies.accounts.guestID, signedIn: account)
        state.shell.notice = dependencies.accounts.launchNotice.map { Notice(.error, $0) }
        state.shell.language = dependencies.language
        state.shell.region = dependencies.region
        state.shell.market = env.market?.id
        state.pricedMarket = env.market?.id
        state.paymentMode = dependencies.paymentProvider.mode
        state.productList.list.isLoading = true
        if dependencies.carts == nil { state.cart.savedCart = [] }
        state.canCancelOrders = dependencies.backOffice != nil
        state.scope(\.account) { AccountFeature.refresh(&$0, env) }
        state.scope(\.cart) { CartFeature.showCart(&$0, env) }
        return state
    }

    /// One step of the store: `action`, then every action posted to the mailbox while it ran, then the screens
    /// others' state shows, the screens left behind dropped, and the cart's follow-up (a write or a stock check).
    public static func step(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        if state.merchant != nil { return ConsoleReducer.step(&state, action, env) }
        // The market is the state's: an action that moves it (an address in another market) is followed by its prices.
        var env = env.inMarket(state.shell.market)
        let derivedFrom = DerivedScreens.inputs(state)
        let wasWaitingForStorage = state.shell.isWaitingForStorage
        let screenBefore = state.screen
        var effect = reduceInStep(&state, action, env, reduce)
        env = env.inMarket(state.shell.market)
        // Back on the list from another screen, it is read again: a merchant's edit since shows at this screen change.
        if state.screen == .productList, screenBefore != .productList, state.productList.pending == nil {
            effect += state.scope(\.productList) { ProductListFeature.refresh(&$0, env) }
        }
        DerivedScreens.update(&state, since: derivedFrom, env)
        dropScreensLeftBehind(&state)
        if wasWaitingForStorage, !state.shell.isWaitingForStorage { state.scope(\.cart) { CartFeature.storageIsBack(&$0) } }
        return effect + state.scope(\.cart) { CartFeature.followUp(&$0, env) }
    }

    /// `action` by a root's `reduce`, then every action posted to the mailbox while it ran; each action a reduction
    /// sends is reduced in its place, depth first, as a call would have been.
    static func reduceInStep(
        _ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment, _ reduce: (inout AppState, AppAction, ShopEnvironment) -> Effect
    ) -> Effect {
        env.mailbox.isReducing = true
        defer { env.mailbox.isReducing = false }
        // What the shopper sees now, before this step changes it: a key may open a checkout that gives it back.
        state.noticeBeforeAction = state.shell.notice
        func withSends(_ action: AppAction) -> Effect {
            let env = env.inMarket(state.shell.market)
            var effect = followMarket(&state, env)
            for item in reduce(&state, action, env).items {
                if case .send(let sent) = item { effect += withSends(sent) } else { effect.items.append(item) }
            }
            return effect
        }
        var effect = withSends(action)
        while let next = env.mailbox.takeQueued() { effect += withSends(next) }
        return effect + followMarket(&state, env.inMarket(state.shell.market))
    }

    /// Prices what the shopper holds in the market the session moved to (its key, an address there): the cart's lines
    /// and the product on screen at once, from their prices in the shop's own currency; then the list is read again
    /// and the catalog confirms the cart's prices. Nothing is worked out in two currencies.
    static func followMarket(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        guard let markets = env.dependencies.markets, let market = env.market, state.pricedMarket != market.id else { return .none }
        state.pricedMarket = market.id
        if state.cart.cart.currency != market.currency {
            state.cart.cart = Cart(currency: market.currency, lines: state.cart.cart.lines.map { markets.line($0, in: market) })
        }
        if let page = state.productDetail.page { state.productDetail.page?.product = markets.product(page.product, in: market) }
        return state.scope(\.cart) { CartFeature.checkCatalog($0, env) }
            + state.scope(\.productList) { ProductListFeature.reload(&$0, env, keepSelection: true) }
    }

    /// Hands `action` to the feature that takes it, through that feature's reducer on its property; a feature's
    /// delegate asks go to the feature that does them.
    static func reduce(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .opened: return customerChanged(&state, env) + state.scope(\.productList) { ProductListFeature.reload(&$0, env, keepSelection: false) }
        case .key(let key): return reduceKey(&state, key, env)
        case .productList(.delegate(.openProduct(let product))): return state.run(\.productDetail, ProductDetailFeature.reducer, .open(product), env)
        case .productList(.delegate(.addToCart(let product))), .productDetail(.delegate(.addToCart(let product))):
            return state.run(\.cart, CartFeature.reducer, .add(product), env)
        case .productDetail(.delegate(.beginCheckout(let order))), .cart(.delegate(.beginCheckout(let order))),
            .subscriptions(.delegate(.beginCheckout(let order))):
            return state.run(\.checkout, CheckoutFeature.reducer, .begin(order), env)
        case .checkout(.delegate(.emptyCart)): return state.run(\.cart, CartFeature.reducer, .empty, env)
        case .checkout(.delegate(.repriceCart(let lines))): return state.run(\.cart, CartFeature.reducer, .reprice(lines), env)
        case .checkout(.delegate(.removeBoughtLines(let lines))): return state.run(\.cart, CartFeature.reducer, .removeBought(lines), env)
        case .checkout(.delegate(.addCard)), .account(.delegate(.addCard)):
            // The shop's provider decides: its card page, or the card form.
            guard env.dependencies.paymentProvider.cardCollection == .onTheProvidersPage else {
                return state.run(\.forms, FormFeature.reducer, .presentCardForm, env)
            }
            return state.run(\.cardLink, CardLinkFeature.reducer, .open, env)
        case .account(.delegate(.beginSignIn)): return state.run(\.signIn, SignInFeature.reducer, .begin, env)
        case .account(.delegate(.signOut)): return state.run(\.signIn, SignInFeature.reducer, .signOut, env)
        case .account(.delegate(.openSubscriptions)): return state.run(\.subscriptions, SubscriptionsFeature.reducer, .open, env)
        case .form(.delegate(.addedToWallet(let entry))), .cardLink(.delegate(.addedToWallet(let entry))):
            return state.run(\.account, AccountFeature.reducer, .reloadWallet, env)
                + state.run(\.checkout, CheckoutFeature.reducer, .entryAdded(entry), env)
        case .form(.delegate(.walletEntryCanceled(let purpose))), .cardLink(.delegate(.walletEntryCanceled(let purpose))):
            return state.run(\.checkout, CheckoutFeature.reducer, .entryCanceled(purpose), env)
        case .form(.delegate(.addCardOnProvidersPage)): return state.run(\.cardLink, CardLinkFeature.reducer, .open, env)
        case .form(.delegate(.showNewAPIToken(let secret, let name))):
            return state.run(\.account, AccountFeature.reducer, .showNewAPIToken(secret: secret, name: name), env)
        case .form(.delegate(.submitSignInPrompt(let form))): return state.run(\.signIn, SignInFeature.reducer, .submitPrompt(form), env)
        case .form(.delegate(.cancelSignInPrompt)): return state.run(\.signIn, SignInFeature.reducer, .cancelPrompt, env)
        case .form(.delegate(.applyDiscountCode(let typed))): return state.run(\.checkout, CheckoutFeature.reducer, .applyDiscountCode(typed), env)
        case .signIn(.delegate(.customerChanged(let leaving, let merging))):
            return state.run(\.cart, CartFeature.reducer, .handOver(leaving: leaving, mergingIntoNext: merging), env) + customerChanged(&state, env)
        case .productList(let action): return state.run(\.productList, ProductListFeature.reducer, action, env)
        case .productDetail(let action): return state.run(\.productDetail, ProductDetailFeature.reducer, action, env)
        case .cart(let action): return state.run(\.cart, CartFeature.reducer, action, env)
        case .checkout(let action): return state.run(\.checkout, CheckoutFeature.reducer, action, env)
        case .orders(let action): return state.run(\.orders, OrdersFeature.reducer, action, env)
        case .subscriptions(let action): return state.run(\.subscriptions, SubscriptionsFeature.reducer, action, env)
        case .account(let action): return state.run(\.account, AccountFeature.reducer, action, env)
        case .signIn(let action): return state.run(\.signIn, SignInFeature.reducer, action, env)
        case .cardLink(let action): return state.run(\.cardLink, CardLinkFeature.reducer, action, env)
        case .form(let action): return state.run(\.forms, FormFeature.reducer, action, env)
        // The console's own root takes these.
        case .merchant: return .none
        }
    }

    /// The shop opened, or the shopper became another customer: that customer's wallet, profile and saved cart are read.
    private static func customerChanged(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        state.run(\.cart, CartFeature.reducer, .restore, env) + state.run(\.account, AccountFeature.reducer, .reloadWallet, env)
    }

    private static func reduceKey(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        // What the host tells, not the shopper: the list's new size, a tick, the end.
        if case .viewportChanged(let rows) = action {
            state.listRowCapacity = max(1, rows)
            let list = state.scope(\.productList) { ProductListFeature.reload(&$0, env, keepSelection: true) }
            // The orders are read when their screen opens; reading them here would cost every start two queries.
            if state.screen == .orders || state.screen == .orderDetail { return list + state.scope(\.orders) { OrdersFeature.reload(&$0, env) } }
            return list
        }
        if action == .tick {
            if state.screens.isBusy { state.spinnerPhase &+= 1 }
            // While the database is away, a tick tries again what the shop needs from it: the products on screen.
            // A try still pending is left be, so a slow database is not asked again and again.
            guard state.shell.isWaitingForStorage, state.productList.pending == nil else { return .none }
            return state.scope(\.productList) { ProductListFeature.reload(&$0, env, keepSelection: true) }
        }
        if action == .quit {
            state.isQuitting = true
            return state.scope(\.cart) { CartFeature.quit(&$0) }
        }
        let isTakingText = state.isTakingText
        if helpAndNotice(&state, action, isTakingText: isTakingText) { return .none }
        // Keys every browsing screen shares, before the screen's own.
        if state.screen.isBrowsing, !isTakingText, let effect = navigation(&state, action, env) {
            return effect
        }
        // Each screen's feature takes the keys its own key enum names, and handles every one of them.
        switch state.screen {
        case .productList: return state.run(\.productList, ProductListFeature.reducer, .key(action), env)
        case .productDetail: return state.run(\.productDetail, ProductDetailFeature.reducer, .key(action), env)
        case .cart: return state.run(\.cart, CartFeature.reducer, .key(action), env)
        case .paymentSheet: return state.run(\.checkout, CheckoutFeature.reducer, .key(action), env)
        case .confirmation:
            guard let key = ConfirmationFeature.Action(action) else { return .none }
            return ConfirmationFeature.reduce(&state.shell, key, env)
        case .orders, .orderDetail: return state.run(\.orders, OrdersFeature.reducer, .key(action), env)
        case .account: return state.run(\.account, AccountFeature.reducer, .key(action), env)
        case .subscriptions: return state.run(\.subscriptions, SubscriptionsFeature.reducer, .key(action), env)
        case .form: return state.run(\.forms, FormFeature.reducer, .key(action), env)
        case .cardLink: return state.run(\.cardLink, CardLinkFeature.reducer, .key(action), env)
        case .merchantQueue, .merchantOrder, .merchantRefund, .merchantStock, .merchantSales, .merchantCatalog, .merchantDiscounts,
            .merchantSubscriptions, .merchantCustomers, .merchantCustomer:
            return .none
        }
    }

    /// What every root does with a key first: the notice goes (the database's outage stays said), and help opens and
    /// closes. True when the key was help's.
    static func helpAndNotice(_ state: inout AppState, _ action: Action, isTakingText: Bool) -> Bool {
        state.shell.notice = nil
        if state.shell.isWaitingForStorage { state.shell.notice = Notice(.error, StorageError.unavailableWords) }
        if state.isHelpShown {
            if action == .toggleHelp || action == .back { state.isHelpShown = false }
            return true
        }
        if action == .toggleHelp, !isTakingText {
            state.isHelpShown = true
            return true
        }
        return false
    }

    /// Where the keys every browsing screen shares go.
    enum BrowsingKey: FeatureKeys {
        case shop, cart, orders, account, language, market
        static let keys: [Action: Self] = [
            .showShop: .shop, .showCart: .cart, .showOrders: .orders, .showAccount: .account, .nextLanguage: .language, .nextMarket: .market,
        ]
    }

    /// Keys every browsing screen shares: go to the shop, cart, orders or account. Nil when `action` is none of them.
    static func navigation(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect? {
        guard let key = BrowsingKey(action) else { return nil }
        switch key {
        case .shop: state.shell.goToShop()
        case .cart:
            state.shell.show(.cart)
            // What the merchant changed since: the catalog is asked again each time the cart is shown.
            return state.scope(\.cart) { CartFeature.checkCatalog($0, env) }
        case .orders: return state.scope(\.orders) { OrdersFeature.open(&$0, env) }
        case .account:
            // A new token's secret is shown once: coming back to the screen does not show it again.
            state.account.screen.newToken = nil
            state.shell.show(.account)
        case .language:
            state.shell.language = nextLanguage(after: state.shell.language)
            state.shell.notice = Notice(.info, Localized("Language: \(state.shell.language.name). L changes it."))
            // An account keeps the choice: its next sessions open in it, wherever they come from.
            guard state.customer.signedIn != nil else { return Effect.none }
            let profiles = env.dependencies.accounts.profiles
            let saved = AccountProfile(customerID: state.customer.customerID, name: nil, email: nil, language: state.shell.language.tag)
            state.customer.profile?.language = saved.language
            return .run { _ in try? await profiles.save(saved) }
        case .market:
            guard let markets = env.dependencies.markets, markets.markets.count > 1 else {
                state.shell.notice = Notice(.info, "This shop sells in \(env.shopProfile.currency.code) alone.")
                return Effect.none
            }
            let index = markets.markets.firstIndex { $0.id == state.shell.market } ?? 0
            let next = markets.markets[(index + 1) % markets.markets.count]
            state.shell.market = next.id
            // Where the shopper writes is kept; a region of the market writes its money where the language's is not one.
            if let region = state.shell.region, markets.market(country: region)?.id != next.id { state.shell.region = nil }
            state.shell.notice = Notice(.info, "Prices in \(next.currency.code), for \(next.name). M changes the market.")
        }
        return Effect.none
    }

    /// The shipped language after `language`, round to the first; the test language steps to English.
    static func nextLanguage(after language: Language) -> Language {
        let shipped = Language.shipped
        guard let index = shipped.firstIndex(of: language) else { return shipped[0] }
        return shipped[(index + 1) % shipped.count]
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
