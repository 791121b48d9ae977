import ArgumentParser
import Foundation
import ShopModels
import ShopPorts
import StoragePostgres
import StorageSQLite
import SystemPackage

/// Every repository the shop keeps, in one database: SQLite in the data directory (the default), or
/// the PostgreSQL that `database` names, shared by every front end.
struct ShopStorage {
    var catalog: any CatalogRepository
    var orders: any OrderRepository & RefundRepository & OrderQueue
    var stock: any StockRepository
    var carts: any CartRepository
    var wallets: any WalletRepository
    var profiles: any AccountProfileRepository
    var identities: any IdentityDirectory
    var ledger: any ChargeLedger
    /// The messages the orders' changes wrote for their shoppers.
    var outbox: any MailOutbox
    /// The payment provider's webhook events handled, each once.
    var providerEvents: any ProviderEvents
    var references: any ProviderReferenceRepository
    /// The HTTP API's personal access tokens.
    var tokens: any APITokenRepository
    /// The HTTP API's idempotency keys.
    var idempotency: any IdempotencyRepository
    /// Where it is, for the log: the file, or the URL without its password.
    var place: String
    /// True when this start imported the catalog file into SQLite.
    var didImport: Bool
    /// What the operator should hear about the files; for the log.
    var warnings: [String]
    /// The PostgreSQL client, when the shop is on PostgreSQL: `serve` watches it to log outages.
    var postgres: PostgresDatabase?

    /// Opens the database the configuration names and the catalog in it. Prints the problem and exits on failure.
    ///
    /// SQLite: the catalog file (or the bundled catalog) is imported when its content changed.
    /// PostgreSQL: the schema is migrated unless `migrate` is false, and the catalog is the one
    /// `storefront catalog import` put there; a catalog file is refused.
    ///
    /// `waitsForDatabase`: a PostgreSQL that does not answer is waited for, said once on stderr,
    /// instead of ending the process with 69; for a shopper at a terminal, who can leave with Ctrl-C.
    static func open(
        configuration: Configuration, dataDirectory: FilePath, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String],
        waitsForDatabase: Bool = false
    ) async throws -> ShopStorage {
        guard let url = configuration.database else {
            let opened = try ShopOptions.openSQLite(path: configuration.catalog, dataDirectory: dataDirectory)
            return sqlite(opened.database, catalog: opened.catalog)
        }
        if let catalog = configuration.catalog {
            complain(
                "with a PostgreSQL database the catalog comes from the database, not from \(catalog): import it once with `storefront catalog import \(catalog) --database URL`, and drop the catalog setting"
            )
            throw ExitCodes.usage
        }
        let database = try await PostgresSetup.connect(
            url, pool: pool, migrate: migrate, environment: environment, waitsWhileUnreachable: waitsForDatabase)
        let catalog: PostgresCatalogRepository
        do {
            catalog = try await PostgresCatalogRepository.open(database: database)
        } catch {
            throw PostgresSetup.exit(for: error)
        }
        return ShopStorage(
            catalog: catalog, orders: PostgresOrderRepository(database: database, currency: catalog.shop.currency),
            stock: PostgresStockRepository(database: database),
            carts: PostgresCartRepository(database: database), wallets: PostgresWalletRepository(database: database),
            profiles: PostgresAccountProfileRepository(database: database), identities: PostgresIdentityDirectory(database: database),
            ledger: PostgresChargeLedger(database: database), outbox: PostgresOutbox(database: database),
            providerEvents: PostgresProviderEvents(database: database), references: PostgresProviderReferences(database: database),
            tokens: PostgresAPITokenRepository(database: database), idempotency: PostgresIdempotencyRepository(database: database),
            place: database.location.description, didImport: false, warnings: [], postgres: database
        )
    }

    static func sqlite(_ database: SQLiteDatabase, catalog: SQLiteCatalogRepository) -> ShopStorage {
        ShopStorage(
            catalog: catalog, orders: SQLiteOrderRepository(database: database, currency: catalog.shop.currency),
            stock: SQLiteStockRepository(database: database),
            carts: SQLiteCartRepository(database: database), wallets: SQLiteWalletRepository(database: database),
            profiles: SQLiteAccountProfileRepository(database: database), identities: SQLiteIdentityDirectory(database: database),
            ledger: SQLiteChargeLedger(database: database), outbox: SQLiteOutbox(database: database),
            providerEvents: SQLiteProviderEvents(database: database), references: SQLiteProviderReferences(database: database),
            tokens: SQLiteAPITokenRepository(database: database), idempotency: SQLiteIdempotencyRepository(database: database),
            place: database.path, didImport: catalog.didImport, warnings: database.warnings, postgres: nil
        )
    }
}

/// Reaching PostgreSQL from a command: the URL read, the client started, the schema checked.
enum PostgresSetup {
    /// Connects and migrates (or only checks the schema, or neither); prints the problem and exits on failure.
    ///
    /// `waitsWhileUnreachable`: a server that does not answer is tried again every two seconds
    /// (said once on stderr) instead of exiting 69; any other failure still exits.
    static func connect(
        _ url: URL, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String], checkSchema: Bool = true,
        waitsWhileUnreachable: Bool = false
    ) async throws -> PostgresDatabase {
        let location: PostgresLocation
        do {
            location = try PostgresLocation.parse(url, environment: environment)
        } catch {
            complain("\(error)")
            throw ExitCodes.configError
        }
        var toldWaiting = false
        while true {
            do {
                let database = try PostgresDatabase.connect(location, pool: pool)
                if migrate { try await database.migrate() } else if checkSchema { try await database.checkSchema() }
                if toldWaiting { complain("the shop's database answers again; opening the shop") }
                return database
            } catch  where error.isUnreachable && waitsWhileUnreachable {
                if !toldWaiting { complain("The database is not reachable; retrying every 2 s (Ctrl-C leaves): \(error)") }
                toldWaiting = true
                try await Task.sleep(for: .seconds(2))
            } catch {
                throw exit(for: error)
            }
        }
    }

    /// Says what went wrong and picks the exit code: 78 for settings and logins, 69 for a server
    /// that does not answer, 66 for a missing catalog, 74 for the schema and anything else.
    static func exit(for error: PostgresDatabaseError) -> ExitCode {
        complain("\(error)")
        switch error {
        case .configuration, .refusedLogin: return ExitCodes.configError
        case .unreachable: return ExitCodes.databaseUnreachable
        case .noCatalog: return ExitCodes.noInput
        case .newerSchema, .notMigrated, .server: return ExitCodes.ioError
        }
    }
}

extension ShopOptions {
    /// A server's start: the configuration, the absolute data directory, and the database opened once (migrated and,
    /// on SQLite, the catalog imported, before any session or request races to do it), said in the log.
    func openForServer(environment: [String: String]) async throws -> (configuration: Configuration, dataDirectory: FilePath, storage: ShopStorage) {
        let configuration = try configuration(environment: environment)
        let dataDirectory = SessionLaunch.absolute(configuration.dataDirectory ?? Configuration.defaultDataDirectory(environment: environment))
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !noMigrate, environment: environment)
        announce("storage: \(storage.place)")
        return (configuration, dataDirectory, storage)
    }
}
