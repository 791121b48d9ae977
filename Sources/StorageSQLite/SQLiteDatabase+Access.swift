import GRDB
import ShopMetrics
import ShopPorts
import Synchronization

extension SQLiteDatabase {
    /// Reads in a snapshot, off the caller's thread; a failure becomes a `StorageError` in words for the shopper.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await inWords("read") { try await pool.read(body) }
    }

    /// Reads one statement's worth on the writer connection, outside a transaction (one statement is atomic).
    /// The writer's page cache survives this process's own commits, where a reader's is emptied by each: a read
    /// right after a cart save then loads no pages (an add's stock check took 0.13 ms on a reader, 0.085 ms here:
    /// docs/BENCHMARKS.md, "Why some code is shaped as it is"). It waits for a write in progress on this connection.
    func readOnWriter<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await inWords("read") { try await pool.writeWithoutTransaction(body) }
    }

    /// Writes in one IMMEDIATE transaction whose commit is not synced to disk: it survives a crash of
    /// the shop, and is lost only to a power cut before the next synced write carries it to disk. For
    /// carts, what a shopper meant to buy, saved on every change: a sync there cost each add a
    /// millisecond on this machine. Orders, stock and charges keep `write`, synced at every commit.
    public func writeUnsynced<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await inWords("write") {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                let result: Result<T, any Error> = Result {
                    var value: T?
                    try db.inTransaction(.immediate) {
                        value = try body(db)
                        return .commit
                    }
                    guard let value else { throw StorageError("the cart's transaction ended without a value") }
                    return value
                }
                // Back to FULL whatever happened: the next write may be an order.
                try db.execute(sql: "PRAGMA synchronous = FULL")
                return try result.get()
            }
        }
    }

    /// Writes in one IMMEDIATE transaction; a failure becomes a `StorageError` in words for the shopper.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await inWords("write") { try await pool.write(body) }
    }

    /// Runs `body`; a failure becomes a `StorageError` in words for the shopper. A lock held by another
    /// process past the busy timeout is an outage the shop waits out, not a failure of this change.
    private func inWords<T>(_ kind: String, _ body: () async throws -> T) async throws -> T {
        let started = ContinuousClock.now
        ShopMetrics.gauge(ShopMetrics.databaseCallsInFlight, [("database", "sqlite")], Double(Self.callsInFlight.add(1, ordering: .relaxed).newValue))
        defer {
            ShopMetrics.time(ShopMetrics.databaseCalls, [("database", "sqlite"), ("kind", kind)], ContinuousClock.now - started)
            ShopMetrics.gauge(
                ShopMetrics.databaseCallsInFlight, [("database", "sqlite")], Double(Self.callsInFlight.subtract(1, ordering: .relaxed).newValue))
        }
        do {
            return try await body()
        } catch is CancellationError {
            throw CancellationError()
        } catch let failure as BodyFailure {
            throw failure
        } catch {
            let reason = SQLiteDatabaseError.from(error, path: path)
            if case .busy = reason { throw StorageError(reason.description, isUnavailable: true) }
            throw StorageError(reason.description)
        }
    }
}
