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
