import ArgumentParser
import Foundation
import ShopBootstrap
import StoragePostgres

/// `storefront db …`: looking after the shop's PostgreSQL.
struct DatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Look after the shop's PostgreSQL database.",
        subcommands: [Migrate.self]
    )

    /// `storefront db migrate --database URL`: applies the schema steps the database lacks.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Bring the PostgreSQL schema up to date (serve does this at start unless --no-migrate).",
            discussion:
                "Exits 0 when the schema is current, 74 when a newer storefront wrote it, 69 when the server does not answer, 78 for a bad URL or login."
        )

        @Option(help: ArgumentHelp("The database: postgres://USER@HOST:PORT/DB?sslmode=require. Env: STOREFRONT_DATABASE_URL.", valueName: "url"))
        var database: String?

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let url = try DatabaseURL.required(database, environment: environment)
            let database = try await PostgresSetup.connect(url, pool: .command, migrate: false, environment: environment, checkSchema: false)
            defer { database.close() }
            let applied: [String]
            do {
                applied = try await database.migrate()
            } catch {
                throw PostgresSetup.exit(for: error)
            }
            let place = database.location.description
            emit(
                applied.isEmpty ? "\(place): the schema is up to date\n" : "\(place): applied \(applied.joined(separator: ", "))\n", to: STDOUT_FILENO
            )
        }
    }
}

/// The database URL a PostgreSQL-only command works on: the flag, else the environment, else the config file.
enum DatabaseURL {
    static func required(_ flag: String?, environment: [String: String]) throws -> URL {
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
