import Foundation
import ShopBootstrap
import ShopServices
import StoragePostgres
import SystemPackage

extension ShopConfiguration {
    /// The shop's settings from the file and the environment, read as `up` reads them; each problem is told on stderr
    /// and the command exits 78.
    public static func loadForCommand(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ShopConfiguration {
        try ServiceConfiguration.loadForCommand(flags: [], environment: environment).shop
    }

    /// A command's configuration: the file and the environment (or `settings`, which a front's command read with its
    /// own flags over them), with the shop's flags over them (a bad value is told and exits 64, a bad file 78).
    public static func forCommand(
        flags: [(key: String, value: String?)], settings: ServiceConfiguration? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ShopConfiguration {
        var configuration = try settings?.shop ?? loadForCommand(environment: environment)
        try configuration.apply(flags: flags)
        return configuration
    }

    /// Command-line values over the file's and the environment's, each typed by `set`; a bad one is told and exits 64.
    public mutating func apply(flags: [(key: String, value: String?)]) throws {
        for case let (key, value?) in flags {
            do { try set(key, to: value, source: "--\(key)", line: nil) } catch {
                complain("\(error)")
                throw ExitCodes.usage
            }
        }
    }
}

extension ServiceConfiguration {
    /// The configuration a command runs on: the file and the environment, with the command's flags over them as
    /// `--set section.key=value` puts them (each flag checked by the table as it was parsed); each problem is told on
    /// stderr and the command exits 78.
    public static func loadForCommand(
        flags: [(setting: String, value: String?)], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ServiceConfiguration {
        let configuration = load(environment: environment, overrides: flags.compactMap { setting, value in value.map { "\(setting)=\($0)" } })
        guard configuration.problems.isEmpty else {
            for problem in configuration.problems { complain("bad configuration: \(problem)") }
            throw ExitCodes.configError
        }
        return configuration
    }
}

extension ShopStorage {
    /// Opens the storage `configuration` names, for a shop, a front end or a worker; prints the problem and exits on
    /// failure (`ShopStorage.openShop` says what is opened how).
    public static func open(
        configuration: ShopConfiguration, dataDirectory: FilePath, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String],
        waitsForDatabase: Bool = false
    ) async throws -> ShopStorage {
        let storage = try await openingStorage {
            try await openShop(
                at: configuration.storagePlace(dataDirectory: dataDirectory), catalog: configuration.catalog.map { .file($0) } ?? .bundled,
                pool: pool, migrate: migrate, environment: environment, waitsWhileUnreachable: waitsForDatabase, tell: { complain($0) }
            )
        }
        return try pricingMarkets(of: storage, configuration)
    }

    /// `storage` with its catalog as its home market sells it; rates that do not serve the markets are told, exit 78.
    static func pricingMarkets(of storage: ShopStorage, _ configuration: ShopConfiguration) throws -> ShopStorage {
        do { return try configuration.pricingMarkets(of: storage) } catch {
            complain("bad configuration: \(error)")
            throw ExitCodes.configError
        }
    }

    /// A command's storage in the data directory `configuration` names (never made here).
    public static func open(configuration: ShopConfiguration, migrate: Bool, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws -> ShopStorage
    {
        try await open(
            configuration: configuration, dataDirectory: configuration.dataDirectory(environment: environment), pool: .command, migrate: migrate,
            environment: environment)
    }

    /// The shop's storage for a merchant's command, opened for writing (SQLite is brought up to date; PostgreSQL must
    /// be already); a shop that is not there is told and exits 66.
    public static func openForMerchant(configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws -> ShopStorage
    {
        let directory = configuration.dataDirectory(environment: environment)
        let storage = try await openingStorage {
            try await ShopStorage.openExisting(at: configuration.storagePlace(dataDirectory: directory), environment: environment)
        }
        return try pricingMarkets(of: storage, configuration)
    }

    /// A server's start: the absolute data directory and the database opened once (migrated and, on SQLite, the catalog
    /// imported, before any session or request races to do it), said in the log.
    public static func openForServer(
        configuration: ShopConfiguration, migrate: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> (
        dataDirectory: FilePath, storage: ShopStorage
    ) {
        let dataDirectory = SessionLaunch.absolute(configuration.dataDirectory(environment: environment))
        let storage = try await open(
            configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: migrate, environment: environment)
        announce("storage: \(storage.place)")
        return (dataDirectory, storage)
    }
}

/// Reaching PostgreSQL from a command that needs only the database (catalog import, database status).
public enum PostgresSetup {
    /// Connects and migrates (or only checks the schema, or neither); prints the problem and exits on failure.
    public static func connect(
        _ url: URL, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String], checkSchema: Bool = true
    ) async throws -> PostgresDatabase {
        try await openingStorage {
            try await PostgresConnecting.connect(url, pool: pool, migrate: migrate, environment: environment, checkSchema: checkSchema)
        }
    }

    /// Says what went wrong and picks the exit.
    public static func exit(for error: any Error) -> CommandExit {
        let failure = PostgresConnecting.failure(error)
        complain(failure.description)
        return failure.exit
    }

    /// The database URL a PostgreSQL-only command works on: the flag, else the environment, else the config file.
    public static func databaseURL(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        // A flag is taken alone: the config file is not read, so a broken one does not stand in its way.
        var configuration = ShopConfiguration()
        if flag != nil {
            try configuration.apply(flags: [("database", flag)])
        } else {
            configuration = try ShopConfiguration.loadForCommand(environment: environment)
        }
        guard let url = configuration.database else {
            complain("name the database with --database postgres://USER@HOST:PORT/DB (or STOREFRONT_DATABASE_URL, or `database` in the config file)")
            throw ExitCodes.usage
        }
        return url
    }
}
