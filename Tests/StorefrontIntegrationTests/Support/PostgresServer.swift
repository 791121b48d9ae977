import Foundation
import LiveObjects
import ShopBootstrap
import ShopBundledCatalog
import ShopModels
import ShopSandbox
import StoragePostgres
import StorageRows
import StorefrontTesting
import Testing

/// A PostgreSQL cluster of the tests' own: Debian's `postgresql` server started by
/// `scripts/pg-throwaway` on a free loopback port, in a temporary folder removed afterwards.
///
/// `shared` is one cluster for the whole test process (each test takes a fresh database in it);
/// a test that stops or restarts the server starts its own.
final class PostgresServer: @unchecked Sendable {
    let directory: String
    private(set) var port = 0

    /// One cluster for every test that only needs a database; removed when the test process exits.
    static let shared: Result<PostgresServer, any Error> = {
        let result = Result { try PostgresServer(fast: true) }
        if case .success(let server) = result {
            sharedDirectory = strdup(server.directory)
            atexit {
                guard let directory = PostgresServer.sharedDirectory else { return }
                _ = try? Subprocess.run(LocalStripe.script("pg-throwaway"), ["remove", String(cString: directory)], timeout: .seconds(60))
            }
        }
        return result
    }()
    nonisolated(unsafe) private static var sharedDirectory: UnsafeMutablePointer<CChar>?

    /// A new, empty database in the shared cluster; fails the test naming the package when the server cannot start.
    static func freshDatabase(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let server: PostgresServer
        do {
            server = try shared.get()
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            throw error
        }
        return try server.createDatabase()
    }

    /// Starts a cluster of its own. `fast` turns fsync and synchronous commit off: only for a
    /// cluster that is never killed, since an immediate stop then loses commits still in memory.
    init(fast: Bool = false) throws {
        directory = TemporaryDirectory.make().path
        try run("start", environment: fast ? ["PG_THROWAWAY_FAST": "1"] : [:])
    }

    deinit {
        _ = try? Subprocess.run(LocalStripe.script("pg-throwaway"), ["remove", directory], timeout: .seconds(60))
    }

    /// The URL of a new database `name` (a fresh random name when nil), with the password in it.
    func createDatabase(_ name: String? = nil) throws -> String {
        let name = name ?? "shop_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        let output = try run("createdb", name)
        guard let url = output.split(separator: "\n").first(where: { $0.hasPrefix("url ") }) else {
            throw PostgresServerError(message: "createdb printed no URL: \(output)")
        }
        return String(url.dropFirst(4))
    }

    /// `url` (a database of this cluster) through a PgBouncer in transaction mode, started on first use.
    func throughPgBouncer(_ url: String) throws -> String {
        bouncerLock.lock()
        defer { bouncerLock.unlock() }
        if bouncerPort == nil {
            let output = try run("bouncer", "pgbouncer", "2")
            guard let started = output.firstMatch(of: /127\.0\.0\.1:(\d+)\//) else {
                throw PostgresServerError(message: "pgbouncer printed no URL: \(output)")
            }
            bouncerPort = Int(started.1)
        }
        return url.replacingOccurrences(of: "127.0.0.1:\(port)/", with: "127.0.0.1:\(bouncerPort!)/")
    }
    private let bouncerLock = NSLock()
    private var bouncerPort: Int?

    /// A new database, migrated, with the bundled catalog imported: a shop ready to open.
    func createShop() async throws -> String {
        let url = try createDatabase()
        let database = try PostgresDatabase.connect(try PostgresLocation.parse(url, environment: [:]), pool: .command)
        defer { database.close() }
        try await database.migrate()
        // With its pictures, as the shop imports the bundled catalog: every reference then names bytes the shop holds.
        let resolved = try BundledPictures.catalogImport.resolve(
            try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"), held: [:])
        _ = try await PostgresCatalogImport.importCatalog(resolved.catalog, pictures: resolved.pictures, contentHash: "bundled", into: database)
        return url
    }

    /// The server stopped as a crash would stop it; `start()` brings it back on the same port.
    func kill() throws { try run("kill") }

    func start() throws { try run("start") }

    @discardableResult
    private func run(_ command: String, _ arguments: String..., environment: [String: String] = [:]) throws -> String {
        var settings = ProcessInfo.processInfo.environment
        settings.merge(environment) { $1 }
        let result = try Subprocess.run(
            LocalStripe.script("pg-throwaway"), [command, directory] + arguments, environment: settings, timeout: .seconds(120))
        guard result.status == 0 else {
            throw PostgresServerError(message: "scripts/pg-throwaway \(command) failed (\(result.status)): \(result.stderr)")
        }
        if let line = result.stdout.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }),
            let number = Int(line.dropFirst("listening ".count))
        {
            port = number
        }
        return result.stdout
    }
}

struct PostgresServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A connected client over a fresh, migrated database in the shared cluster (its client closes with the last one using it).
struct PostgresFixture {
    let url: String
    let database: PostgresDatabase

    init(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        url = try PostgresServer.freshDatabase(sourceLocation: sourceLocation)
        database = try PostgresDatabase.connect(try PostgresLocation.parse(url, environment: [:]), pool: .command)
        try await database.migrate()
    }

    /// The same database through another client, as another front end would reach it.
    func anotherClient() throws -> PostgresDatabase {
        try PostgresDatabase.connect(try PostgresLocation.parse(url, environment: [:]), pool: .command)
    }

    /// A catalog imported as `storefront catalog import` does.
    func importing(_ catalog: Catalog) async throws -> SQLCatalogRepository {
        _ = try await PostgresCatalogImport.importCatalog(catalog, contentHash: UUID().uuidString, into: database)
        return try await PostgresCatalogImport.open(database: database)
    }

    /// on_hand, reserved, sold for a product.
    func stock(_ id: String) throws -> (onHand: Int, reserved: Int, sold: Int) {
        let numbers =
            try rows("SELECT on_hand, reserved, sold FROM stock WHERE product_id = '\(id)'").first?
            .split(separator: " ").compactMap { Int($0) } ?? []
        guard numbers.count == 3 else { throw PostgresServerError(message: "no stock row for \(id)") }
        return (numbers[0], numbers[1], numbers[2])
    }

    /// Whether the connections matching `condition` (SQL on pg_stat_activity) come to number `count`
    /// within `timeout`: a bounded poll, each poll a process.
    func waitForConnections(_ condition: String, count: Int, timeout: Duration = .seconds(15)) throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if try rows("SELECT count(*) FROM pg_stat_activity WHERE \(condition)") == ["\(count)"] { return true }
        }
        return false
    }

    /// What `psql` prints for `query`, a line per row, columns apart by one space.
    func rows(_ query: String) throws -> [String] {
        let result = try Subprocess.run("/usr/bin/env", ["psql", url, "-At", "-F", " ", "-v", "ON_ERROR_STOP=1", "-c", query])
        guard result.status == 0 else { throw PostgresServerError(message: "psql failed on \(query): \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}

extension PostgresServer: LiveObject {}
