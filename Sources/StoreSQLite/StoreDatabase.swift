import Foundation
import GRDB
import StoreClients

/// Why the database could not be used, in words that name the file.
public enum StoreDatabaseError: Error, Equatable, CustomStringConvertible {
    case cannotCreateDirectory(path: String, reason: String)
    case notADatabase(path: String, reason: String)
    case newerSchema(path: String, unknownMigrations: [String])
    case readOnly(path: String)
    case diskFull(path: String)
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
            "the disk holding \(path) is full; the shop cannot save orders there."
        case .failed(let path, let reason):
            "\(path): \(reason)"
        }
    }

    /// Maps SQLite's result codes to the errors a shopper or operator can act on.
    public static func from(_ error: any Error, path: String) -> StoreDatabaseError {
        if let known = error as? StoreDatabaseError { return known }
        guard let database = error as? DatabaseError else { return .failed(path: path, reason: "\(error)") }
        switch database.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path: path, reason: database.message ?? "\(database.resultCode)")
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM: return .readOnly(path: path)
        case .SQLITE_FULL: return .diskFull(path: path)
        default: return .failed(path: path, reason: database.message ?? "\(database.resultCode)")
        }
    }
}

/// The shop's SQLite database: `<data dir>/storefront.sqlite`, WAL, `synchronous=FULL`,
/// write transactions IMMEDIATE (GRDB's default for writes), versioned migrations.
///
/// Order of calls: `open(directory:)` (creates the directory, refuses damaged or newer files,
/// migrates) → repositories read and write through `pool`.
public final class StoreDatabase: Sendable {
    public static let fileName = "storefront.sqlite"

    public let pool: DatabasePool
    public let path: String
    /// What the operator should hear about the files (a data directory others can enter); for the log.
    public let warnings: [String]

    private init(pool: DatabasePool, path: String, warnings: [String]) {
        self.pool = pool
        self.path = path
        self.warnings = warnings
    }

    public static func open(directory: URL) throws(StoreDatabaseError) -> StoreDatabase {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotCreateDirectory(path: directory.path, reason: (error as NSError).localizedDescription)
        }
        var warnings: [String] = []
        var info = stat()
        if stat(directory.path, &info) == 0, info.st_mode & 0o007 != 0 {
            warnings.append("the data directory \(directory.path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); the database in it is kept 0600, but chmod 700 the directory")
        }
        return try open(path: directory.appendingPathComponent(fileName).path, warnings: warnings)
    }

    /// Opens for reading and writing: creates the file owner-only, refuses damaged or newer files untouched, migrates.
    ///
    /// The schema's version is GRDB's `grdb_migrations` table (the names of the applied steps), not
    /// `PRAGMA user_version`, which stays 0.
    public static func open(path: String, warnings: [String] = []) throws(StoreDatabaseError) -> StoreDatabase {
        try createOwnerOnly(path: path)
        // Checked on a read-only connection first: a refused file must not be touched, and the
        // read-write pool below would switch it to WAL and write its header.
        if FileManager.default.fileExists(atPath: path), (try? fileSize(path)) ?? 0 > 0 {
            let probe = try openReadOnly(path: path, requireCurrentSchema: false)
            do { try probe.pool.close() } catch { throw StoreDatabaseError.from(error, path: path) }
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration(readOnly: false))
            try migrator.migrate(pool)
            return StoreDatabase(pool: pool, path: path, warnings: warnings)
        } catch {
            throw StoreDatabaseError.from(error, path: path)
        }
    }

    /// Opens for commands that only read (`storefront orders`): nothing in the file is written, and a
    /// schema this version does not know, or one not yet migrated, is refused.
    public static func openReadOnly(path: String, requireCurrentSchema: Bool = true) throws(StoreDatabaseError) -> StoreDatabase {
        do {
            let pool = try DatabasePool(path: path, configuration: configuration(readOnly: true))
            let (unknown, missing) = try pool.read { db in
                let applied = try db.tableExists("grdb_migrations")
                    ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
                let known = migrator.migrations
                return (applied.subtracting(known), known.filter { !applied.contains($0) })
            }
            guard unknown.isEmpty else { throw StoreDatabaseError.newerSchema(path: path, unknownMigrations: unknown.sorted()) }
            if requireCurrentSchema, !missing.isEmpty {
                throw StoreDatabaseError.failed(path: path, reason: "written by an older storefront; open the shop once to bring it up to date")
            }
            return StoreDatabase(pool: pool, path: path, warnings: [])
        } catch {
            throw StoreDatabaseError.from(error, path: path)
        }
    }

    private static func configuration(readOnly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.readonly = readOnly
        configuration.prepareDatabase { db in
            guard !readOnly else { return }
            // Orders and payments must survive power loss, not just a crash.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        return configuration
    }

    /// Makes the database file 0600 before SQLite opens it, so SQLite gives its -wal and -shm the same
    /// mode (it copies the database's); an older file that others could read is closed to them.
    private static func createOwnerOnly(path: String) throws(StoreDatabaseError) {
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
        for suffix in ["-wal", "-shm"] where stat(path + suffix, &info) == 0 && info.st_uid == geteuid() && info.st_mode & 0o077 != 0 {
            _ = chmod(path + suffix, 0o600)
        }
    }

    private static func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Every schema step, in order. A step, once shipped, is never edited: changes are new steps.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-catalog") { db in
            try db.execute(sql: """
                CREATE TABLE catalog_meta (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                CREATE TABLE product (
                    rowid INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    position INTEGER UNIQUE,          -- catalog order; NULL once gone from the catalog
                    name TEXT NOT NULL,
                    summary TEXT NOT NULL,
                    description TEXT NOT NULL,
                    price INTEGER NOT NULL CHECK (price >= 0),
                    art TEXT NOT NULL,                -- lines joined by newlines
                    tags TEXT NOT NULL                -- joined by newlines
                );
                CREATE VIRTUAL TABLE product_search USING fts5(
                    name, summary, tags,
                    content='product', content_rowid='rowid',
                    tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'
                );
                """)
        }
        migrator.registerMigration("v2-stock-orders-payments") { db in
            try db.execute(sql: """
                -- on_hand + reserved + sold is the stock the shop started with (plus restocks).
                CREATE TABLE stock (
                    product_id TEXT PRIMARY KEY NOT NULL,
                    on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
                    reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
                    sold INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0)
                );
                CREATE TABLE orders (
                    number TEXT PRIMARY KEY NOT NULL,
                    sequence INTEGER NOT NULL UNIQUE,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    status TEXT NOT NULL,
                    placed_at REAL NOT NULL,
                    currency TEXT NOT NULL,
                    subtotal INTEGER NOT NULL,
                    shipping INTEGER NOT NULL,
                    tax INTEGER NOT NULL,
                    token_id TEXT NOT NULL,
                    payment_description TEXT NOT NULL,
                    shipping_method TEXT NOT NULL,
                    ship_to TEXT NOT NULL,
                    failure TEXT
                );
                CREATE INDEX orders_by_sequence ON orders(sequence DESC);
                CREATE TABLE order_line (
                    order_number TEXT NOT NULL REFERENCES orders(number),
                    position INTEGER NOT NULL,
                    product_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    unit_price INTEGER NOT NULL,
                    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                    PRIMARY KEY (order_number, position)
                );
                -- The sandbox provider's own records, standing in for a real provider's.
                CREATE TABLE sandbox_charge (
                    idempotency_key TEXT PRIMARY KEY NOT NULL,
                    token_id TEXT NOT NULL,
                    amount INTEGER NOT NULL,
                    currency TEXT NOT NULL,
                    outcome TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3-carts-wallets-addresses") { db in
            try db.execute(sql: """
                CREATE TABLE cart_line (
                    customer TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    product_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    unit_price INTEGER NOT NULL,
                    currency TEXT NOT NULL,
                    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                    PRIMARY KEY (customer, position)
                );
                -- Cards keep only what is needed to show and charge them: never a full number or a CVC.
                CREATE TABLE wallet_card (
                    customer TEXT NOT NULL,
                    id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    network TEXT NOT NULL,
                    last_four TEXT NOT NULL CHECK (length(last_four) = 4),
                    expiry_month INTEGER NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
                    expiry_year INTEGER NOT NULL,
                    is_default INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (customer, id)
                );
                CREATE TABLE address (
                    customer TEXT NOT NULL,
                    id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    street TEXT NOT NULL,
                    city TEXT NOT NULL,
                    postal_code TEXT NOT NULL,
                    country TEXT NOT NULL,
                    email TEXT NOT NULL,
                    phone TEXT NOT NULL,
                    is_default INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (customer, id)
                );
                """)
        }
        migrator.registerMigration("v4-accounts") { db in
            try db.execute(sql: """
                -- Orders placed before accounts existed belong to no one ('') and are listed only by `storefront orders`.
                ALTER TABLE orders ADD COLUMN customer TEXT NOT NULL DEFAULT '';
                CREATE INDEX orders_by_customer ON orders(customer, sequence DESC);
                ALTER TABLE wallet_card ADD COLUMN added INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE address ADD COLUMN added INTEGER NOT NULL DEFAULT 0;
                -- The name and email an identity provider gave on the first sign-in.
                CREATE TABLE account (
                    customer TEXT PRIMARY KEY NOT NULL,
                    name TEXT,
                    email TEXT
                );
                -- The sandbox identity provider's own records, standing in for a real provider's.
                CREATE TABLE sandbox_id_user (
                    id TEXT PRIMARY KEY NOT NULL,
                    email TEXT NOT NULL UNIQUE,
                    revoked INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE sandbox_id_refresh (
                    token_hash TEXT PRIMARY KEY NOT NULL,
                    user_id TEXT NOT NULL REFERENCES sandbox_id_user(id),
                    expires_at REAL NOT NULL
                );
                """)
        }
        return migrator
    }
}

extension StoreDatabase {
    /// Reads in a snapshot; a failure becomes a `StorageError` in words for the shopper.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw StorageError(StoreDatabaseError.from(error, path: path).description)
        }
    }

    /// Writes in one IMMEDIATE transaction; a failure becomes a `StorageError` in words for the shopper.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.write(body)
        } catch {
            throw StorageError(StoreDatabaseError.from(error, path: path).description)
        }
    }
}
