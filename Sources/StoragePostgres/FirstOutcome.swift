import LiveObjects
import Synchronization

/// The first outcome of several racing tasks, handed to the one caller waiting for it; later outcomes are dropped.
///
/// A task group would wait, on leaving, for every child to end: a call whose driver did not heed its cancellation
/// would then outlive its own deadline, and the caller with it. Here the caller returns with the first outcome and the
/// others are only cancelled.
///
/// Order of calls: the racers start, each calling `finish` when done → the caller awaits `value()` once.
final class FirstOutcome<T: Sendable>: Sendable, LiveObject {
    private struct State {
        var outcome: Result<T, any Error>?
        var waiting: CheckedContinuation<T, any Error>?
    }

    private let state = Mutex(State())

    /// Settles the race with `outcome`, unless another settled it first.
    func finish(_ outcome: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(with: outcome)
    }

    /// The first outcome, once there is one; a cancelled caller gets `CancellationError` at once.
    func value() async throws -> T {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let settled: Result<T, any Error>? = state.withLock { state in
                    if state.outcome == nil { state.waiting = continuation }
                    return state.outcome
                }
                if let settled { continuation.resume(with: settled) }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }
}
