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
                FileHandle.standardError.write(Data("storefront: no such file: \(path)\n".utf8))
                throw ExitCodes.noInput
            }
            do {
                let catalog = try CatalogLoader.load(contentsOf: URL(fileURLWithPath: path))
                print("\(path): valid, \(catalog.products.count) products in \(catalog.store.currency.code) for \(catalog.store.name)")
            } catch let error as CatalogError {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCodes.dataError
            }
        }
    }
}
