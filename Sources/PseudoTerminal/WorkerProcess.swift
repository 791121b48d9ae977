import CPseudoTerminal
import Foundation
import LiveObjects

#if canImport(Glibc)
    import Glibc
#endif

/// Why a worker did not take a session.
enum WorkerRefusal: Error, Equatable {
    case needsOwnProcess
    case failed(Int32)
}

/// What a server holds of a session in a worker: its signals and window changes go to the worker as messages.
struct WorkerSessionControl: Sendable {
    fileprivate let worker: WorkerProcess
    fileprivate let session: UInt32

    /// Asks the worker to end the session as `number` would end a process; false when the worker is gone. SIGKILL,
    /// which a process cannot refuse, ends the worker itself should the session still run a second later: a worker
    /// that cannot end one session (stopped, wedged) is ended with all of them.
    func signal(_ number: Int32) -> Bool {
        let sent = worker.send(kind: WorkerMessages.signal, session: session, signal: number)
        if number == SIGKILL { worker.killUnlessEnded(session, after: .seconds(1)) }
        return sent
    }

    /// Tells the worker the session's window changed (the pty's size is already set).
    func windowChanged() {
        _ = worker.send(kind: WorkerMessages.windowChanged, session: session)
    }
}

/// One worker process, as its server sees it: its socket, its sessions, and a reader thread that hears their starts
/// and ends. When the worker dies, every session it held ends as the worker did, so a crash reads as each session's.
final class WorkerProcess: @unchecked Sendable {
    // @unchecked: the mutable state is touched only under `lock`.
    let pid: pid_t
    let born = ContinuousClock.now
    private let socket: Int32
    private let process: HostedSession
    private let log: @Sendable (String) -> Void
    private let onEnd: @Sendable (WorkerProcess, ProcessTermination, Int) -> Void
    /// Called when its last session has ended and it takes sessions still: its pool keeps one such spare, no more.
    private let onIdle: @Sendable (WorkerProcess) -> Void
    private let lock = NSLock()
    private var nextSession: UInt32 = 1
    private var waiting: [UInt32: CheckedContinuation<HostedSession, any Error>] = [:]
    private var running: [UInt32: SessionExit] = [:]
    private var reservedPlaces = 0
    private var prepared = false
    private var started = 0
    private var draining = false
    private var ended = false
    private var killed = false

    /// The server ended it (a session that would not end): its end is no crash.
    var wasKilledByServer: Bool { lock.withLock { killed } }

    init(
        socket: Int32, process: HostedSession, log: @escaping @Sendable (String) -> Void, onIdle: @escaping @Sendable (WorkerProcess) -> Void,
        onEnd: @escaping @Sendable (WorkerProcess, ProcessTermination, Int) -> Void
    ) {
        self.onIdle = onIdle
        self.socket = socket
        self.process = process
        self.pid = process.pid
        self.log = log
        self.onEnd = onEnd
        let thread = Thread { [self] in listen() }
        thread.stackSize = 128 * 1024
        thread.start()
    }

    var isAlive: Bool { lock.withLock { !ended } }
    var isDraining: Bool { lock.withLock { draining } }
    /// Places taken: sessions running or being started.
    var reserved: Int { lock.withLock { reservedPlaces } }
    var startedCount: Int { lock.withLock { started } }
    /// Alive, taking sessions, and holding none: the spare a shopper is served by without waiting on a fork.
    var isSpare: Bool { lock.withLock { !ended && !draining && reservedPlaces == 0 } }

    func hasRoom(for capacity: Int) -> Bool {
        lock.withLock { !ended && !draining && reservedPlaces < capacity }
    }

    func reserve() { lock.withLock { reservedPlaces += 1 } }
    func release() { lock.withLock { reservedPlaces -= 1 } }
    func drain() { lock.withLock { draining = true } }

    /// Hands the session's terminal to the worker and suspends until it answers, or `answerTimeout` passes.
    func start(arguments: [String], environment: [String: String], terminal: Int32, answerTimeout: Duration) async throws -> HostedSession {
        let session: UInt32 = lock.withLock {
            defer { nextSession &+= 1 }
            return nextSession
        }
        let request = try WorkerMessages.request(kind: WorkerMessages.start, session: session, arguments: arguments, environment: environment)
        return try await withCheckedThrowingContinuation { continuation in
            let accepted: Bool = lock.withLock {
                guard !ended else { return false }
                waiting[session] = continuation
                return true
            }
            guard accepted else { return continuation.resume(throwing: PseudoTerminalError(message: "the session worker ended")) }
            do {
                try WorkerMessages.send(request, on: socket, descriptor: terminal)
            } catch {
                resume(session, with: .failure(error))
                return
            }
            let (seconds, attoseconds) = answerTimeout.components
            let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
                if resume(session, with: .failure(PseudoTerminalError(message: "the session worker did not answer within \(answerTimeout)"))) {
                    // It may still start the session: ask it to end it, as the host ends a fork answered too late.
                    _ = send(kind: WorkerMessages.signal, session: session, signal: SIGKILL)
                }
            }
        }
    }

    @discardableResult
    private func resume(_ session: UInt32, with result: Result<HostedSession, any Error>) -> Bool {
        guard let continuation = lock.withLock({ waiting.removeValue(forKey: session) }) else { return false }
        continuation.resume(with: result)
        return true
    }

    /// Asks the worker to open what its sessions will share, once, while none waits.
    func prepare() {
        let first: Bool = lock.withLock {
            defer { prepared = true }
            return !prepared
        }
        if first { _ = send(kind: WorkerMessages.prepare, session: 0) }
    }

    /// Sends a message about `session`; false when the worker is gone.
    func send(kind: UInt32, session: UInt32, signal: Int32 = 0) -> Bool {
        guard isAlive, let bytes = try? WorkerMessages.request(kind: kind, session: session, signal: signal) else { return false }
        return (try? WorkerMessages.send(bytes, on: socket)) != nil
    }

    /// Kills the worker process if `session` still runs after `delay`.
    func killUnlessEnded(_ session: UInt32, after delay: Duration) {
        let (seconds, attoseconds) = delay.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
            let stillRunning: Bool = lock.withLock {
                guard running[session] != nil else { return false }
                killed = true
                return true
            }
            guard stillRunning else { return }
            log("session worker \(pid): a session did not end when killed; ending the worker")
            _ = sf_pidfd_signal(process.exit.pidfd, SIGKILL)
        }
    }

    /// Tells the worker its server is gone: it hangs its sessions up and exits once they have ended.
    func close() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    private func listen() {
        var message = sf_host_message()
        while sf_session_host_receive(socket, &message) == 1 {
            switch message.kind {
            case WorkerMessages.started:
                if message.error != 0 {
                    let refusal: WorkerRefusal = message.error == WorkerMessages.needsOwnProcess ? .needsOwnProcess : .failed(message.error)
                    resume(message.request, with: .failure(refusal))
                    continue
                }
                let exit = SessionExit(pidfd: -1)
                let session = HostedSession(pid: pid, exit: exit, worker: WorkerSessionControl(worker: self, session: message.request))
                let counted: Bool = lock.withLock {
                    guard waiting[message.request] != nil else { return false }
                    running[message.request] = exit
                    started += 1
                    return true
                }
                if !counted || !resume(message.request, with: .success(session)) {
                    _ = send(kind: WorkerMessages.signal, session: message.request, signal: SIGKILL)
                }
            case WorkerMessages.ended:
                let (exit, empty, drained): (SessionExit?, Bool, Bool) = lock.withLock {
                    guard let exit = running.removeValue(forKey: message.request) else { return (nil, false, false) }
                    reservedPlaces -= 1
                    return (exit, reservedPlaces == 0, draining)
                }
                exit?.finish(ProcessTermination(waitStatus: message.status))
                // A recycled worker's last session has ended: told its server is gone, it exits.
                if empty, drained { close() } else if empty { onIdle(self) }
            default:
                log("session worker \(pid): an unknown message (\(message.kind)); closing the connection to it")
                shutdown(socket, Int32(SHUT_RDWR))
            }
        }
        let (orphans, unanswered) = lock.withLock {
            ended = true
            defer { (running, waiting) = ([:], [:]) }
            return (running, waiting)
        }
        for continuation in unanswered.values { continuation.resume(throwing: PseudoTerminalError(message: "the session worker ended")) }
        Glibc.close(socket)
        // How the worker ended is how each of its sessions did: a crash (a signal) is told to each shopper as theirs.
        process.exit.whenFinished { [self] termination in
            let told: ProcessTermination = if case .exited(0) = termination { .unknown } else { termination }
            for exit in orphans.values { exit.finish(told) }
            lock.withLock { reservedPlaces = 0 }
            onEnd(self, termination, orphans.count)
        }
    }
}

extension WorkerProcess: LiveObject {}
