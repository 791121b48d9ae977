import Foundation
import LiveObjects
import ShopBundledCatalog
import ShopModels
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Another session that holds a lock until it is released: `psql` in a transaction, or Python's sqlite3.
///
/// @unchecked: made on a thread of the test's own and released there, one call at a time.
private final class LockHolder: @unchecked Sendable, LiveObject {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// Starts `arguments` with `script` on its stdin, and returns once it prints `locked`.
    init(_ arguments: [String], script: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        // A bounded wait: the holder prints as soon as the lock is granted, or ends and the read ends with it.
        var said = Data()
        blockingWaitAllowed("waiting for \(arguments.first ?? "the lock holder") to hold its lock")
        while !String(decoding: said, as: UTF8.self).contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw PostgresServerError(message: "the lock holder \(arguments.first ?? "") ended without the lock") }
            said.append(chunk)
        }
    }

    /// PostgreSQL: every table the product list and the cart read, in ACCESS EXCLUSIVE mode.
    static func postgres(_ url: String) throws -> LockHolder {
        try LockHolder(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url],
            script: "BEGIN;\nLOCK TABLE product, stock, cart_line IN ACCESS EXCLUSIVE MODE;\n\\echo locked\n")
    }

    /// SQLite: BEGIN EXCLUSIVE on the database file, from another process.
    static func sqlite(_ path: String) throws -> LockHolder {
        let program = """
            import sqlite3, sys
            db = sqlite3.connect(\(String(reflecting: path)), isolation_level=None, timeout=30)
            db.execute('BEGIN EXCLUSIVE')
            print('locked', flush=True)
            sys.stdin.readline()
            db.execute('COMMIT')
            """
        return try LockHolder(["python3", "-c", program], script: "")
    }

    /// Commits (which lets the lock go) and waits for the holder to end.
    func release() {
        input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
        try? input.fileHandleForWriting.close()
        blockingWaitAllowed("waiting for the lock holder to end")
        process.waitUntilExit()
    }
}

/// The issue's stall, in process: while another session holds the tables, keys that need no data are
/// answered at once, a key that needs data shows it pending, and an add is kept; when the lock goes,
/// the shop recovers by itself and the cart line is in the database.
@MainActor
@Suite("A database that another session holds locked", .ownThreads)
struct StallTests {
    @Test func postgresLockTable() async throws {
        let fixture = try await PostgresFixture()
        let catalog = try await fixture.importing(try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"))
        try await stall(catalog: catalog, carts: SQLCartRepository(database: fixture.database)) { [url = fixture.url] in
            try LockHolder.postgres(url)
        }
    }

    @Test func sqliteBeginExclusive() async throws {
        let directory = TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SQLiteDatabase.open(directory: directory)
        let catalog = try Fixtures.importBundledCatalog(into: database)
        try await stall(catalog: catalog, carts: SQLCartRepository(database: database)) { try LockHolder.sqlite(database.path) }
    }

    /// Opens the shop on `catalog` and `carts`, takes the lock, drives the keys without waiting for any effect, then releases it.
    private func stall(catalog: any CatalogRepository, carts: any CartRepository, lock: @Sendable () throws -> LockHolder) async throws {
        var stack = TestStack()
        stack.catalog = catalog
        var dependencies = stack.dependencies
        dependencies.carts = carts
        let driver = await ScriptedDriver(dependencies: dependencies)
        #expect(driver.state.productList.rows.count > 1 && !driver.state.productList.isLoading)

        // The holder's waits block: they run on a thread of their own, not the main actor the driver needs.
        let holder = try await onOwnThread { try lock() }
        // Each press is handled before it returns; nothing here waits for the database.
        await driver.press(.down, settle: false)
        #expect(driver.state.productList.selectedIndex == 1)
        await driver.press(.up, settle: false)
        #expect(driver.state.productList.selectedIndex == 0)
        await driver.press(.character("?"), settle: false)
        #expect(driver.state.isHelpShown)
        await driver.press(.escape, settle: false)
        #expect(!driver.state.isHelpShown)
        await driver.press(.character("a"), settle: false)
        #expect(driver.state.cartBadge.itemCount == 1, "the add is drawn at once; its check and write wait for the lock")
        await driver.press(.character("/"), .character("m"), settle: false)
        #expect(driver.state.productList.query == "m")
        #expect(driver.state.productList.isLoading, "a key that needs the catalog shows its read pending")
        #expect(driver.frameText.contains("loading"), "and the frame says so")

        try await onOwnThread { holder.release() }
        // Bounded: every read and the write end once the lock is gone (or at the database's call timeout).
        await driver.settle()
        #expect(!driver.state.productList.isLoading && !driver.state.isWaitingForStorage, "the shop recovered by itself")
        #expect(driver.state.productList.totalCount > 0 && driver.state.productList.totalCount < 24, "the search was answered")
        let saved = try await carts.lines(forCustomer: stack.guestID)
        #expect(saved.map(\.quantity) == [1], "the cart line added during the stall is in the database")
    }
}
