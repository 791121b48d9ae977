import ShopModels

/// One feature's reducer: every action of its own enum (its keys, its effects' answers, what the app hands it, and
/// its `delegate` asks, which it leaves to the app) over its scope. `AppReducer` runs it on the feature's property of
/// the app state; a store of just that feature runs it alone, with only the dependencies it uses, as TCA runs a child
/// reducer on its own.
///
/// Order of calls per action: `reduce` (or the app's `run`) → `body`, the feature's `reduce` → the effect, whose
/// `Effect.send`s a feature's store records and the app reduces in the same step.
public struct FeatureReducer<Scope, Action: FeatureAction> {
    let body: @MainActor (inout Scope, Action, ShopEnvironment) -> Effect

    /// Reduces `action` in `scope`: the work to start, and the actions the feature sent in its place.
    @MainActor
    public func reduce(_ scope: inout Scope, _ action: Action, _ env: ShopEnvironment) -> (effect: Effect, sent: [AppAction]) {
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
    mutating func run<Owned, Action>(
        _ path: WritableKeyPath<AppState, Owned>, _ reducer: FeatureReducer<Scoped<Owned>, Action>, _ action: Action, _ env: ShopEnvironment
    ) -> Effect {
        scope(path) { reducer.body(&$0, action, env) }
    }

    /// Runs `reducer` on the feature's property at `path`, with the customer the feature may change.
    @MainActor
    mutating func run<Owned, Action>(
        _ path: WritableKeyPath<AppState, Owned>, _ reducer: FeatureReducer<CustomerScoped<Owned>, Action>, _ action: Action,
        _ env: ShopEnvironment
    ) -> Effect {
        scope(path) { reducer.body(&$0, action, env) }
    }
}
