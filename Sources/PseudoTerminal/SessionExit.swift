import CPseudoTerminal
import Foundation
import LiveObjects

#if canImport(Glibc)
    import Glibc
#endif

/// How a session ended, once the host has said; heard by callbacks, never waited for by blocking.
final class SessionExit: @unchecked Sendable {
    // @unchecked: `pidfd` is immutable; every other stored property is read and written only under `lock`.
    /// Names the session's process for signals, race-free: a pid may be reused once the host reaps it.
    let pidfd: Int32
    private let lock = NSLock()
    private var termination: ProcessTermination?
    private var waiters: [@Sendable (ProcessTermination) -> Void] = []

    init(pidfd: Int32) {
        self.pidfd = pidfd
    }

    deinit {
        // A session in a worker has no process of its own, and no pidfd.
        if pidfd >= 0 { close(pidfd) }
    }

    func finish(_ ending: ProcessTermination) {
        let callbacks: [@Sendable (ProcessTermination) -> Void]? = lock.withLock {
            guard termination == nil else { return nil }
            termination = ending
            defer { waiters = [] }
            return waiters
        }
        for callback in callbacks ?? [] { callback(ending) }
    }

    /// For a session whose host has died: its end, told by its pidfd; how it ended only its new parent (init) hears.
    func watchWithoutHost() {
        let thread = Thread { [self] in
            sf_pidfd_wait(pidfd)
            finish(.unknown)
        }
        thread.stackSize = 64 * 1024
        thread.start()
    }

    func whenFinished(_ body: @escaping @Sendable (ProcessTermination) -> Void) {
        let ended: ProcessTermination? = lock.withLock {
            if termination == nil { waiters.append(body) }
            return termination
        }
        if let ended { body(ended) }
    }
}

/// Whether a process, any, not only a child, ends within `timeout`: what a test waits for where a log says nothing.
public func processEnds(_ pid: pid_t, within timeout: Duration) -> Bool {
    let (seconds, attoseconds) = timeout.components
    return sf_process_ended_within(pid, Int32(seconds * 1_000 + attoseconds / 1_000_000_000_000_000)) == 1
}

extension SessionExit: LiveObject {}
