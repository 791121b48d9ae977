import ArgumentParser
import ShopCommands
import ShopModels
import ShopPorts

/// `storefront stock`: the stock of every product, and counts set or adjusted by hand.
struct StockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stock",
        abstract: "List, set and adjust the stock of the catalog's products.",
        subcommands: [List.self, Set.self, Adjust.self],
        defaultSubcommand: List.self
    )

    /// `storefront stock [list] [--low N] [--json]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every product's stock, fewest on hand first.")

        @Option(help: ArgumentHelp("Only products with at most this many on hand.", valueName: "n"))
        var low: Int?

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func validate() throws {
            if let low, low < 0 { throw ValidationError("--low must be 0 or more") }
        }

        func run() async throws {
            try await StockCommands.list(configuration: shop.configuration(), low: low, json: json)
        }
    }

    /// `storefront stock set ID N`.
    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set what is on hand of a product (a count taken on the shelf).")

        @Argument(help: ArgumentHelp("The product's id as in the catalog, or a variant's SKU.", valueName: "product"))
        var product: String

        // Taken as words, unrecognized ones too: a bare "-1" would otherwise read as an unknown option and be told as a
        // missing count; every count below 0 is told the same way, however it was typed.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("How many are on hand, 0 or more.", valueName: "count"))
        var countWords: [String] = []

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        /// The words given for the count; "--" only ends the options.
        var countTyped: [String] { countWords.filter { $0 != "--" } }
        /// The count typed; one below 0 is refused by the stock itself (65), as `stock set P -- -1` always was.
        var count: Int { countTyped.first.flatMap { Int($0) } ?? 0 }

        func validate() throws {
            guard countTyped.count == 1, let typed = countTyped.first else {
                throw ValidationError(
                    countTyped.isEmpty
                        ? "Give the count on hand: storefront stock set \(product) 12" : "Give one count, not \(countTyped.count) words.")
            }
            guard Int(typed) != nil else { throw ValidationError("The count \"\(typed)\" is not a whole number.") }
        }

        func run() async throws {
            let (product, count) = (ProductID(product), count)
            try await StockCommands.change(configuration: shop.configuration(), json: json) { stock throws(StockChangeError) in
                try await stock.setStock(of: product, onHand: count)
            }
        }
    }

    /// `storefront stock adjust ID --by ±N`.
    struct Adjust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "adjust", abstract: "Add to what is on hand of a product, or take away with a negative number.")

        @Argument(help: ArgumentHelp("The product's id as in the catalog, or a variant's SKU.", valueName: "product"))
        var product: String

        // An option, not an argument: a bare "-2" reads as an option; "--by -2" and "--by=-2" both read as a number.
        @Option(name: .customLong("by"), help: ArgumentHelp("How many to add (5) or take away (-2).", valueName: "change"))
        var change: Int

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            let (product, change) = (ProductID(product), change)
            try await StockCommands.change(configuration: shop.configuration(), json: json) { stock throws(StockChangeError) in
                try await stock.adjustStock(of: product, by: change)
            }
        }
    }
}
