import LiveObjects
import ShopModels

/// The store: the shop as a pure Swift object, actions in, `StorefrontState` out through `onState`.
///
/// Order of calls for one action: `send` → `AppReducer.step` (the action, then whatever the
/// reducers' navigator and delegates posted meanwhile) → the effects it returned start as tracked
/// tasks → the state is published once, if it changed. Effects answer with actions that take the
/// same path. The first state is published before anything is read; `.opened` then reads the
/// saved cart, the wallet and the first products. It never draws, never reads a global and never
/// sleeps; `settled()` is how headless drivers know a key's effects are done.
@MainActor
public final class StorefrontViewModel {
    /// Everything the reducers keep, published and not.
    public private(set) var app: AppState
    /// The screens as last published: `app.screens` whenever no action is being handled.
    private var published: StorefrontState
    private let onState: (StorefrontState) -> Void
    private let environment: ShopEnvironment
    private let effects = EffectRunner()

    public init(dependencies: StorefrontDependencies, onState: @escaping (StorefrontState) -> Void) {
        let environment = ShopEnvironment(dependencies: dependencies)
        self.environment = environment
        self.onState = onState
        let initial = AppReducer.initialState(environment)
        self.app = initial
        self.published = initial.screens
        self.isAcceptingInput = initial.isAcceptingInput
        environment.mailbox.deliver = { [weak self] in self?.step($0) }
        onState(initial.screens)
        step(.opened)
    }

    /// What the screens show now: as last published, which every step brings up to date until `finish()`; made from
    /// the features' states only after it, so a frame drawn from it does not make them again.
    public var state: StorefrontState { isFinishing ? app.screens : published }

    /// How many sign-in sessions are kept live: none once each has ended.
    public var liveSignInCount: Int { environment.signIns.count }

    /// Handles one action and publishes the resulting state once, if it changed.
    public func send(_ action: Action) {
        step(.key(action))
    }

    /// False while a screen is on its way (the payment sheet being presented, a form being
    /// checked): keys typed now belong to what comes next, so hosts hold them until this is true again.
    /// Kept as each step ends: read before every key, and working it out from `app` there copied all of it.
    public private(set) var isAcceptingInput = true

    /// What `body` makes of the state the screens show, lent in place: a key is decoded against it before every
    /// key, and a copy would retain every string and array in it. `body` must not send actions (that traps).
    public func reading<Answer>(_ body: (borrowing StorefrontState) -> Answer) -> Answer {
        Self.lend(&published, to: body)
    }

    /// Waits until every effect started so far, and any effect they started, has finished.
    public func settled() async {
        await effects.settled()
    }

    /// Ends the shop: what is in flight is cancelled (nothing it answers would be shown), except the
    /// cart's writes, which are waited for, the last change included, so leaving loses nothing.
    /// Nothing is published from here: the screen may be gone.
    public func finish() async {
        isFinishing = true
        step(.key(.quit))
        await effects.finish(keeping: .cartSave)
    }

    /// Set by `finish()`: the host's screen is gone, so states are kept but no longer published.
    private var isFinishing = false

    private func step(_ action: AppAction) {
        let effect = AppReducer.step(&app, action, environment)
        effects.start(effect, send: environment.mailbox.send)
        guard !isFinishing, Self.publish(&app, over: &published, acceptingInput: &isAcceptingInput) else { return }
        onState(published)
    }

    // The state is worked on through `inout` from here: read through `self` around a call, the compiler copies it
    // whole first (every string and array in it retained and released), which put four copies into every key.

    /// Brings `published` up to `app`'s screens, in place, from the features' states; true when they changed.
    private static func publish(_ app: inout AppState, over published: inout StorefrontState, acceptingInput: inout Bool) -> Bool {
        let wasAccepting = acceptingInput
        acceptingInput = app.isAcceptingInput
        let changed = app.show(on: &published)
        // Input taken again with the screens unchanged (a signed-out shopper's empty cart read back empty) still
        // tells the host: keys typed meanwhile wait for that, and would wait for ever.
        return changed || (acceptingInput && !wasAccepting)
    }

    private static func lend<Answer>(_ state: inout StorefrontState, to body: (borrowing StorefrontState) -> Answer) -> Answer {
        body(state)
    }
}

extension StorefrontViewModel: LiveObject {}
