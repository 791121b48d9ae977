import Foundation
import Logging
import PostgresNIO
import StoreClients
import Synchronization
import _ConnectionPoolModule

/// The shop's PostgreSQL: one `PostgresClient` (a small pool) per process, and the blocking
/// calls the synchronous storage ports are made of.
///
/// Order of calls: `connect(_:pool:)` → `migrate()` (or `checkSchema()` where the process must not
/// write the schema) → the stores call `call`/`transaction` → `close()` before the process ends.
public final class PostgresStore: Sendable {
    /// How many connections this process may hold, and how long an idle one is kept.
    public struct Pool: Sendable {
        public var maximumConnections: Int
        /// A connection unused this long is closed, so a shopper who is only looking holds none.
        public var idleTimeout: Duration
        /// While the server is down, calls fail at once, and one call at most this often tries it again.
        public var probeInterval: Duration
        public init(maximumConnections: Int, idleTimeout: Duration, probeInterval: Duration = .seconds(1)) {
            self.maximumConnections = maximumConnections
            self.idleTimeout = idleTimeout
            self.probeInterval = probeInterval
        }

        /// One shopper's process: one connection at a time, given back after two idle seconds.
        public static let session = Pool(maximumConnections: 1, idleTimeout: .seconds(2))
        /// A command or `serve` itself: a few connections, kept while work comes.
        public static let command = Pool(maximumConnections: 4, idleTimeout: .seconds(30))
    }

    public let location: PostgresLocation
    private let pool: Pool
    private let logger: Logger
    private let state: Mutex<Connections>
    /// How long one call may wait for a connection and its answer before the store counts as unreachable.
    let callTimeout: Duration
    /// A call still waiting after this long makes the store ask the server directly whether it is there.
    static let probeAfter = Duration.seconds(1)

    /// The pool in use, and what is known of an outage.
    private struct Connections {
        var client: PostgresClient
        var runner: Task<Void, Never>
        /// When the last call found the server down, if it has not answered since.
        var down: ContinuousClock.Instant?
        var lastProbe: ContinuousClock.Instant?
    }

    private init(location: PostgresLocation, pool: Pool, logger: Logger) throws(PostgresStoreError) {
        self.location = location
        self.pool = pool
        self.logger = logger
        self.callTimeout = .seconds(location.connectTimeout + 5)
        let (client, runner) = try Self.startPool(location, pool: pool, logger: logger)
        state = Mutex(Connections(client: client, runner: runner))
    }

    /// Starts the client; no connection is opened until the first call. The driver's own log
    /// lines (each failed connection attempt) go to `logger`, silent by default.
    public static func connect(_ location: PostgresLocation, pool: Pool, logger: Logger = PostgresStore.quiet) throws(PostgresStoreError) -> PostgresStore {
        try PostgresStore(location: location, pool: pool, logger: logger)
    }

    private static func startPool(_ location: PostgresLocation, pool: Pool, logger: Logger) throws(PostgresStoreError) -> (PostgresClient, Task<Void, Never>) {
        var configuration: PostgresClient.Configuration
        do {
            configuration = try location.clientConfiguration()
        } catch {
            throw .configuration(error.description)
        }
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = pool.maximumConnections
        configuration.options.connectionIdleTimeout = pool.idleTimeout
        configuration.options.keepAliveBehavior = nil
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // The client's background work runs on the store's own executor, so a thread blocked in
        // `call` (the main thread, or a task's) never starves it.
        let runner = Task(executorPreference: CallExecutor.shared) { await client.run() }
        return (client, runner)
    }

    /// Closes every connection; calls after this fail.
    public func close() {
        state.withLock { $0.runner.cancel() }
    }

    deinit { state.withLock { $0.runner.cancel() } }

    /// Whether the last call found the server down (and none has reached it since).
    public var isDown: Bool { state.withLock { $0.down != nil } }

    /// Runs `body` against the pool and waits for it. The driver's and the pool's failures become
    /// `PostgresStoreError`s; errors `body` throws itself pass through as they are.
    ///
    /// While the server is down a call fails at once, except one a second, which asks the server
    /// directly and, when it answers, starts a fresh pool (the old one may still be backing off).
    func call<T: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresClient) async throws -> T) throws -> T {
        let client = try clientForCall()
        do {
            return try wait(timeout: timeout, probing: true) { try await body(client) }
        } catch let error as PostgresStoreError where error.isUnreachable {
            state.withLock { $0.down = $0.down ?? .now }
            throw error
        }
    }

    private func clientForCall() throws -> PostgresClient {
        let now = ContinuousClock.now
        let pool = pool
        let (client, down, probeDue) = state.withLock { connections in
            let due = connections.lastProbe.map { now - $0 >= pool.probeInterval } ?? true
            if connections.down != nil, due { connections.lastProbe = now }
            return (connections.client, connections.down, due)
        }
        guard let down else { return client }
        guard probeDue else {
            throw PostgresStoreError.unreachable(location: location.description, reason: "down for \((now - down).formatted(.units(allowed: [.seconds], width: .narrow)))")
        }
        try probe()
        let (fresh, runner) = try Self.startPool(location, pool: pool, logger: logger)
        return state.withLock { connections in
            connections.runner.cancel()
            connections = Connections(client: fresh, runner: runner)
            return fresh
        }
    }

    /// One connection of its own and `SELECT 1`: throws `.unreachable` at once when the server refuses connections.
    private func probe() throws {
        _ = try direct(timeout: .seconds(location.connectTimeout + 1)) { connection in
            try await connection.query("SELECT 1", logger: Self.quiet).collect().count
        }
    }

    /// Runs `body` on a connection of its own, outside the pool, then closes it. Startup work goes
    /// this way: a refused login or a server that is down is told at once, not after the pool's retries.
    func direct<T: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) throws -> T {
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try location.connectionConfiguration()
        } catch {
            throw PostgresStoreError.configuration(error.description)
        }
        return try wait(timeout: timeout) {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: Self.quiet)
            do {
                let result = try await body(connection)
                try? await connection.close()
                return result
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }

    /// Waits for `operation`, run on the store's executor, for at most `timeout` (the call timeout by default).
    ///
    /// `probing`: once the operation has waited `probeAfter`, the server is asked directly; a pool
    /// waiting on a server that refuses connections would otherwise wait out its own backoff.
    private func wait<T: Sendable>(timeout: Duration?, probing: Bool = false, _ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let rendezvous = Rendezvous<Result<T, any Error>>()
        let task = Task(executorPreference: CallExecutor.shared) {
            do {
                rendezvous.put(.success(try await operation()))
            } catch {
                rendezvous.put(.failure(error))
            }
        }
        let limit = timeout ?? callTimeout
        var result = rendezvous.wait(for: probing ? min(Self.probeAfter, limit) : limit)
        if result == nil, probing {
            do {
                try probe()
            } catch {
                rendezvous.put(.failure(error))
            }
            result = rendezvous.wait(for: limit - Self.probeAfter)
        }
        guard let result else {
            task.cancel()
            throw PostgresStoreError.unreachable(location: location.description, reason: "no answer within \(limit)")
        }
        if case .failure = result { task.cancel() }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw PostgresStoreError.translate(error, location: location)
        }
    }

    /// Runs `body` in one READ COMMITTED transaction and commits it, retrying the whole
    /// transaction when the server broke a deadlock or a serialization conflict by aborting it.
    func transaction<T: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try call(timeout: timeout) { client in
                    try await client.withTransaction(logger: Self.quiet) { connection in try await body(connection) }
                }
            } catch let error as PostgresStoreError {
                guard case .server(let state, _) = error, state == "40P01" || state == "40001", attempt < 5 else { throw error }
            }
        }
    }

    /// Reads on one connection; a failure of the database becomes a `StorageError` in a shopper's words.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) throws -> T {
        do {
            return try call { client in try await client.withConnection { connection in try await body(connection) } }
        } catch let error as PostgresStoreError {
            throw error.storageError
        }
    }

    /// Writes in one transaction; a failure of the database becomes a `StorageError` in a shopper's words.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) throws -> T {
        do {
            return try transaction(body)
        } catch let error as PostgresStoreError {
            throw error.storageError
        }
    }
}

/// Why PostgreSQL could not be used; names the server, never a password.
public enum PostgresStoreError: Error, Equatable, CustomStringConvertible {
    case configuration(String)
    /// No connection, or no answer: the server is down, restarting, or the network is.
    case unreachable(location: String, reason: String)
    /// The server refused the login (wrong password, no such role or database).
    case refusedLogin(location: String, reason: String)
    /// The server answered with an error (`state` is its SQLSTATE).
    case server(state: String, message: String)
    case newerSchema(location: String, unknownMigrations: [String])
    case notMigrated(location: String, missing: [String])
    case noCatalog(location: String)

    public var description: String {
        switch self {
        case .configuration(let message):
            message
        case .unreachable(let location, let reason):
            "the store's database \(location) is not reachable (\(reason))"
        case .refusedLogin(let location, let reason):
            "the store's database \(location) refused the login: \(reason)"
        case .server(let state, let message):
            "the store's database answered with an error: \(message) (SQLSTATE \(state))"
        case .newerSchema(let location, let unknown):
            "\(location) was written by a newer storefront (schema steps \(unknown.joined(separator: ", ")) are unknown to this version); upgrade storefront to use it."
        case .notMigrated(let location, let missing):
            "\(location) lacks schema steps \(missing.joined(separator: ", ")); run `storefront db migrate --database URL` first."
        case .noCatalog(let location):
            "\(location) has no catalog yet; import one with `storefront catalog import FILE --database URL`."
        }
    }

    /// Whether the error means the server could not be reached, rather than that it said no.
    public var isUnreachable: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// The driver's and the pool's errors as `PostgresStoreError`s; any other error as it is.
    static func translate(_ error: any Error, location: PostgresLocation) -> any Error {
        if let transaction = error as? PostgresTransactionError {
            // The first thing that went wrong decides: a failed BEGIN, else the body's own error, else the COMMIT's.
            if let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError {
                return translate(cause, location: location)
            }
        }
        if let pool = error as? ConnectionPoolError {
            // The circuit breaker trips after connection attempts kept failing; a lease is cancelled at a timeout.
            return PostgresStoreError.unreachable(location: location.description, reason: "\(pool)")
        }
        if error is CancellationError { return PostgresStoreError.unreachable(location: location.description, reason: "cancelled") }
        guard let psql = error as? PSQLError else { return error }
        return from(psql, location: location)
    }

    /// Sorts postgres-nio's errors into the ones an operator can act on.
    static func from(_ psql: PSQLError, location: PostgresLocation) -> PostgresStoreError {
        let place = location.description
        let state = psql.serverInfo?[.sqlState] ?? ""
        let message = psql.serverInfo?[.message] ?? psql.code.description
        switch psql.code {
        case .server:
            // Class 08: connection exceptions; 57P01-03: the server is shutting down or starting.
            if state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) { return .unreachable(location: place, reason: message) }
            if state == "28P01" || state == "28000" || state == "3D000" { return .refusedLogin(location: place, reason: message) }
            return .server(state: state, message: message)
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            return .refusedLogin(location: place, reason: psql.code == .authMechanismRequiresPassword
                ? "the server wants a password; put it in the URL or in PGPASSFILE" : psql.code.description)
        case .sslUnsupported:
            return .refusedLogin(location: place, reason: "sslmode asks for TLS and the server does not offer it")
        default:
            let underlying = psql.underlying.map { ": \($0)" } ?? ""
            return .unreachable(location: place, reason: psql.code.description + underlying)
        }
    }
}

extension PostgresStoreError {
    /// The words a shopper sees for a failed read or write.
    var storageError: StorageError {
        isUnreachable ? StorageError(StorageError.unavailableMessage, isUnavailable: true) : StorageError(description)
    }
}

/// One value handed from a task to a thread that blocks until it arrives or a deadline passes.
final class Rendezvous<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?

    /// Keeps the first value put; later ones are dropped.
    func put(_ value: Value) {
        condition.lock()
        if self.value == nil { self.value = value }
        condition.signal()
        condition.unlock()
    }

    func wait(for duration: Duration) -> Value? {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            if !condition.wait(until: deadline) { break }
        }
        return value
    }
}

/// A serial queue the store's tasks run on, away from Swift's cooperative threads, which a
/// synchronous caller may be blocking.
final class CallExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = CallExecutor()
    private let queue = DispatchQueue(label: "storefront.postgres.calls")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
