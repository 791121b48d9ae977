import ShopModels

/// One feature's reducer: every action it takes (its keys, the answers its effects send, and the requests other
/// features make of it) over its scope. `AppReducer` runs it on the feature's property of the app state; a store of just
/// that feature runs it alone, with only the dependencies it uses, as TCA runs a child reducer on its own.
///
/// Order of calls per action: `reduce` (or the app's `run`) → `body` → the feature's own reducer for that kind of
/// action → the effect, whose `Effect.send`s a feature's store records and the app reduces in the same step.
public struct FeatureReducer<Scope> {
    let body: @MainActor (inout Scope, AppAction, ShopEnvironment) -> Effect

    /// Reduces `action` in `scope`: the work to start, and the actions the feature sent in its place.
    @MainActor
    public func reduce(_ scope: inout Scope, _ action: AppAction, _ env: ShopEnvironment) -> (effect: Effect, sent: [AppAction]) {
        var effect = Effect()
        var sent: [AppAction] = []
        for item in body(&scope, action, env).items {
            if case .send(let action) = item { sent.append(action) } else { effect.items.append(item) }
        }
        return (effect, sent)
    }
}

extension AppState {
    /// Runs `reducer` on the feature's property at `path` (its scope made by key path).
    @MainActor
    mutating func run<Owned>(
        _ path: WritableKeyPath<AppState, Owned>, _ reducer: FeatureReducer<Scoped<Owned>>, _ action: AppAction, _ env: ShopEnvironment
    )
        -> Effect
    {
        scope(path) { reducer.body(&$0, action, env) }
    }

    /// Runs `reducer` on the feature's property at `path`, with the customer the feature may change.
    @MainActor
    mutating func run<Owned>(
        _ path: WritableKeyPath<AppState, Owned>, _ reducer: FeatureReducer<CustomerScoped<Owned>>, _ action: AppAction, _ env: ShopEnvironment
    ) -> Effect {
        scope(path) { reducer.body(&$0, action, env) }
    }
}

extension ProductListFeature {
    /// The product list: its keys and the catalog's answers.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): Action(key).map { reduce(&state, $0, env) } ?? .none
            case .productList(let answer): reduce(&state, answer, env)
            default: .none
            }
        }
    }
}

extension ProductDetailFeature {
    /// The product page: its keys, and the product to open.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): return Action(key).map { reduce(&state, $0, env) } ?? .none
            case .request(.openProduct(let product)): return open(&state, product, env)
            case .productDetail(.fresh(let product)): fresh(&state, product)
            default: break
            }
            return .none
        }
    }
}

extension CartFeature {
    /// The cart: its keys, its storage's answers, and what others ask of it (add, empty, hand over, restore).
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): return Action(key).map { reduce(&state, $0, env) } ?? .none
            case .cart(let answer): return reduce(&state, answer, env)
            case .request(.addToCart(let product)): return add(&state, product, env)
            case .request(.emptyCart): empty(&state)
            case .request(.removeBoughtLines(let lines)): removeBought(lines, &state)
            case .request(.repriceCart(let lines)): reprice(lines, &state)
            case .request(.handOverCart(let leaving, let merging)): return handOver(&state, leaving: leaving, mergingIntoNext: merging, env)
            case .request(.customerChanged): return restore(&state, env)
            default: break
            }
            return .none
        }
    }
}

extension OrdersFeature {
    /// The orders screens: the list's or the opened order's keys, by the screen on top, and the answers.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key) where state.shell.screen == .orderDetail: DetailAction(key).map { reduceDetail(&state, $0, env) } ?? .none
            case .key(let key): ListAction(key).map { reduce(&state, $0, env) } ?? .none
            case .orders(let answer): reduce(&state, answer, env)
            default: .none
            }
        }
    }
}

extension SubscriptionsFeature {
    /// The subscriptions screen: its keys, and the store's answers.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): Action(key).map { reduce(&state, $0, env) } ?? .none
            case .subscriptions(let answer): reduce(&state, answer, env)
            case .request(.openSubscriptions): open(&state, env)
            default: .none
            }
        }
    }
}

extension CheckoutFeature {
    /// Checkout: the sheet's keys, the controller's and the charge's answers, One-Tap's destinations, and the orders
    /// and wallet entries others hand it.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): return Action(key).map { reduceKey(&state, $0, env) } ?? .none
            case .checkout(let event): return reduce(&state, event, env)
            case .navigate(let destination): return navigate(&state, to: destination, env)
            case .request(.beginCheckout(let order)): return begin(&state, order, oneTap: false, env)
            case .request(.addedToWallet(.card(let card))): return entryAdded(card: card, &state, env)
            case .request(.addedToWallet(.address(let contact))): return entryAdded(contact: contact, &state, env)
            case .request(.walletEntryCanceled(let purpose)): entryCanceled(purpose, &state)
            case .request(.applyDiscountCode(let typed)): return submitDiscountCode(&state, typed, env)
            default: break
            }
            return .none
        }
    }
}

extension AccountFeature {
    /// The account screen: its keys, the wallet's reads, and the reads and tokens others ask for.
    public static var reducer: FeatureReducer<CustomerScoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): Action(key).map { reduce(&state, $0, env) } ?? .none
            case .wallet(let read): loaded(&state, read, env)
            case .request(.reloadWallet): reloadWallet(&state, env)
            case .request(.showNewAPIToken(let secret, let name)): showNewToken(&state, secret: secret, name: name, env)
            default: .none
            }
        }
    }
}

extension SignInFeature {
    /// Sign-in: its sessions' answers, and the requests that start, answer, leave or end it.
    public static var reducer: FeatureReducer<CustomerScoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .signIn(let event): reduce(&state, event, env)
            case .request(.beginSignIn): begin(&state, env)
            case .request(.signOut): signOut(&state, env)
            case .request(.submitSignInPrompt(let form)): submitPrompt(&state, form, env)
            case .request(.cancelSignInPrompt): cancelPrompt(&state, env)
            default: .none
            }
        }
    }
}

extension CardLinkFeature {
    /// The card page: its keys, the provider's answers, and the requests that open it.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): Action(key).map { reduceKey(&state, $0, env) } ?? .none
            case .cardLink(let event): reduce(&state, event, env)
            case .request(.addCard), .request(.addCardOnProvidersPage): open(&state, env)
            default: .none
            }
        }
    }
}

extension FormFeature {
    /// The form on top: its keys, its submission's answers, and the card form others ask for.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): return Action(key).map { reduceKey(&state, $0, env) } ?? .none
            case .form(let event): return reduce(&state, event, env)
            case .request(.addCard): presentCardForm(&state, env)
            default: break
            }
            return .none
        }
    }
}

extension MerchantFeature {
    /// The merchant console: its opening, its keys, the back office's answers, and its forms' submissions.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .opened: open(&state, env)
            case .key(let key): Action(key).map { reduceKey(&state, $0, env) } ?? .none
            case .merchant(let answer): reduce(&state, answer, env)
            case .request(.submitMerchantForm(let form)): submitForm(&state, form, env)
            default: .none
            }
        }
    }
}
