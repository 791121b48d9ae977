import CPseudoTerminal
import Foundation
import LiveObjects

#if canImport(Glibc)
    import Glibc
#endif

/// The process side of the session host: a server starts this program once with `variable` set, and each session
/// is then a fork of it instead of a new program.
///
/// Order of calls, at the very top of `main`, before any thread exists: `serveIfAsked` → (host) warm up, serve for
/// ever; (each forked session) returns its arguments, and the program runs them as it would its command line.
public enum SessionHost {
    /// Names the descriptor of the host's control socket; set only by `SessionHostClient.start`.
    public static let variable = "STOREFRONT_SESSION_HOST"

    /// In a session host: runs `warmUp`, then serves forks and never returns, except in each forked session, where it
    /// returns that session's arguments. In any other process, nil.
    public static func serveIfAsked(warmUp: () -> Void) -> [String]? {
        guard let value = getenv(variable), let control = Int32(String(cString: value)) else { return nil }
        unsetenv(variable)
        warmUp()
        // A fork copies only the calling thread: a lock another thread held would never be released in the child,
        // and libdispatch refuses to run in the child of a multithreaded process.
        let threads = sf_thread_count()
        guard threads == 1 else { fail("the session host has \(threads) threads after warming up and cannot fork safely", code: 70) }
        var request = sf_session_arguments()
        guard sf_session_host_serve(control, &request) == 0 else {
            fail("the session host cannot start: \(String(cString: strerror(errno)))", code: 71)
        }
        return (0..<Int(request.count)).map { String(cString: request.arguments[$0]!) }
    }

    /// Gives the heap's free pages back to the system: a session calls it once its start (whose decoding and
    /// queries leave freed memory behind) is done, so that it holds only what it keeps.
    public static func releaseFreeMemory() {
        sf_release_free_memory()
    }

    private static func fail(_ message: String, code: Int32) -> Never {
        let line = "storefront: \(message)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(code)
    }
}

/// A session started by the host: its pid (its worker's, for a session in a worker), and how it ends (with the pidfd
/// to signal it by, or its worker to ask).
struct HostedSession: Sendable {
    var pid: pid_t
    var exit: SessionExit
    /// Set for a session in a worker: signals and window changes go to the worker as messages.
    var worker: WorkerSessionControl?
}

/// A server's connection to its session host: asks it to fork sessions and hears how they end.
///
/// Order of calls: `start` (once, before taking connections) → `start(arguments:environment:terminal:)` per session →
/// `stop` at the end. A host that dies is replaced at the next session; its sessions run on until they end.
public final class SessionHostClient: @unchecked Sendable {
    // @unchecked: the mutable state lives in `Connection`s, each guarded by its own lock; `current` by `lock`.
    private let executable: String
    private let arguments: [String]
    private let environment: [String: String]
    private var timeout: Duration
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var current: Connection?
    /// Set when sessions share worker processes (`sessionsPerWorker` over 1).
    private(set) var workers: SessionWorkers?

    /// How long each next request waits for the fork's answer.
    public var answerTimeout: Duration {
        get { lock.withLock { timeout } }
        set { lock.withLock { timeout = newValue } }
    }

    private init(
        executable: String, arguments: [String], environment: [String: String], answerTimeout: Duration, log: @escaping @Sendable (String) -> Void
    ) {
        timeout = answerTimeout
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.log = log
    }

    /// Starts `executable` as a session host, given the `arguments` most sessions will run so that it can prepare
    /// them; its forks run with each request's own arguments and environment. A fork not answered within
    /// `answerTimeout` is refused, and ended should its answer come later.
    ///
    /// With `workers` of more than one session each, sessions run in worker processes the host forks, each holding up
    /// to that many; one session per worker is a process per session, as without.
    public static func start(
        executable: String, arguments: [String] = [], environment: [String: String], answerTimeout: Duration = .seconds(5),
        workers: WorkerPolicy = .processPerSession, log: @escaping @Sendable (String) -> Void
    ) throws -> SessionHostClient {
        let client = SessionHostClient(executable: executable, arguments: arguments, environment: environment, answerTimeout: answerTimeout, log: log)
        client.current = try client.connect()
        if workers.sessionsPerWorker > 1 {
            let pool = SessionWorkers(policy: workers, environment: environment, log: log) { [weak client] socket, workerEnvironment in
                guard let client else { throw PseudoTerminalError(message: "the session host was stopped") }
                return try await client.forkWorker(socket: socket, environment: workerEnvironment)
            }
            client.workers = pool
            pool.keepSpare()
        }
        return client
    }

    /// The sessions each worker process holds, or nil without workers.
    public var sessionsPerWorker: Int { workers?.policy.sessionsPerWorker ?? 1 }

    /// Forks a worker process that hosts sessions; `socket` becomes its descriptor 3.
    private func forkWorker(socket: Int32, environment: [String: String]) async throws -> HostedSession {
        let (connection, wait) = try liveConnection()
        return try await connection.start(
            arguments: [SessionWorkerLink.command], environment: environment, terminal: socket, answerTimeout: wait, worker: true)
    }

    private func liveConnection() throws -> (Connection, Duration) {
        try lock.withLock {
            if let current, current.isAlive { return (current, self.timeout) }
            if current != nil { log("session host: it had ended; starting a new one") }
            let fresh = try connect()
            current = fresh
            return (fresh, self.timeout)
        }
    }

    /// The host's pid, for logs and tests.
    public var hostPID: pid_t? {
        lock.withLock { current?.hostPID }
    }

    /// Asks the host to fork a session running `arguments` with `environment` on `terminal` (the pty's terminal side,
    /// which this call does not close). Suspends for the fork's answer, under a millisecond from a live host.
    func start(arguments: [String], environment: [String: String], terminal: Int32) async throws -> HostedSession {
        if let workers,
            let session = try await workers.start(arguments: arguments, environment: environment, terminal: terminal, answerTimeout: answerTimeout)
        {
            return session
        }
        let (connection, wait) = try liveConnection()
        return try await connection.start(arguments: arguments, environment: environment, terminal: terminal, answerTimeout: wait)
    }

    /// Whether the host is up, starting a new one when it had ended (as the next session would): what a readiness check
    /// asks, so a host that died is replaced before a load balancer hears of it. The host's pid, or why none.
    public func revive() -> Result<pid_t, any Error> {
        lock.withLock {
            if let current, current.isAlive { return .success(current.hostPID) }
            do {
                let fresh = try connect()
                current = fresh
                log("session host: it had ended; started a new one")
                return .success(fresh.hostPID)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Ends the host (its running sessions go on until they end) and waits for it.
    public func stop() {
        workers?.stop()
        lock.withLock { current }?.close()
    }

    /// The host's environment: `environment`, the control socket's descriptor, and two glibc tunables that a session's
    /// memory pays for (docs/BENCHMARKS.md, "A session's cost"): no stacks of ended threads kept (each ended dispatch
    /// thread left 8–24 KiB of written stack) and no per-thread caches of freed blocks (blocks one thread freed sat
    /// apart from the ones the others allocate; together about 230 KiB of a session's PSS, no key measurably slower).
    /// Forks inherit the host's glibc, which reads its tunables only when it starts.
    static func hostEnvironment(from environment: [String: String]) -> [String: String] {
        var host = environment
        host[SessionHost.variable] = "3"
        let sessionTunables = "glibc.pthread.stack_cache_size=0:glibc.malloc.tcache_count=0"
        host["GLIBC_TUNABLES"] = [environment["GLIBC_TUNABLES"], sessionTunables].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        return host
    }

    private func connect() throws -> Connection {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw PseudoTerminalError("socketpair")
        }
        defer { close(pair[1]) }
        let hostEnvironment = Self.hostEnvironment(from: environment)
        let pid: pid_t
        do {
            pid = try ProgramStart.spawn(
                executable, arguments: arguments, environment: hostEnvironment, descriptors: [pair[1]: 3], ownProcessGroup: true)
        } catch {
            close(pair[0])
            throw error
        }
        return Connection(control: pair[0], hostPID: pid, log: log)
    }
}

extension SessionHostClient: LiveObject {}
