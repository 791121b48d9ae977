import ArgumentParser
import Foundation
import StoreModels

/// `storefront catalog …`: tools for catalog files.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Work with catalog files.",
        subcommands: [Validate.self]
    )

    /// `storefront catalog validate PATH`: exits 0 when valid, 65 with every problem listed when not.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check a catalog file and list every problem in it.")

        @Argument(help: ArgumentHelp("The catalog JSON file.", valueName: "path"))
        var path: String

        func run() throws {
            guard FileManager.default.fileExists(atPath: path) else {
                complain("no such file: \(path)")
                throw ExitCodes.noInput
            }
            guard isRegularFile(path) else {
                complain("\(path) is not a regular file")
                throw ExitCodes.noInput
            }
            do {
                let catalog = try CatalogLoader.load(contentsOf: URL(fileURLWithPath: path))
                emit("\(path): valid, \(catalog.products.count) products in \(catalog.store.currency.code) for \(catalog.store.name)\n", to: STDOUT_FILENO)
            } catch let error as CatalogError {
                emit("\(error)\n", to: STDERR_FILENO)
                throw ExitCodes.dataError
            }
        }
    }
}
