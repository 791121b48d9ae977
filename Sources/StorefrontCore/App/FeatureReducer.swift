import ShopModels

/// One feature on its own: what it reduces (its keys, and the answers its effects send) over its scope, so a store
/// of just that feature can run it with only the dependencies it uses, as TCA runs a child reducer alone.
///
/// Order of calls per action: `reduce` → the feature's own reducer → the effect to run, and what the feature asked of
/// others (`Effect.send`), which the app reducer would hand on in the same step and a feature's store records.
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

extension ProductListFeature {
    /// The product list alone: its keys and the catalog's answers.
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
    /// The product page alone: its keys.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            guard case .key(let key) = action, let action = Action(key) else { return .none }
            return reduce(&state, action, env)
        }
    }
}

extension CartFeature {
    /// The cart alone: its keys and its storage's answers.
    public static var reducer: FeatureReducer<Scoped<Owned>> {
        FeatureReducer { state, action, env in
            switch action {
            case .key(let key): Action(key).map { reduce(&state, $0, env) } ?? .none
            case .cart(let answer): reduce(&state, answer, env)
            case .request(.addToCart(let product)): add(&state, product, env)
            default: .none
            }
        }
    }
}

extension OrdersFeature {
    /// The orders screens alone: the list's or the opened order's keys, by the screen on top, and the answers.
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
