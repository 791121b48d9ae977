import ArgumentParser
import Foundation
import ShopBootstrap
import ShopModels
import StoragePostgres
import SystemPackage

/// `storefront catalog …`: tools for catalog files.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Work with catalog files.",
        subcommands: [Validate.self, Import.self]
    )

    /// `storefront catalog validate PATH`: exits 0 when valid, 65 with every problem listed when not.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "validate", abstract: "Check a catalog file and list every problem in it.")

        @Argument(help: ArgumentHelp("The catalog JSON file.", valueName: "path"))
        var path: FilePath

        func run() throws {
            let (catalog, _) = try CatalogCommand.load(path)
            emit("\(path): valid, \(catalog.products.count) products in \(catalog.shop.currency.code) for \(catalog.shop.name)\n", to: STDOUT_FILENO)
        }
    }

    /// `storefront catalog import PATH --database URL`: the catalog into PostgreSQL, in one transaction.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import or update the catalog in the shop's PostgreSQL, in one transaction.",
            discussion: """
                Names, texts and prices are replaced; stock is set only for products that first appear, \
                and products the file no longer lists leave the catalog but stay in old orders. Front ends \
                read the catalog from the database: they never import a file themselves. Exits 65 for an \
                invalid file (nothing is imported), 66 for a missing one, 69 when the server does not answer.
                """
        )

        @Argument(help: ArgumentHelp("The catalog JSON file.", valueName: "path"))
        var path: FilePath

        @Option(help: ArgumentHelp("The database: postgres://USER@HOST:PORT/DB?sslmode=require. Env: STOREFRONT_DATABASE_URL.", valueName: "url"))
        var database: String?

        @Flag(name: .customLong("no-migrate"), help: "Do not bring the schema up to date first; refuse a database that is not (exit 74).")
        var noMigrate = false

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let url = try DatabaseURL.required(database, environment: environment)
            let (catalog, data) = try CatalogCommand.load(path)
            let database = try await PostgresSetup.connect(url, pool: .command, migrate: !noMigrate, environment: environment)
            defer { database.close() }
            let summary: PostgresCatalogRepository.ImportSummary
            do {
                summary = try await PostgresCatalogRepository.importCatalog(catalog, contentHash: ContentHash.fnv1a64(data), into: database)
            } catch {
                throw PostgresSetup.exit(for: error)
            }
            let place = database.location.description
            guard summary.changed else {
                emit("\(place) already holds this catalog (\(summary.products) products); nothing changed\n", to: STDOUT_FILENO)
                return
            }
            emit(
                "imported \(summary.products) products into \(place): \(summary.added) new, \(summary.retired) no longer listed\n", to: STDOUT_FILENO)
        }
    }

    /// Reads and validates a catalog file: exits 66 when it is missing or not a file, 65 with every problem when it is invalid.
    static func load(_ path: FilePath) throws -> (Catalog, Data) {
        guard FileManager.default.fileExists(atPath: path.string) else {
            complain("no such file: \(path)")
            throw ExitCodes.noInput
        }
        guard isRegularFile(path) else {
            complain("\(path) is not a regular file")
            throw ExitCodes.noInput
        }
        let data: Data
        do {
            data = try Data(contentsOf: path.fileURL)
        } catch {
            complain("cannot read \(path): \(error.localizedDescription)")
            throw ExitCodes.noInput
        }
        do {
            return (try CatalogLoader.load(data: data, source: path.string), data)
        } catch let error as CatalogError {
            emit("\(error)\n", to: STDERR_FILENO)
            throw ExitCodes.dataError
        }
    }
}
