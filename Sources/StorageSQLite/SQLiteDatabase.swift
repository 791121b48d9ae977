import CSQLiteMemory
import Foundation
import GRDB
import LiveObjects
import ShopPorts
import Synchronization

/// Why the database could not be used, in words that name the file.
public enum SQLiteDatabaseError: Error, Equatable, CustomStringConvertible {
    case cannotCreateDirectory(path: String, reason: String)
    case notADatabase(path: String, reason: String)
    case newerSchema(path: String, unknownMigrations: [String])
    case readOnly(path: String)
    case diskFull(path: String)
    /// Another process held a lock for longer than the wait allowed.
    case busy(path: String)
    /// A restore is putting a backup in place of the file: nothing may open it until it has finished.
    case beingRestored(path: String)
    /// The file was replaced under this process (a restore): nothing more is written through it.
    case replaced(path: String)
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let reason):
            "cannot create the data directory \(path): \(reason)"
        case .notADatabase(let path, let reason):
            "\(path) is not a storefront database or is damaged (\(reason)); it was left untouched. Move it away to start afresh."
        case .newerSchema(let path, let unknown):
            "\(path) was written by a newer storefront (schema steps \(unknown.joined(separator: ", ")) are unknown to this version); upgrade storefront to open it."
        case .readOnly(let path):
            "\(path) is read-only; the shop cannot save orders there."
        case .diskFull(let path):
            "the disk holding \(path) is full; free some space there (the shop cannot save carts or orders until then)."
        case .busy(let path):
            "\(path) is busy: another process holds a lock on it; try again shortly."
        case .beingRestored(let path):
            "\(path) is being restored from a backup (storefront restore); this process did not open it. Start it again once the restore has finished."
        case .replaced(let path):
            "\(path) was replaced under this process (a restore?); nothing was written. Stop this process and start it again to open the shop now in place."
        case .failed(let path, let reason):
            "\(path): \(reason)"
        }
    }

    /// Maps SQLite's result codes to the errors a shopper or operator can act on.
    public static func from(_ error: any Error, path: String) -> SQLiteDatabaseError {
        if let known = error as? SQLiteDatabaseError { return known }
        guard let database = error as? DatabaseError else { return .failed(path: path, reason: "\(error)") }
        // A database read as immutable on a full disk refuses writes as read-only: the reason is the disk.
        if [.SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_FULL].contains(database.resultCode), isOnFullDisk(path) {
            return .diskFull(path: path)
        }
        switch database.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path: path, reason: database.message ?? "\(database.resultCode)")
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM: return .readOnly(path: path)
        case .SQLITE_FULL: return .diskFull(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy(path: path)
        default: return .failed(path: path, reason: database.message ?? "\(database.resultCode)")
        }
    }

    /// True when the file system holding `path` has no block left for this user.
    static func isOnFullDisk(_ path: String) -> Bool {
        var info = statvfs()
        let folder = (path as NSString).deletingLastPathComponent
        return statvfs(folder.isEmpty ? "." : folder, &info) == 0 && info.f_bavail == 0
    }
}

/// The shop's SQLite database: `<data dir>/storefront.sqlite`, WAL, `synchronous=FULL`,
/// write transactions IMMEDIATE (GRDB's default for writes), versioned migrations.
///
/// Order of calls: `open(directory:)` (creates the directory, refuses damaged or newer files,
/// migrates) → repositories read and write through `pool`.
public final class SQLiteDatabase: Sendable {
    /// Calls under way in this process, on every database it opened: the metrics' in-flight gauge.
    static let callsInFlight = Atomic<Int>(0)
    public static let fileName = "storefront.sqlite"

    /// A pool of connections; a queue opened immutable when the disk is full and there is nothing to read but the file.
    public let pool: any DatabaseWriter
    public let path: String
    /// What the operator should hear about the files (a data directory others can enter); for the log.
    public let warnings: [String]
    /// The shop's lock, held shared while this process has the file open (`SQLiteShopLock`); nil in memory.
    private let lock: SQLiteShopLock?

    private init(pool: any DatabaseWriter, path: String, warnings: [String], lock: SQLiteShopLock? = nil) {
        self.pool = pool
        self.path = path
        self.warnings = warnings
        self.lock = lock
    }

    public static func open(directory: URL) throws(SQLiteDatabaseError) -> SQLiteDatabase {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotCreateDirectory(path: directory.path, reason: (error as NSError).localizedDescription)
        }
        var warnings: [String] = []
        var info = stat()
        if stat(directory.path, &info) == 0, info.st_mode & 0o007 != 0 {
            warnings.append(
                "the data directory \(directory.path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); the database in it is kept 0600, but chmod 700 the directory"
            )
        }
        return try open(path: directory.appendingPathComponent(fileName).path, warnings: warnings)
    }

    /// Makes every connection this process opens start small (no cache block up front, a small lookaside).
    /// Call first thing, before any database is opened; later calls change nothing.
    public static func useLittleMemory() {
        _ = sf_sqlite_use_little_memory()
    }

    /// Opens for reading and writing: creates the file owner-only, refuses damaged or newer files untouched, migrates.
    ///
    /// The schema's version is GRDB's `grdb_migrations` table (the names of the applied steps), not
    /// `PRAGMA user_version`, which stays 0.
    public static func open(path: String, warnings: [String] = []) throws(SQLiteDatabaseError) -> SQLiteDatabase {
        // Held from before the file is made until this process lets the database go: a restore waits for no one.
        let lock = try SQLiteShopLock.shared(for: path)
        let size = try createOwnerOnly(path: path)
        // Checked on a read-only connection first: a refused file must not be touched, and the
        // read-write pool below would switch it to WAL and write its header. A new, empty file has nothing to check.
        if size > 0 {
            let probe = try openReadOnly(path: path, requireCurrentSchema: false)
            do { try probe.pool.close() } catch { throw SQLiteDatabaseError.from(error, path: path) }
        }
        do {
            var configuration = configuration(readOnly: false)
            if let guardian = ReplacedFileGuard(path: path) {
                configuration.prepareDatabase { db in db.add(transactionObserver: guardian, extent: .databaseLifetime) }
            }
            // Switching a new file to WAL and its schema steps, one process at a time: a second switching the journal
            // mode meanwhile is answered SQLITE_BUSY at once, without waiting.
            let pool = try SQLiteShopLock.migrating(path) { () throws -> DatabasePool in
                let pool = try DatabasePool(path: path, configuration: configuration)
                try migrator.migrate(pool)
                return pool
            }
            return SQLiteDatabase(pool: pool, path: path, warnings: warnings, lock: lock)
        } catch {
            let problem = SQLiteDatabaseError.from(error, path: path)
            // On a full disk the shop can still be browsed: the catalog and orders are read, nothing is saved.
            guard case .diskFull = problem, size > 0, let readOnly = try? openReadOnly(path: path) else { throw problem }
            return SQLiteDatabase(pool: readOnly.pool, path: path, warnings: warnings + ["\(problem)"], lock: lock)
        }
    }

    /// A migrated, empty database that lives in this process's memory only, on one connection: the shop's own
    /// storage for tests and benchmarks, with nothing written to disk and nothing shared between two of them.
    ///
    /// Each is a copy of one database migrated once per process, so making one costs a page copy, not the migrations.
    public static func inMemory() throws(SQLiteDatabaseError) -> SQLiteDatabase {
        do {
            return try migratedInMemory.get().copiedInMemory()
        } catch {
            throw SQLiteDatabaseError.from(error, path: ":memory:")
        }
    }

    /// A copy of this database, in memory (SQLite's backup): what a test starts from, made once and copied per test.
    /// The copy is another shop: it gets its own install id, as a new database does, so two copies never share the
    /// provider's idempotency keys or mail message ids.
    public func copiedInMemory() throws(SQLiteDatabaseError) -> SQLiteDatabase {
        do {
            let queue = try DatabaseQueue(configuration: Self.configuration(readOnly: false))
            try pool.backup(to: queue)
            try queue.write { try $0.execute(sql: "UPDATE shop_install SET id = lower(hex(randomblob(16)))") }
            return SQLiteDatabase(pool: queue, path: ":memory:", warnings: [])
        } catch {
            throw SQLiteDatabaseError.from(error, path: ":memory:")
        }
    }

    /// The schema every `inMemory()` database starts from, migrated at first use.
    private static let migratedInMemory = Result { () throws -> SQLiteDatabase in
        let queue = try DatabaseQueue(configuration: configuration(readOnly: false))
        try migrator.migrate(queue)
        return SQLiteDatabase(pool: queue, path: ":memory:", warnings: [])
    }

    /// Opens for commands that only read (`storefront orders`): nothing in the file is written, and a
    /// schema this version does not know, or one not yet migrated, is refused.
    public static func openReadOnly(path: String, requireCurrentSchema: Bool = true, busyTimeout: Double = 10) throws(SQLiteDatabaseError)
        -> SQLiteDatabase
    {
        do {
            var configuration = configuration(readOnly: true)
            configuration.busyMode = .timeout(busyTimeout)
            let pool: any DatabaseWriter
            do {
                pool = try DatabasePool(path: path, configuration: configuration)
            } catch {
                // Reading WAL mode needs its index file, which a full disk cannot hold. With no WAL beside it (no
                // writer has the database open) the file itself is the whole database: read it as immutable.
                guard case .diskFull = SQLiteDatabaseError.from(error, path: path), !hasWriteAheadLog(path) else { throw error }
                pool = try DatabaseQueue(
                    path: "file:\(path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)?immutable=1",
                    configuration: configuration)
            }
            let (unknown, missing) = try pool.read { db in
                let applied =
                    try db.tableExists("grdb_migrations")
                    ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
                let known = migrator.migrations
                return (applied.subtracting(known), known.filter { !applied.contains($0) })
            }
            guard unknown.isEmpty else { throw SQLiteDatabaseError.newerSchema(path: path, unknownMigrations: unknown.sorted()) }
            if requireCurrentSchema, !missing.isEmpty {
                throw SQLiteDatabaseError.failed(path: path, reason: "written by an older storefront; open the shop once to bring it up to date")
            }
            return SQLiteDatabase(pool: pool, path: path, warnings: [])
        } catch {
            throw SQLiteDatabaseError.from(error, path: path)
        }
    }

    /// True when a non-empty `-wal` file is beside the database: a writer's recent commits are in it.
    private static func hasWriteAheadLog(_ path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) == 0 && info.st_size > 0
    }

    private static func configuration(readOnly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.readonly = readOnly
        // A shop process is one shopper: two readers beside the writer are plenty, and each connection holds a cache.
        configuration.maximumReaderCount = 2
        configuration.prepareDatabase { db in
            // Pages are read from the file's mapping, which every process shares through the kernel's page cache,
            // instead of copied into each connection's cache: a session's memory holds the shop, not the database.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
            guard !readOnly else { return }
            // Orders and payments must survive power loss, not just a crash.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        return configuration
    }

    /// Makes the database file 0600 before SQLite opens it, so SQLite gives its -wal and -shm the same
    /// mode (it copies the database's); an older file that others could read is closed to them.
    /// Returns the file's size in bytes.
    private static func createOwnerOnly(path: String) throws(SQLiteDatabaseError) -> Int {
        let descriptor = Foundation.open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            if errno == EACCES || errno == EROFS { throw .readOnly(path: path) }
            throw .failed(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .notADatabase(path: path, reason: "not a regular file")
        }
        if info.st_uid == geteuid(), info.st_mode & 0o077 != 0 { _ = fchmod(descriptor, 0o600) }
        var beside = stat()
        for suffix in ["-wal", "-shm"] where stat(path + suffix, &beside) == 0 && beside.st_uid == geteuid() && beside.st_mode & 0o077 != 0 {
            _ = chmod(path + suffix, 0o600)
        }
        return Int(info.st_size)
    }
}

extension SQLiteDatabase: LiveObject {}
