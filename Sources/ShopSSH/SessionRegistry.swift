import LiveObjects
import NIOCore
import Synchronization

/// A running session, reachable from any thread: an SSH channel's through its event loop, a joined one's directly.
struct SessionHandle: Sendable {
    let end: @Sendable (SessionEnding) -> Void
    let kill: @Sendable () -> Void

    init(end: @escaping @Sendable (SessionEnding) -> Void, kill: @escaping @Sendable () -> Void) {
        self.end = end
        self.kill = kill
    }

    init(handler: NIOLoopBound<SessionChannelHandler>) {
        self.init(
            end: { reason in handler.eventLoop.execute { handler.value.end(reason) } },
            kill: { handler.eventLoop.execute { handler.value.kill() } })
    }
}

/// The open sessions, numbered from 1, and who is waiting for them all to end.
final class SessionRegistry: Sendable {
    private struct State {
        var next = 1
        var open: [Int: SessionHandle] = [:]
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = Mutex(State())

    func add(_ handle: SessionHandle) -> Int {
        state.withLock { state in
            defer { state.next += 1 }
            state.open[state.next] = handle
            return state.next
        }
    }

    func remove(_ number: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.open[number] = nil
            guard state.open.isEmpty else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    var handles: [SessionHandle] { state.withLock { Array($0.open.values) } }

    /// Returns true once no session is open, or false when `timeout` passes first.
    func waitUntilEmpty(timeout: Duration, on loop: EventLoop) async -> Bool {
        await withCheckedContinuation { continuation in
            let waiter = state.withLock { state -> Int? in
                if state.open.isEmpty { return nil }
                defer { state.nextWaiter += 1 }
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let waiter else { return continuation.resume(returning: true) }
            // Whichever comes first, the last session ending or this, takes the waiter out and resumes it.
            loop.scheduleTask(in: TimeAmount(timeout)) {
                let timedOut = self.state.withLock { $0.waiters.removeValue(forKey: waiter) }
                timedOut?.resume(returning: false)
            }
        }
    }
}

extension SessionRegistry: LiveObject {}
