import CustomDump
import IssueReporting
import StoreModels
import StorefrontCore

/// Drives the reducers one action at a time and asserts the whole state change of each.
///
/// Order of calls: `send` a key's action with the change it should make → `receive` each answer
/// its effects send, in order, with the change that one makes → `finish()`, which fails the test
/// when an answer was left unreceived. Nothing is published or drawn; the real store runs the same
/// `AppReducer.step`.
@MainActor
public final class TestStore {
    public private(set) var state: AppState
    private let environment: ShopEnvironment
    private let effects = EffectRunner()
    private var received: [AppAction] = []

    public init(dependencies: StorefrontDependencies) {
        environment = ShopEnvironment(dependencies: dependencies)
        state = AppReducer.initialState(environment)
        environment.mailbox.deliver = { [weak self] in self?.received.append($0) }
    }

    /// Sends `action`; `expect` turns the state before into the state expected after (it may read `state`, already reduced).
    public func send(_ action: Action, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column, _ expect: (inout AppState) throws -> Void = { _ in }) rethrows {
        try step(.key(action), fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    /// Waits for the next action an effect sent, checks it is `expected`, and asserts the change it makes.
    public func receive(_ expected: AppAction, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column, _ expect: (inout AppState) throws -> Void = { _ in }) async rethrows {
        while received.isEmpty, await effects.settleOne() {}
        guard !received.isEmpty else {
            reportIssue("Expected to receive \(expected), but no effect sent anything.", fileID: fileID, filePath: filePath, line: line, column: column)
            return
        }
        let action = received.removeFirst()
        expectNoDifference(action, expected, "A different action arrived.", fileID: fileID, filePath: filePath, line: line, column: column)
        try step(action, fileID: fileID, filePath: filePath, line: line, column: column, expect)
    }

    /// Brings the store to where a test starts: sends `actions` and takes every answer, asserting nothing.
    public func setUp(_ actions: Action...) async {
        for action in actions {
            effects.start(AppReducer.step(&state, .key(action), environment), send: environment.mailbox.send)
            while true {
                await effects.settled()
                guard !received.isEmpty else { break }
                let answer = received.removeFirst()
                effects.start(AppReducer.step(&state, answer, environment), send: environment.mailbox.send)
            }
        }
    }

    /// Waits for every effect, and fails the test for each answer no `receive` took.
    public func finish(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) async {
        await effects.settled()
        for action in received {
            reportIssue("An effect sent \(action), which the test did not receive.", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        received.removeAll()
    }

    /// What `action` would do from `start`, without touching the store: the state after and whether an effect would run.
    public func outcome(of action: Action, from start: AppState) -> (state: AppState, startsEffect: Bool) {
        var after = start
        let effect = AppReducer.step(&after, .key(action), environment)
        return (after, !effect.isEmpty)
    }

    private func step(_ action: AppAction, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt, _ expect: (inout AppState) throws -> Void) rethrows {
        var expected = state
        // Every step records what the shopper saw before it.
        expected.noticeBeforeAction = expected.notice
        let effect = AppReducer.step(&state, action, environment)
        effects.start(effect, send: environment.mailbox.send)
        try expect(&expected)
        expectNoDifference(state, expected, "The state after \(action) is not the one expected.", fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
