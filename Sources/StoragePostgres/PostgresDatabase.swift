import Foundation
import LiveObjects
import Logging
import NIOPosix
import PostgresNIO
import ShopMetrics
import ShopPorts
import Synchronization

/// The shop's PostgreSQL: one `PostgresClient` (a small pool) per process, and the `async` calls
/// the storage ports are made of, each bounded by a deadline.
///
/// Order of calls: `connect(_:pool:)` → `migrate()` (or `checkSchema()` where the process must not
/// write the schema) → the stores call `call`/`transaction` → `close()` before the process ends.
public final class PostgresDatabase: Sendable {
    /// Calls under way in this process, on every database it opened: the metrics' in-flight gauge.
    private static let callsInFlight = Atomic<Int>(0)
    public let location: PostgresLocation
    private let pool: Pool
    private let logger: Logger
    private let state: Mutex<Connections>
    /// The threads the shared repositories' bodies block on, one for each connection the pool may hold.
    let blockingThreads: NIOThreadPool
    /// How long one call may wait for a connection and its answer before the database counts as unreachable.
    let callTimeout: Duration
    /// A call still waiting after this long makes the shop ask the server directly whether it is there.
    static let probeAfter = Duration.seconds(1)

    /// The pool in use, and what is known of an outage.
    private struct Connections {
        var client: PostgresClient
        var runner: Task<Void, Never>
        /// When the last call found the server down, if it has not answered since.
        var down: ContinuousClock.Instant?
        var lastProbe: ContinuousClock.Instant?
    }

    private init(location: PostgresLocation, pool: Pool, logger: Logger) throws(PostgresDatabaseError) {
        self.location = location
        self.pool = pool
        self.logger = logger
        self.callTimeout = .seconds(location.connectTimeout + 5)
        let (client, runner) = try Self.startPool(location, pool: pool, logger: logger)
        state = Mutex(Connections(client: client, runner: runner))
        blockingThreads = NIOThreadPool(numberOfThreads: pool.maximumConnections)
        blockingThreads.start()
    }

    /// Starts the client; no connection is opened until the first call. The driver's own log
    /// lines (each failed connection attempt) go to `logger`, silent by default.
    public static func connect(_ location: PostgresLocation, pool: Pool, logger: Logger = PostgresDatabase.quiet) throws(PostgresDatabaseError)
        -> PostgresDatabase
    {
        try PostgresDatabase(location: location, pool: pool, logger: logger)
    }

    private static func startPool(_ location: PostgresLocation, pool: Pool, logger: Logger) throws(PostgresDatabaseError) -> (
        PostgresClient, Task<Void, Never>
    ) {
        var configuration: PostgresClient.Configuration
        do {
            configuration = try location.clientConfiguration()
        } catch {
            throw .configuration(error.description)
        }
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = pool.maximumConnections
        ShopMetrics.gauge(ShopMetrics.databasePoolLimit, [("database", "postgres")], Double(pool.maximumConnections))
        configuration.options.connectionIdleTimeout = pool.idleTimeout
        configuration.options.keepAliveBehavior = nil
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let runner = Task { await client.run() }
        return (client, runner)
    }

    /// Closes every connection; calls after this fail.
    public func close() {
        state.withLock { $0.runner.cancel() }
        blockingThreads.shutdownGracefully { _ in }
    }

    deinit {
        state.withLock { $0.runner.cancel() }
        blockingThreads.shutdownGracefully { _ in }
    }

    /// Whether the last call found the server down (and none has reached it since).
    public var isDown: Bool { state.withLock { $0.down != nil } }

    /// `SELECT 1` through the pool, as any call goes: throws `.unreachable` while the server is down.
    public func ping() async throws(PostgresDatabaseError) {
        do {
            _ = try await call { client in try await client.query("SELECT 1", logger: Self.quiet).collect().count }
        } catch let error as PostgresDatabaseError {
            throw error
        } catch {
            throw .unreachable(location: location.description, reason: "\(error)")
        }
    }

    /// Runs `body` against the pool. The driver's and the pool's failures become
    /// `PostgresDatabaseError`s; errors `body` throws itself pass through as they are.
    ///
    /// While the server is down a call fails at once, except one a second, which asks the server
    /// directly and, when it answers, starts a fresh pool (the old one may still be backing off).
    func call<T: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let started = ContinuousClock.now
        ShopMetrics.gauge(
            ShopMetrics.databaseCallsInFlight, [("database", "postgres")], Double(Self.callsInFlight.add(1, ordering: .relaxed).newValue))
        defer {
            ShopMetrics.time(ShopMetrics.databaseCalls, [("database", "postgres"), ("kind", "call")], ContinuousClock.now - started)
            ShopMetrics.gauge(
                ShopMetrics.databaseCallsInFlight, [("database", "postgres")], Double(Self.callsInFlight.subtract(1, ordering: .relaxed).newValue))
        }
        let client = try await clientForCall()
        do {
            return try await deadline(timeout, probing: true) { try await body(client) }
        } catch  where Task.isCancelled {
            // The caller gave up (a newer search replaced this read): that says nothing about the server.
            throw CancellationError()
        } catch let error as PostgresDatabaseError where error.isUnreachable {
            state.withLock { $0.down = $0.down ?? .now }
            throw error
        }
    }

    private func clientForCall() async throws -> PostgresClient {
        let now = ContinuousClock.now
        let pool = pool
        let (client, down, probeDue) = state.withLock { connections in
            let due = connections.lastProbe.map { now - $0 >= pool.probeInterval } ?? true
            if connections.down != nil, due { connections.lastProbe = now }
            return (connections.client, connections.down, due)
        }
        guard let down else { return client }
        guard probeDue else {
            throw PostgresDatabaseError.unreachable(
                location: location.description, reason: "down for \((now - down).formatted(.units(allowed: [.seconds], width: .narrow)))")
        }
        try await probe()
        let (fresh, runner) = try Self.startPool(location, pool: pool, logger: logger)
        return state.withLock { connections in
            connections.runner.cancel()
            connections = Connections(client: fresh, runner: runner)
            return fresh
        }
    }

    /// One connection of its own and `SELECT 1`: throws `.unreachable` at once when the server refuses connections.
    private func probe() async throws {
        _ = try await direct(timeout: .seconds(location.connectTimeout + 1)) { connection in
            try await connection.query("SELECT 1", logger: Self.quiet).collect().count
        }
    }

    /// Runs `body` on a connection of its own, outside the pool, then closes it: the probe's way,
    /// which hears a refused login or a server that is down at once, not after the pool's retries.
    private func direct<T: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try location.connectionConfiguration()
        } catch {
            throw PostgresDatabaseError.configuration(error.description)
        }
        return try await deadline(timeout) {
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

    /// Runs `operation` for at most `timeout` (the call timeout by default); past it, the operation is
    /// cancelled and the call fails as unreachable. Nothing blocks: the caller awaits whichever ends first.
    ///
    /// `probing`: once the operation has waited `probeAfter`, the server is asked directly; a pool
    /// waiting on a server that refuses connections would otherwise wait out its own backoff.
    private func deadline<T: Sendable>(_ timeout: Duration?, probing: Bool = false, _ operation: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        let limit = timeout ?? callTimeout
        do {
            return try await race(operation, limit: limit, probing: probing)
        } catch let error as PostgresDatabaseError {
            throw error
        } catch {
            throw PostgresDatabaseError.translate(error, location: location)
        }
    }

    /// The operation against the deadline and, when `probing`, the probe; the first to decide ends the others, and the
    /// caller returns then, whether or not the operation heeds its cancellation.
    private func race<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T, limit: Duration, probing: Bool) async throws -> T {
        let first = FirstOutcome<T>()
        let location = location.description
        let work = Task {
            do { first.finish(.success(try await operation())) } catch { first.finish(.failure(error)) }
        }
        let deadline = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            first.finish(.failure(PostgresDatabaseError.unreachable(location: location, reason: "no answer within \(limit)")))
        }
        // A probe that finds the server there leaves the call to go on; one that cannot reach it ends the call with why.
        let probe =
            probing && limit > Self.probeAfter
            ? Task {
                guard (try? await Task.sleep(for: Self.probeAfter)) != nil else { return }
                do { try await self.probe() } catch is CancellationError {} catch { first.finish(.failure(error)) }
            } : nil
        let outcome: Result<T, any Error>
        do { outcome = .success(try await first.value()) } catch { outcome = .failure(error) }
        work.cancel()
        deadline.cancel()
        probe?.cancel()
        // The losers are given a moment to let go of what they hold (the probe's connection, the pool's lease) before the
        // next call, but never the caller: one that does not heed its cancellation is left behind.
        let settled = FirstOutcome<Void>()
        let losers = Task {
            await work.value
            await probe?.value
            settled.finish(.success(()))
        }
        let grace = Task {
            guard (try? await Task.sleep(for: Self.loserGrace)) != nil else { return }
            settled.finish(.success(()))
        }
        _ = try? await settled.value()
        losers.cancel()
        grace.cancel()
        return try outcome.get()
    }

    /// How long a raced call waits, once decided, for the tasks that lost to end.
    static let loserGrace = Duration.seconds(2)

    /// Runs `body` in one READ COMMITTED transaction and commits it, retrying the whole
    /// transaction when the server broke a deadlock or a serialization conflict by aborting it.
    func transaction<T: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await call(timeout: timeout) { client in
                    try await client.withTransaction(logger: Self.quiet) { connection in try await body(connection) }
                }
            } catch let error as PostgresDatabaseError {
                guard case .server(let state, _) = error, state == "40P01" || state == "40001", attempt < 5 else { throw error }
            }
        }
    }

    /// Reads on one connection; a failure of the database becomes a `StorageError` in a shopper's words.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await onConnection(body)
    }

    /// Writes that one statement makes atomic, each committed on its own: no BEGIN and COMMIT, two round trips
    /// fewer than `write` (a round trip is a trip to another process on the same cores). A failure of the database
    /// becomes a `StorageError` in a shopper's words.
    func writeInOneStatement<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await onConnection(body)
    }

    private func onConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await call { client in try await client.withConnection { connection in try await body(connection) } }
        } catch let error as PostgresDatabaseError {
            throw error.storageError
        }
    }

    /// Writes in one transaction; a failure of the database becomes a `StorageError` in a shopper's words.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await transaction(body)
        } catch let error as PostgresDatabaseError {
            throw error.storageError
        }
    }
}

extension PostgresDatabase: LiveObject {}
