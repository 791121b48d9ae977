import ArgumentParser
import Foundation
import ShopCommands
import SystemPackage

/// `storefront catalog …`: tools for catalog files.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Work with catalog files.",
        subcommands: [Validate.self, Import.self, Export.self, Picture.self]
    )

    /// `storefront catalog picture FILE`: a picture kept in the shop, for a product to name.
    struct Picture: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "picture",
            abstract: "Keep a PNG or JPEG in the shop and print the reference a product's \"pictures\" names it by.",
            discussion: """
                The file is checked as a catalog's picture files are (at most 8 MiB, 8,192 pixels a side, 24 megapixels, \
                decoded whole). Prints one line of JSON for a product's or variant's "pictures" (the console's form, \
                PUT /v1/merchant/products/ID, or a catalog file). Exits 66 for a missing file, 65 for a refused picture, \
                74 when storage fails.
                """
        )

        @Argument(help: ArgumentHelp("The PNG or JPEG file.", valueName: "file"))
        var file: FilePath

        @OptionGroup var shop: ShopDatabaseOptions

        func run() async throws {
            try await CatalogCommands.keepPicture(file, configuration: shop.configuration())
        }
    }

    /// `storefront catalog validate PATH`: exits 0 when valid, 65 with every problem listed when not.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "validate", abstract: "Check a catalog file and list every problem in it.")

        @Argument(help: ArgumentHelp("The catalog JSON file.", valueName: "path"))
        var path: FilePath

        func run() throws {
            try CatalogCommands.validate(path)
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
            try await CatalogCommands.importCatalog(
                path, databaseFlag: database, migrate: !noMigrate, environment: ProcessInfo.processInfo.environment)
        }
    }

    /// `storefront catalog export PATH`: the shop's catalog as it is now, as a file `catalog import` reads back.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the shop's catalog as it is now (products, options, variants, stock on hand) to a catalog file.",
            discussion: "PATH - writes to standard output. Exits 73 when the file cannot be written, 74 when storage fails."
        )

        @Argument(help: ArgumentHelp("Where to write the catalog JSON, or - for standard output.", valueName: "path"))
        var path: FilePath

        @OptionGroup var shop: ShopDatabaseOptions

        func run() async throws {
            try await CatalogCommands.export(to: path, configuration: shop.configuration())
        }
    }
}

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
            try await CatalogCommands.migrate(databaseFlag: database, environment: ProcessInfo.processInfo.environment)
        }
    }
}
