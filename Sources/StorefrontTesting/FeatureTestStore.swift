import CustomDump
import IssueReporting
import LiveObjects
import StorefrontCore

/// A test store for one feature alone: its scope as the state, its reducer, and only the dependencies the test gives
/// it (the rest fail the test when called: `StorefrontDependencies.unimplemented`), as TCA's SyncUps tests make a
/// `TestStore` of one feature.
///
/// Order of calls: `FeatureTestStore(scope, reducer:, dependencies:)` → `send` a key with the change it makes →
/// `receive` each answer its effects send, and each `delegate` ask it made of the others (which the app would hand
/// on), in order → `finish()`. Exhaustive as `TestStore` is: an unasserted change, an answer or ask nobody received,
/// or work still running fails the test.
@MainActor
public final class FeatureTestStore<Scope: Equatable, Actions: FeatureAction> {
    public private(set) var state: Scope
    private let reducer: FeatureReducer<Scope, Actions>
    private let environment: ShopEnvironment
    private let effects = EffectRunner()
    private let received = ReceivedActions()

    public init(_ initial: Scope, reducer: FeatureReducer<Scope, Actions>, dependencies: StorefrontDependencies = .unimplemented()) {
        state = initial
        self.reducer = reducer
        environment = ShopEnvironment(dependencies: dependencies)
        environment.mailbox.deliver = { [weak self] in self?.received.actions.append($0) }
    }

    /// Sends an action that is not a key: an answer the test hands in, or what the app hands the feature.
    public func send(
        _ action: AppAction, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expect: (inout Scope) -> Void = { _ in }
    ) {
        step(action, fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    /// Waits for `expected`, an effect's answer or a delegate ask the feature made, and asserts the change it makes
    /// (none, for an ask, which the app hands to another feature).
    public func receive(
        _ expected: AppAction, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expect: (inout Scope) -> Void = { _ in }
    ) async {
        guard let action = await received.take(expected, effects: effects, fileID: fileID, filePath: filePath, line: line, column: column)
        else { return }
        step(action, fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    /// Fails the test for each answer or request no `receive` took and for effects still running; waits for nothing.
    public func finish(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) async {
        await received.finish(effects: effects, stillRunning: ".", fileID: fileID, filePath: filePath, line: line, column: column)
    }

    private func step(
        _ action: AppAction, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt, _ expect: (inout Scope) -> Void
    ) {
        guard let own = Actions(action) else {
            reportIssue("\(action) is another feature's action.", fileID: fileID, filePath: filePath, line: line, column: column)
            return
        }
        step(own, fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    fileprivate func step(
        _ action: Actions, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt, _ expect: (inout Scope) -> Void
    ) {
        var expected = state
        let (effect, sent) = reducer.reduce(&state, action, environment)
        received.actions += sent
        effects.start(effect, send: environment.mailbox.send)
        expect(&expected)
        expectNoDifference(
            state, expected, "The state after \(action) is not the one expected.", fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension FeatureTestStore where Actions: KeyedFeatureAction {
    /// Sends a key; `expect` turns the state before into the state expected after.
    public func send(
        _ key: Action, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        _ expect: (inout Scope) -> Void = { _ in }
    ) {
        step(Actions.key(key), fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }
}

extension FeatureTestStore: LiveObject {}
