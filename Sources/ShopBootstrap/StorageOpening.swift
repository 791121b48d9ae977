import Foundation
import ShopBundledCatalog
import ShopModels
import ShopPictures
import StoragePostgres
import StorageRows
import StorageSQLite
import SystemPackage

/// Where the shop keeps its data: SQLite in a data directory, or a PostgreSQL that several hosts share.
public enum StoragePlace: Sendable, Equatable {
    case sqlite(directory: FilePath)
    case postgres(URL)
}

/// Where a SQLite shop's catalog comes from: the bundled one, or a file of the merchant's.
public enum CatalogSource: Sendable, Equatable {
    case bundled
    case file(FilePath)
}

/// Why the shop's storage could not be opened, in the operator's words, and what kind of failure it is (each kind
/// has its exit code).
public struct StorageOpenFailure: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The settings contradict each other (a catalog file with PostgreSQL).
        case usage
        /// A setting or a login is wrong.
        case configuration
        /// The database server does not answer.
        case unreachable
        /// Something named is not there: a catalog file, a data directory, a shop, a catalog in PostgreSQL.
        case noInput
        /// The catalog file is not a valid catalog.
        case invalidCatalog
        /// The data directory cannot be made.
        case cannotCreate
        /// The database is busy past its timeout.
        case busy
        /// Anything else of the files or the server: the schema, a damaged file, a full disk.
        case io
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

extension ShopStorage {
    /// Opens the storage a shop, a front end or a worker runs on; throws `StorageOpenFailure`.
    ///
    /// SQLite: the database in `directory` is made or brought up to date, and `catalog` imported when its content
    /// changed. PostgreSQL: migrated unless `migrate` is false, its catalog the one `storefront catalog import` put
    /// there, so a catalog file is refused. `waitsWhileUnreachable`: a PostgreSQL that does not answer is waited for,
    /// told once through `tell`, for a shopper at a terminal who can leave with Ctrl-C.
    public static func openShop(
        at place: StoragePlace, catalog: CatalogSource, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String],
        waitsWhileUnreachable: Bool = false, tell: @Sendable (String) -> Void = { _ in }
    ) async throws -> ShopStorage {
        switch place {
        case .sqlite(let directory):
            let (database, repository) = try openSQLite(directory: directory, catalog: catalog)
            return await withItsClock(.sqlite(database, catalog: repository))
        case .postgres(let url):
            if case .file(let path) = catalog {
                throw StorageOpenFailure(
                    .usage,
                    "with a PostgreSQL database the catalog comes from the database, not from \(path): import it once with `storefront catalog import \(path) --database URL`, and drop the catalog setting"
                )
            }
            let database = try await PostgresConnecting.connect(
                url, pool: pool, migrate: migrate, environment: environment, waitsWhileUnreachable: waitsWhileUnreachable, tell: tell)
            do {
                return await withItsClock(.postgres(database, catalog: try await PostgresCatalogImport.open(database: database)))
            } catch {
                database.close()
                throw PostgresConnecting.failure(error)
            }
        }
    }

    /// The shop's time now, its clock's offset read again first: a long-running worker follows a move another
    /// process made.
    public func currentTime() async -> Date {
        await clock.refresh(from: clockStore)
        return clock.now()
    }

    /// `storage`, its clock at the offset the shop keeps (none while the shop cannot say).
    static func withItsClock(_ storage: ShopStorage) async -> ShopStorage {
        await storage.clock.refresh(from: storage.clockStore)
        return storage
    }

    /// Opens a shop that exists already, for the merchant's commands: its SQLite file must be there (it is brought up
    /// to date), or its PostgreSQL schema current (never migrated). The catalog is the one last imported, never a
    /// file's, so nothing of the shop's changes by opening it.
    public static func openExisting(at place: StoragePlace, environment: [String: String]) async throws -> ShopStorage {
        switch place {
        case .sqlite(let directory):
            let file = directory.appending(SQLiteDatabase.fileName)
            guard FileManager.default.fileExists(atPath: file.string) else {
                throw StorageOpenFailure(.noInput, "no shop in \(directory): it holds no \(SQLiteDatabase.fileName)")
            }
            do {
                let database = try SQLiteDatabase.open(directory: directory.urlForFoundation)
                guard let catalog = try SQLiteCatalogImport.stored(database: database) else {
                    throw StorageOpenFailure(.noInput, "no shop in \(directory): its database holds no catalog yet; start the shop there once")
                }
                return await withItsClock(.sqlite(database, catalog: catalog))
            } catch let failure as StorageOpenFailure {
                throw failure
            } catch {
                let problem = SQLiteDatabaseError.from(error, path: file.string)
                if case .beingRestored = problem { throw StorageOpenFailure(.busy, "\(problem)") }
                throw StorageOpenFailure(.io, "\(problem)")
            }
        case .postgres:
            return try await openShop(at: place, catalog: .bundled, pool: .command, migrate: false, environment: environment)
        }
    }

    /// The SQLite database in `directory` with `catalog` imported when it changed.
    static func openSQLite(directory: FilePath, catalog: CatalogSource) throws -> (SQLiteDatabase, SQLCatalogRepository) {
        if case .file(let path) = catalog {
            guard FileManager.default.fileExists(atPath: path.string) else { throw StorageOpenFailure(.noInput, "no such catalog file: \(path)") }
            // A FIFO or a device would be read until its writer stops, which may be never.
            guard isRegularFile(path) else { throw StorageOpenFailure(.noInput, "the catalog \(path) is not a regular file") }
        }
        do {
            let database = try SQLiteDatabase.open(directory: directory.urlForFoundation)
            switch catalog {
            case .file(let path):
                let url = path.urlForFoundation
                return (
                    database,
                    try SQLiteCatalogImport.open(database: database, catalogFile: url, pictures: CatalogPictureImport.files(beside: url).resolving)
                )
            case .bundled:
                return (
                    database,
                    try SQLiteCatalogImport.open(
                        database: database, catalogData: Data(BundledCatalog.json.utf8), source: "bundled catalog",
                        pictures: BundledPictures.catalogImport.resolving)
                )
            }
        } catch let error as CatalogError {
            throw StorageOpenFailure(.invalidCatalog, "invalid catalog \(error)")
        } catch let error as SQLiteDatabaseError {
            if case .cannotCreateDirectory = error { throw StorageOpenFailure(.cannotCreate, "\(error)") }
            // A restore under way: try again once it has finished (75), as for any lock held.
            if case .beingRestored = error { throw StorageOpenFailure(.busy, "\(error)") }
            throw StorageOpenFailure(.io, "\(error)")
        }
    }
}

/// Reaching PostgreSQL: the URL read, the client started, the schema migrated or checked.
public enum PostgresConnecting {
    /// Connects and migrates (or only checks the schema, or neither); throws `StorageOpenFailure`.
    ///
    /// `waitsWhileUnreachable`: a server that does not answer is tried again every two seconds (told once through
    /// `tell`) instead of failing; any other failure still fails.
    public static func connect(
        _ url: URL, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String], checkSchema: Bool = true,
        waitsWhileUnreachable: Bool = false, tell: @Sendable (String) -> Void = { _ in }
    ) async throws -> PostgresDatabase {
        let location: PostgresLocation
        do {
            location = try PostgresLocation.parse(url, environment: environment)
        } catch {
            throw StorageOpenFailure(.configuration, "\(error)")
        }
        var toldWaiting = false
        while true {
            do {
                let database = try PostgresDatabase.connect(location, pool: pool)
                if migrate { try await database.migrate() } else if checkSchema { try await database.checkSchema() }
                if toldWaiting { tell("the shop's database answers again; opening the shop") }
                return database
            } catch  where error.isUnreachable && waitsWhileUnreachable {
                if !toldWaiting { tell("The database is not reachable; retrying every 2 s (Ctrl-C leaves): \(error)") }
                toldWaiting = true
                try await Task.sleep(for: .seconds(2))
            } catch {
                throw failure(error)
            }
        }
    }

    /// The failure a PostgreSQL error is to whoever opened the storage.
    public static func failure(_ error: any Error) -> StorageOpenFailure {
        guard let error = error as? PostgresDatabaseError else { return StorageOpenFailure(.io, "\(error)") }
        switch error {
        case .configuration, .refusedLogin: return StorageOpenFailure(.configuration, "\(error)")
        case .unreachable: return StorageOpenFailure(.unreachable, "\(error)")
        case .noCatalog: return StorageOpenFailure(.noInput, "\(error)")
        case .newerSchema, .notMigrated, .server: return StorageOpenFailure(.io, "\(error)")
        }
    }
}

extension ShopStorage {
    /// The orders of a shop (the customer's, or everyone's), newest first, at most `limit`, read without writing
    /// anything: SQLite opened read-only (a shop not made yet has none), PostgreSQL's schema checked, never migrated.
    public static func readOrders(at place: StoragePlace, customer: String?, limit: Int, environment: [String: String]) async throws -> [Order] {
        switch place {
        case .sqlite(let directory):
            // SQLite's own calls take the path as text.
            let path = directory.appending(SQLiteDatabase.fileName).string
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            do {
                let database = try SQLiteDatabase.openReadOnly(path: path, busyTimeout: 3)
                guard let catalog = try SQLiteCatalogImport.stored(database: database) else { return [] }
                return try await SQLOrderRepository(database: database, currency: catalog.shop.currency).orders(
                    customer: customer, offset: 0, limit: limit)
            } catch {
                let problem = SQLiteDatabaseError.from(error, path: path)
                if case .busy = problem { throw StorageOpenFailure(.busy, "\(problem)") }
                throw StorageOpenFailure(.io, "\(problem)")
            }
        case .postgres(let url):
            let database = try await PostgresConnecting.connect(url, pool: .command, migrate: false, environment: environment)
            defer { database.close() }
            do {
                let catalog = try await PostgresCatalogImport.open(database: database)
                return try await SQLOrderRepository(database: database, currency: catalog.shop.currency).orders(
                    customer: customer, offset: 0, limit: limit)
            } catch {
                throw StorageOpenFailure(.io, "\(error)")
            }
        }
    }
}

extension FilePath {
    /// The path as Foundation's file URL.
    fileprivate var urlForFoundation: URL { URL(fileURLWithPath: string) }
}

/// Whether `path` names a regular file (after links): not a directory, FIFO or device.
public func isRegularFile(_ path: FilePath) -> Bool {
    var info = stat()
    return path.withPlatformString { stat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFREG
}
