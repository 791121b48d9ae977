import CustomDump
import IssueReporting
import LiveObjects
import StorefrontCore

/// What a test store's effects sent (and, for a feature alone, what it asked of others), waiting for the test to
/// receive it: one place for the waiting and the failures both stores share.
@MainActor
final class ReceivedActions {
    var actions: [AppAction] = []

    /// Waits until `expected` has arrived, or every effect has ended, and takes it; reports what came instead.
    func take(_ expected: AppAction, effects: EffectRunner, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) async
        -> AppAction?
    {
        while !actions.contains(expected), await effects.settleOne() {}
        guard let index = actions.firstIndex(of: expected) else {
            if let first = actions.first {
                expectNoDifference(first, expected, "A different action arrived.", fileID: fileID, filePath: filePath, line: line, column: column)
            } else {
                reportIssue(
                    "Expected to receive \(expected), but nothing was sent.", fileID: fileID, filePath: filePath, line: line, column: column)
            }
            return nil
        }
        return actions.remove(at: index)
    }

    /// Fails the test for each action not taken and for effects still running (`stillRunning` says what to do about
    /// them); waits for nothing, after giving work that needs only its turn on the main actor that turn.
    func finish(effects: EffectRunner, stillRunning: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) async {
        for _ in 0..<3 where !effects.isIdle { await Task.yield() }
        for action in actions {
            reportIssue("\(action) was sent, and the test did not receive it.", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        actions.removeAll()
        if !effects.isIdle {
            reportIssue(
                "\(effects.runningCount) effect(s) were still running when the test finished\(stillRunning)", fileID: fileID, filePath: filePath,
                line: line, column: column)
            effects.cancelAll()
        }
    }
}

extension ReceivedActions: LiveObject {}
