import CPseudoTerminal
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A session a worker runs on a terminal another process holds (sshd's, handed over through the join socket).
public struct JoinedSession: Sendable {
    fileprivate let hosted: HostedSession

    /// The worker's pid, for logs.
    public var pid: pid_t { hosted.pid }

    /// Tells the worker the terminal's window changed; it reads the new size from the terminal.
    public func windowChanged() { hosted.worker?.windowChanged() }

    /// Ends the session as `number` would end a process of its own; false when its worker is gone.
    @discardableResult
    public func signal(_ number: Int32) -> Bool { hosted.worker?.signal(number) ?? false }

    /// Calls `body` once the session has ended.
    public func whenEnded(_ body: @escaping @Sendable (ProcessTermination) -> Void) { hosted.exit.whenFinished(body) }
}

extension SessionHostClient {
    /// Starts a session of `arguments` with `environment` in a worker, on `terminal` (which this call does not close);
    /// nil when sessions here do not share workers or this terminal's type needs a process of its own.
    public func join(arguments: [String], environment: [String: String], terminal: Int32) async throws -> JoinedSession? {
        guard let workers else { return nil }
        guard let session = try await workers.start(arguments: arguments, environment: environment, terminal: terminal, answerTimeout: answerTimeout)
        else { return nil }
        return JoinedSession(hosted: session)
    }
}

extension SessionJoin {
    /// How a hand-over went, as the joiner hears it.
    public enum HandOver: Equatable, Sendable {
        /// The server will not take it: the joiner runs the shop itself.
        case ownProcess
        case refused(String)
        case ended(ProcessTermination, message: String?)
        /// The server went away while the session ran there.
        case serverGone
    }

    /// Hands this process's `terminal` to the server on `socket` with `environment`, then waits while the session
    /// runs there, passing on window changes (SIGWINCH) and hang-ups (SIGHUP, SIGTERM). The terminal's modes are put
    /// back as they were on every return. Signals the shop's keys could raise are off while it runs: its Ctrl-C is a
    /// key, not this process's end.
    public static func handOver(terminal: Int32, environment: [String: String], on socket: Int32) -> HandOver {
        let signals = sf_joiner_signals()
        defer { sf_joiner_signals_end(signals) }
        var original = termios()
        let hasModes = tcgetattr(terminal, &original) == 0
        if hasModes {
            var modes = original
            modes.c_lflag &= ~tcflag_t(ISIG)
            modes.c_iflag |= tcflag_t(IUTF8)
            tcsetattr(terminal, TCSANOW, &modes)
        }
        defer { if hasModes { tcsetattr(terminal, TCSANOW, &original) } }
        do {
            try send(.join(environment: environment, terminal: terminal), on: socket)
        } catch {
            return .ownProcess
        }
        var running = false
        while true {
            var ready = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            // Until the server answers, a bound: a server that took the connection and hangs is left for a shop of our own.
            let count = poll(&ready, signals >= 0 ? 2 : 1, running ? -1 : 30_000)
            if count == 0 || (count < 0 && errno != EINTR) { return running ? .serverGone : .ownProcess }
            if count < 0 { continue }
            if ready[1].revents != 0 {
                while case let number = sf_next_signal(signals), number != 0 {
                    if number == SIGWINCH { try? send(.windowChanged, on: socket) }
                    if number == SIGHUP || number == SIGTERM { try? send(.hangUp(signal: number), on: socket) }
                }
            }
            guard ready[0].revents != 0 else { continue }
            switch receiveReply(on: socket) {
            case .nothing: continue
            case .message(.started): running = true
            case .message(.ownProcess): return .ownProcess
            case .message(.refused(let why)): return .refused(why)
            case .message(.ended(let termination, let message)): return .ended(termination, message: message)
            case .gone, .malformed: return running ? .serverGone : .ownProcess
            }
        }
    }
}
