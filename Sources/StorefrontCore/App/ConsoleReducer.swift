import ShopLanguages
import ShopModels
import ShopPorts

/// The merchant console's root (`storefront admin`): its screens, the back office's answers and its forms. It sells
/// nothing, so no shop feature runs in it and nothing of a cart, wallet or catalog is read.
@MainActor
enum ConsoleReducer {
    /// The console as it opens: on the queue, taking keys at once; `.opened` reads the queue.
    static func initialState(_ env: ShopEnvironment, merchant name: String) -> AppState {
        let accounts = env.dependencies.accounts
        var state = AppState(
            shopName: env.shopProfile.name, currency: env.shopProfile.currency, customerID: accounts.signedIn?.customerID ?? accounts.guestID,
            signedIn: accounts.signedIn)
        state.shell.notice = accounts.launchNotice.map { Notice(.error, $0) }
        state.shell.route = [.merchantQueue]
        state.merchant = MerchantFeature.Owned(console: MerchantConsoleState(merchantName: name))
        state.account.shopperLabel = "merchant \(name)"
        state.paymentMode = env.dependencies.paymentProvider.mode
        state.cart.savedCart = []
        state.productList.isOpening = false
        return state
    }

    /// One step of the console's store: `action`, then whatever was posted meanwhile.
    static func step(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        AppReducer.reduceInStep(&state, action, env, reduce)
    }

    static func reduce(_ state: inout AppState, _ action: AppAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .opened: state.run(\.console, MerchantFeature.reducer, .opened, env)
        case .key(let key): reduceKey(&state, key, env)
        case .merchant(let action): state.run(\.console, MerchantFeature.reducer, action, env)
        case .form(.delegate(.submitMerchantForm(let form))): state.run(\.console, MerchantFeature.reducer, .submitForm(form), env)
        case .form(let action): state.run(\.forms, FormFeature.reducer, action, env)
        case .productList, .productDetail, .cart, .checkout, .orders, .subscriptions, .account, .signIn, .cardLink: .none
        }
    }

    private static func reduceKey(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if case .viewportChanged(let rows) = action {
            state.listRowCapacity = max(1, rows)
            return state.screen == .merchantQueue ? state.scope(\.console) { MerchantFeature.reloadQueue(&$0, env) } : .none
        }
        if action == .tick {
            if state.screens.isBusy { state.spinnerPhase &+= 1 }
            return .none
        }
        if action == .quit {
            state.isQuitting = true
            return .none
        }
        if AppReducer.helpAndNotice(&state, action, isTakingText: state.isTakingText) { return .none }
        switch state.screen {
        case .form: return state.run(\.forms, FormFeature.reducer, .key(action), env)
        case .merchantQueue, .merchantOrder, .merchantRefund, .merchantStock, .merchantSales, .merchantCatalog, .merchantDiscounts,
            .merchantSubscriptions, .merchantCustomers, .merchantCustomer:
            return state.run(\.console, MerchantFeature.reducer, .key(action), env)
        case .productList, .productDetail, .cart, .paymentSheet, .confirmation, .orders, .orderDetail, .account, .subscriptions, .cardLink:
            return .none
        }
    }
}
