import CustomDump
import IssueReporting
import LiveObjects
import ShopModels
import StorefrontCore

/// Drives the reducers one action at a time and asserts the whole state change of each. Exhaustive:
/// what a test does not assert fails it.
///
/// Order of calls: `await TestStore(dependencies:)` (the shop opens, and the answers of its first
/// reads are taken without asserting) → `send` an action with the change it should make →
/// `receive` each answer its effects send, in order, with the change that one makes → `finish()`.
///
/// Fails the test, with a diff where there is one:
/// - a state after `send` or `receive` that differs from the expected one (an unasserted change);
/// - an answer that arrives when another was expected, or none when one was;
/// - at `finish()`, an answer no `receive` took, or an effect still running (so `finish` never waits:
///   a test that means to leave work running says so with `skipInFlightEffects()`).
///
/// Nothing is published or drawn; the real store runs the same `AppReducer.step`.
@MainActor
public final class TestStore {
    public private(set) var state: AppState
    private let environment: ShopEnvironment
    private let effects = EffectRunner()
    private let received = ReceivedActions()

    /// A store whose shop has opened: the saved cart, the wallet and the first products are read, unasserted.
    public convenience init(dependencies: StorefrontDependencies) async {
        self.init(unopened: dependencies)
        await take(.opened)
    }

    /// A store before `.opened`: for a test of the opening itself.
    public init(unopened dependencies: StorefrontDependencies) {
        environment = ShopEnvironment(dependencies: dependencies)
        state = AppReducer.initialState(environment)
        environment.mailbox.deliver = { [weak self] in self?.received.actions.append($0) }
    }

    /// Sends `action`; `expect` turns the state before into the state expected after (it may read `state`, already reduced).
    public func send(
        _ action: Action, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expect: (inout AppState) throws -> Void = { _ in }
    ) rethrows {
        try step(.key(action), fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    /// Sends an action that is not a key (`.opened`, or an answer a test hands in itself), asserting its change.
    public func send(
        _ action: AppAction, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expect: (inout AppState) throws -> Void = { _ in }
    ) rethrows {
        try step(action, fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    /// Waits for `expected` from an effect and asserts the change it makes.
    ///
    /// Effects started together run at the same time (each port call leaves the main actor), so their
    /// answers are taken in the order the test names them; an answer that never comes, once every
    /// effect has ended, fails with a diff against the first one that did.
    public func receive(
        _ expected: AppAction, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expect: (inout AppState) throws -> Void = { _ in }
    ) async rethrows {
        guard let action = await received.take(expected, effects: effects, fileID: fileID, filePath: filePath, line: line, column: column)
        else { return }
        try step(action, fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    /// Brings the store to where a test starts: sends `actions` and takes every answer, asserting nothing.
    public func setUp(_ actions: Action...) async {
        for action in actions { await take(.key(action)) }
    }

    /// Work the test leaves running on purpose (a read held by a gate it never opens): cancelled and waited
    /// for (work that honours cancellation ends at once), so it is not a failure at `finish()`.
    public func skipInFlightEffects() async {
        effects.cancelAll()
        await effects.settled()
        received.actions.removeAll()
    }

    /// Fails the test for each answer no `receive` took and for effects still running; waits for nothing.
    public func finish(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) async {
        await received.finish(
            effects: effects, stillRunning: ": receive their answers, or call skipInFlightEffects().", fileID: fileID, filePath: filePath, line: line,
            column: column)
    }

    /// What `action` would do from `start`, without touching the store: the state after and whether an effect would run.
    public func outcome(of action: Action, from start: AppState) -> (state: AppState, startsEffect: Bool) {
        var after = start
        let effect = AppReducer.step(&after, .key(action), environment)
        return (after, !effect.isEmpty)
    }

    private func take(_ action: AppAction) async {
        effects.start(AppReducer.step(&state, action, environment), send: environment.mailbox.send)
        while true {
            await effects.settled()
            guard !received.actions.isEmpty else { break }
            let answer = received.actions.removeFirst()
            effects.start(AppReducer.step(&state, answer, environment), send: environment.mailbox.send)
        }
    }

    private func step(
        _ action: AppAction, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt, _ expect: (inout AppState) throws -> Void
    ) rethrows {
        var expected = state
        // Every step records what the shopper saw before it.
        expected.noticeBeforeAction = expected.notice
        let effect = AppReducer.step(&state, action, environment)
        effects.start(effect, send: environment.mailbox.send)
        try expect(&expected)
        expectNoDifference(
            state, expected, "The state after \(action) is not the one expected.", fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension TestStore: LiveObject {}
