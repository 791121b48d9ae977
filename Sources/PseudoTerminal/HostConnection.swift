import CPseudoTerminal
import Foundation
import LiveObjects

#if canImport(Glibc)
    import Glibc
#endif

/// One host process and the control socket to it; a reader thread hears its answers and the sessions' endings.
final class Connection: @unchecked Sendable {
    // @unchecked: `waiting`, `running`, `ended` and `nextRequest` are touched only under `lock`.
    let hostPID: pid_t
    private let control: Int32
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var nextRequest: UInt32 = 1
    /// Requests sent and not yet answered, each resumed by the reader thread or by its deadline, whichever is first.
    private var waiting: [UInt32: CheckedContinuation<HostedSession, Error>] = [:]
    private var running: [pid_t: SessionExit] = [:]
    private var ended = false
    init(control: Int32, hostPID: pid_t, log: @escaping @Sendable (String) -> Void) {
        self.control = control
        self.hostPID = hostPID
        self.log = log
        let thread = Thread { [self] in listen() }
        thread.stackSize = 128 * 1024
        thread.start()
    }

    var isAlive: Bool { lock.withLock { !ended } }

    /// Sends the request and suspends until the reader thread hears its answer; nothing blocks meanwhile, so a host
    /// that is alive but silent holds no thread.
    func start(arguments: [String], environment: [String: String], terminal: Int32, answerTimeout: Duration, worker: Bool = false) async throws
        -> HostedSession
    {
        var strings = [UInt8]()
        for text in arguments + environment.sorted(by: { $0.key < $1.key }).map({ "\($0.key)=\($0.value)" }) {
            guard !text.utf8.contains(0) else { throw PseudoTerminalError(message: "a session argument or environment value holds a NUL byte") }
            strings += Array(text.utf8) + [0]
        }
        return try await withCheckedThrowingContinuation { continuation in
            let request: UInt32? = lock.withLock {
                guard !ended else { return nil }
                defer { nextRequest &+= 1 }
                // Waiting before it is sent: the answer can come before `sf_session_host_request` returns.
                waiting[nextRequest] = continuation
                return nextRequest
            }
            guard let request else { return continuation.resume(throwing: PseudoTerminalError(message: "the session host ended")) }
            // The descriptor travels in the message: the kernel holds its own reference from here, so the caller may
            // close `terminal` as soon as this returns.
            let sent = strings.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    sf_session_host_request(
                        control, request, terminal, $0.baseAddress, $0.count, UInt32(arguments.count), UInt32(environment.count), worker ? 1 : 0)
                }
            }
            guard sent == 0 else {
                resume(request, with: .failure(PseudoTerminalError("sending the session host a request")))
                return
            }
            let (seconds, attoseconds) = answerTimeout.components
            let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
                resume(request, with: .failure(PseudoTerminalError(message: "the session host did not answer within \(answerTimeout)")))
            }
        }
    }

    /// Resumes the request's caller once: the first of its answer, its deadline and the host's end.
    /// Returns false when the caller had already been resumed.
    @discardableResult
    private func resume(_ request: UInt32, with result: Result<HostedSession, Error>) -> Bool {
        guard let continuation = lock.withLock({ waiting.removeValue(forKey: request) }) else { return false }
        continuation.resume(with: result)
        return true
    }

    func close() {
        // Shutting the socket down (the reader thread still holds it open) is what the host sees as its end.
        shutdown(control, Int32(SHUT_RDWR))
    }

    private func listen() {
        var message = sf_host_message()
        while sf_session_host_receive(control, &message) == 1 {
            switch message.kind {
            case 2:
                guard message.error == 0, message.pidfd >= 0 else {
                    if message.pidfd >= 0 { Glibc.close(message.pidfd) }
                    resume(message.request, with: .failure(PseudoTerminalError("the session host's fork", message.error)))
                    continue
                }
                let session = HostedSession(pid: message.pid, exit: SessionExit(pidfd: message.pidfd))
                lock.withLock { running[message.pid] = session.exit }
                if !resume(message.request, with: .success(session)) {
                    // Its caller gave up waiting and closed the pty: nobody would ever see this session.
                    log("session host: a fork answered after its request had timed out; ending it (pid \(message.pid))")
                    sf_pidfd_signal(session.exit.pidfd, SIGKILL)
                }
            case 3:
                let exit = lock.withLock { running.removeValue(forKey: message.pid) }
                exit?.finish(ProcessTermination(waitStatus: message.status))
            default:
                log("session host: an unknown message (\(message.kind)); closing the connection to it")
                shutdown(control, Int32(SHUT_RDWR))
            }
        }
        let (orphans, unanswered) = lock.withLock {
            ended = true
            defer { (running, waiting) = ([:], [:]) }
            return (running, waiting)
        }
        for continuation in unanswered.values { continuation.resume(throwing: PseudoTerminalError(message: "the session host ended")) }
        Glibc.close(control)
        let termination = ProgramStart.wait(for: hostPID)
        if !orphans.isEmpty || termination != .exited(0) {
            log("session host ended (\(termination)) with \(orphans.count) session(s) running; they go on until they end")
        }
        // Their host can no longer say how they end: each is watched through its pidfd instead.
        for exit in orphans.values { exit.watchWithoutHost() }
    }
}

extension Connection: LiveObject {}
