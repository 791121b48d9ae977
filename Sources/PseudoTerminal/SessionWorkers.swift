import Foundation
import LiveObjects

#if canImport(Glibc)
    import Glibc
#endif

/// How sessions share worker processes.
public struct WorkerPolicy: Sendable, Equatable {
    /// Sessions each worker holds at once; 1 is a process of its own for each session (no workers at all).
    public var sessionsPerWorker: Int
    /// A worker takes no new session after this many, and ends once its last one has: what bounds its heap's growth.
    public var recycleAfterSessions: Int
    /// Nor after this long.
    public var recycleAfter: Duration

    public init(sessionsPerWorker: Int, recycleAfterSessions: Int = 1_000, recycleAfter: Duration = .seconds(6 * 3600)) {
        self.sessionsPerWorker = sessionsPerWorker
        self.recycleAfterSessions = recycleAfterSessions
        self.recycleAfter = recycleAfter
    }

    public static let processPerSession = WorkerPolicy(sessionsPerWorker: 1)

    /// What servers use unless told: chosen by measurement (docs/BENCHMARKS.md, "Sessions in workers").
    public static let defaultSessionsPerWorker = 128
}

/// A server's worker processes, each forked from the session host and holding up to `sessionsPerWorker` sessions, as
/// nginx's workers hold connections and unlike PostgreSQL's backend per connection: a crash ends one worker's
/// sessions, never more. One worker is kept spare, so no shopper waits on a fork; a worker that keeps crashing is
/// forked again only after a back-off; each is recycled after its share of sessions or its time.
///
/// Order of calls: `keepSpare` (at the server's start) → `start` per session → `stop` at the end.
final class SessionWorkers: @unchecked Sendable {
    // @unchecked: every mutable property is touched only under `lock`.
    let policy: WorkerPolicy
    private let environment: [String: String]
    private let log: @Sendable (String) -> Void
    private let fork: @Sendable (_ socket: Int32, _ environment: [String: String]) async throws -> HostedSession
    private let lock = NSLock()
    private var workers: [WorkerProcess] = []
    private var forkingSpare = false
    private var stopped = false
    /// When recent workers crashed, and until when no worker is forked because of it.
    private var crashes: [ContinuousClock.Instant] = []
    private var backOffUntil: ContinuousClock.Instant?

    init(
        policy: WorkerPolicy, environment: [String: String], log: @escaping @Sendable (String) -> Void,
        fork: @escaping @Sendable (_ socket: Int32, _ environment: [String: String]) async throws -> HostedSession
    ) {
        self.policy = policy
        self.environment = environment
        self.log = log
        self.fork = fork
    }

    /// Starts a session in a worker with room; nil when its terminal needs a process of its own (only curses draws it).
    func start(arguments: [String], environment: [String: String], terminal: Int32, answerTimeout: Duration) async throws -> HostedSession? {
        let worker = try await workerWithRoom(answerTimeout: answerTimeout)
        defer { keepSpare() }
        do {
            return try await worker.start(arguments: arguments, environment: environment, terminal: terminal, answerTimeout: answerTimeout)
        } catch let refusal as WorkerRefusal {
            worker.release()
            if refusal == .needsOwnProcess { return nil }
            throw PseudoTerminalError(message: "a session worker refused the session")
        } catch {
            worker.release()
            throw error
        }
    }

    /// Forks a spare worker unless one is ready (a worker with no session, never used: a used one ends when it empties),
    /// one is being forked, or crashes hold it back.
    func keepSpare() {
        let shouldFork: Bool = lock.withLock {
            recycle()
            guard !stopped, !forkingSpare, !workers.contains(where: { $0.isSpare }), !isBackingOff else { return false }
            forkingSpare = true
            return true
        }
        guard shouldFork else { return }
        Task {
            let forked = try? await forkWorker()
            lock.withLock { forkingSpare = false }
            if forked == nil { log("session workers: a spare worker could not be forked") }
            prepareSpareIfQuiet()
        }
    }

    /// With no session in any worker (a quiet server, where each worker ends with its last session), the spare opens what
    /// its sessions will share, so the next shopper waits on no database open. A busy server's spare stays as forked:
    /// its first session opens them, once a worker's worth of sessions, and it holds no storage meanwhile.
    private func prepareSpareIfQuiet() {
        let spares: [WorkerProcess] = lock.withLock { workers.allSatisfy(\.isSpare) ? workers : [] }
        for spare in spares { spare.prepare() }
    }

    /// Ends every worker once its sessions have ended (each is told its server is gone, and hangs them up).
    func stop() {
        let all: [WorkerProcess] = lock.withLock {
            stopped = true
            defer { workers = [] }
            return workers
        }
        for worker in all { worker.close() }
    }

    private var isBackingOff: Bool {
        backOffUntil.map { ContinuousClock.now < $0 } ?? false
    }

    /// The fullest worker that still has room (sessions are packed, so fewer workers hold them), its place taken.
    private func workerWithRoom(answerTimeout: Duration) async throws -> WorkerProcess {
        let deadline = ContinuousClock.now.advanced(by: answerTimeout)
        while true {
            let (found, waitUntil): (WorkerProcess?, ContinuousClock.Instant?) = lock.withLock {
                recycle()
                let open = workers.filter { $0.hasRoom(for: policy.sessionsPerWorker) }
                if let fullest = open.max(by: { $0.reserved < $1.reserved }) {
                    fullest.reserve()
                    return (fullest, nil)
                }
                return (nil, isBackingOff ? backOffUntil : nil)
            }
            if let found { return found }
            if let waitUntil {
                guard waitUntil < deadline else {
                    throw PseudoTerminalError(message: "session workers keep crashing; no new one is started until \(waitUntil - .now) from now")
                }
                try await Task.sleep(until: waitUntil)
                continue
            }
            // None with room: a new one, unless a session started meanwhile took it (then the loop looks again).
            let worker = try await forkWorker()
            let taken: Bool = lock.withLock {
                guard worker.hasRoom(for: policy.sessionsPerWorker) else { return false }
                worker.reserve()
                return true
            }
            if taken { return worker }
        }
    }

    /// Forks a worker and adds it to the pool.
    private func forkWorker() async throws -> WorkerProcess {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw PseudoTerminalError("socketpair")
        }
        defer { close(pair[1]) }
        var workerEnvironment = environment
        workerEnvironment[SessionWorkerLink.variable] = "3"
        let process: HostedSession
        do {
            process = try await fork(pair[1], workerEnvironment)
        } catch {
            close(pair[0])
            throw error
        }
        let worker = WorkerProcess(socket: pair[0], process: process, log: log, onIdle: { [weak self] in self?.idle($0) }) {
            [weak self] worker, termination, sessions in self?.ended(worker, termination, sessions: sessions)
        }
        let kept = lock.withLock {
            guard !stopped else { return false }
            workers.append(worker)
            return true
        }
        if !kept { worker.close() }
        return worker
    }

    /// Takes no new session into a worker past its share or its time; closes a drained one, which then exits.
    /// Called under `lock`.
    private func recycle() {
        let now = ContinuousClock.now
        for worker in workers where !worker.isDraining {
            if worker.startedCount >= policy.recycleAfterSessions || worker.born.duration(to: now) >= policy.recycleAfter {
                worker.drain()
            }
        }
        workers.removeAll { worker in
            guard worker.isDraining || !worker.isAlive, worker.reserved == 0 else { return false }
            worker.close()
            return true
        }
    }

    /// A worker's last session ended: it ends, and a fresh spare is forked unless one is ready, so what its sessions
    /// left in its heap (and a burst of shoppers' workers) is given back once they have gone, as a recycled worker's is.
    private func idle(_ worker: WorkerProcess) {
        let ends: Bool = lock.withLock {
            guard worker.isSpare else { return false }
            worker.drain()
            workers.removeAll { $0 === worker }
            return true
        }
        guard ends else { return }
        worker.close()
        keepSpare()
        prepareSpareIfQuiet()
    }

    private func ended(_ worker: WorkerProcess, _ termination: ProcessTermination, sessions: Int) {
        let crashed = !worker.wasKilledByServer && { if case .signalled = termination { true } else { false } }()
        lock.withLock {
            workers.removeAll { $0 === worker }
            guard crashed else { return }
            let now = ContinuousClock.now
            crashes = crashes.filter { $0.duration(to: now) < .seconds(60) } + [now]
            // Three crashes in a minute: wait 1 s before the next fork, doubling with each further one, up to a minute.
            if crashes.count >= 3 {
                let wait = Duration.seconds(min(60, 1 << min(crashes.count - 3, 6)))
                backOffUntil = now.advanced(by: wait)
                log("session workers: \(crashes.count) crashed in the last minute; the next is forked in \(wait)")
            }
        }
        if crashed {
            log("session worker \(worker.pid) crashed (\(termination)) with \(sessions) session(s); they were told")
        } else if sessions > 0 {
            log("session worker \(worker.pid) ended (\(termination)) with \(sessions) session(s)")
        }
        keepSpare()
        prepareSpareIfQuiet()
        // A spare held back by crashes is forked once the back-off ends, not at the next shopper's arrival.
        if let until = lock.withLock({ isBackingOff ? backOffUntil : nil }) {
            Task { [weak self] in
                try? await Task.sleep(until: until)
                self?.keepSpare()
            }
        }
    }
}

extension SessionWorkers: LiveObject {}
