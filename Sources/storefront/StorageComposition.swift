import ArgumentParser
import Foundation
import ShopBootstrap
import ShopServices
import StoragePostgres
import SystemPackage

extension StorageOpenFailure {
    /// The exit code each kind of failure ends a command with (docs/exit-codes.md).
    var exitCode: ExitCode {
        switch kind {
        case .usage: ExitCodes.usage
        case .configuration: ExitCodes.configError
        case .unreachable: ExitCodes.databaseUnreachable
        case .noInput: ExitCodes.noInput
        case .invalidCatalog: ExitCodes.dataError
        case .cannotCreate: ExitCodes.cannotCreate
        case .busy: ExitCodes.temporaryFailure
        case .io: ExitCodes.ioError
        }
    }
}

/// Runs `open`; a storage that cannot be opened is told on stderr and ends the command with its exit code.
func openingStorage<T>(_ open: () async throws -> T) async throws -> T {
    do {
        return try await open()
    } catch let failure as StorageOpenFailure {
        complain(failure.description)
        throw failure.exitCode
    }
}

extension ShopStorage {
    /// Opens the storage `configuration` names, for a shop, a front end or a worker; prints the problem and exits on
    /// failure (`ShopStorage.openShop` says what is opened how).
    static func open(
        configuration: ShopConfiguration, dataDirectory: FilePath, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String],
        waitsForDatabase: Bool = false
    ) async throws -> ShopStorage {
        try await openingStorage {
            try await openShop(
                at: configuration.storagePlace(dataDirectory: dataDirectory), catalog: configuration.catalog.map { .file($0) } ?? .bundled,
                pool: pool,
                migrate: migrate, environment: environment, waitsWhileUnreachable: waitsForDatabase, tell: { complain($0) }
            )
        }
    }
}

/// Reaching PostgreSQL from a command that needs only the database (catalog import, database status).
enum PostgresSetup {
    /// Connects and migrates (or only checks the schema, or neither); prints the problem and exits on failure.
    static func connect(
        _ url: URL, pool: PostgresDatabase.Pool, migrate: Bool, environment: [String: String], checkSchema: Bool = true
    ) async throws -> PostgresDatabase {
        try await openingStorage {
            try await PostgresConnecting.connect(url, pool: pool, migrate: migrate, environment: environment, checkSchema: checkSchema)
        }
    }

    /// Says what went wrong and picks the exit code.
    static func exit(for error: any Error) -> ExitCode {
        let failure = PostgresConnecting.failure(error)
        complain(failure.description)
        return failure.exitCode
    }
}

extension ShopOptions {
    /// A server's start: the configuration, the absolute data directory, and the database opened once (migrated and,
    /// on SQLite, the catalog imported, before any session or request races to do it), said in the log.
    func openForServer(environment: [String: String]) async throws -> (
        configuration: ShopConfiguration, dataDirectory: FilePath, storage: ShopStorage
    ) {
        let configuration = try configuration(environment: environment)
        let dataDirectory = SessionLaunch.absolute(configuration.dataDirectory(environment: environment))
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !noMigrate, environment: environment)
        announce("storage: \(storage.place)")
        return (configuration, dataDirectory, storage)
    }
}
