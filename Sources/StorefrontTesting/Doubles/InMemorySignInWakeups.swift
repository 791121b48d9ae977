import LiveObjects
import ShopPorts
import Synchronization

/// Wakeups within one process: a wait suspends until `wake` is called for its key (or its task is cancelled).
public final class InMemorySignInWakeups: SignInWakeups {
    private struct Waits {
        /// How many wakes each key had: a wake after the wait began, even before it suspended, is not lost.
        var wakes: [String: Int] = [:]
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let waits = Mutex(Waits())

    public init() {}

    public func wait(for key: String, check: @escaping @Sendable () async -> Bool) async throws {
        let seen = waits.withLock { $0.wakes[key, default: 0] }
        if await check() { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = waits.withLock { waits in
                    if waits.wakes[key, default: 0] != seen || Task.isCancelled { return true }
                    waits.waiting[key, default: []].append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            resumeAll(key)
        }
        try Task.checkCancellation()
    }

    public func wake(_ key: String) async {
        waits.withLock { $0.wakes[key, default: 0] += 1 }
        resumeAll(key)
    }

    private func resumeAll(_ key: String) {
        for continuation in waits.withLock({ $0.waiting.removeValue(forKey: key) ?? [] }) { continuation.resume() }
    }
}

extension InMemorySignInWakeups: LiveObject {}
