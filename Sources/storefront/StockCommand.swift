import ArgumentParser
import Foundation
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

    /// The version of the `--json` documents (docs/stock.md).
    static let jsonVersion = 1

    /// Prints `levels` as a table or as `{"version": 1, "stock": [...]}`.
    static func emit(_ levels: [StockLevel], json: Bool) throws {
        let text: String
        if json {
            let document: [String: Any] = [
                "version": jsonVersion,
                "stock": levels.map {
                    ["productId": $0.productID.rawValue, "name": $0.name, "onHand": $0.onHand, "reserved": $0.reserved, "sold": $0.sold]
                        as [String: Any]
                },
            ]
            text = try jsonText(document)
        } else if levels.isEmpty {
            text = "No products."
        } else {
            text = TextTable.render(
                header: ["Product", "Name", "On hand", "Reserved", "Sold"],
                rows: levels.map { [$0.productID.rawValue, $0.name, String($0.onHand), String($0.reserved), String($0.sold)] },
                rightAligned: [2, 3, 4]
            )
        }
        guard storefront.emit(text + "\n", to: STDOUT_FILENO) else {
            complain("cannot write the stock: \(String(cString: strerror(errno)))")
            throw ExitCodes.ioError
        }
    }

    /// Runs a change; exits 65 for an unknown product or a count below zero, 74 when storage failed.
    static func change(_ shop: ShopDatabaseOptions, json: Bool, _ body: (any StockRepository) async throws(StockChangeError) -> StockLevel)
        async throws
    {
        let (stock, close) = try await shop.openStock()
        defer { close() }
        let level: StockLevel
        do throws(StockChangeError) {
            level = try await body(stock)
        } catch {
            complain("\(error)")
            if case .storage = error { throw ExitCodes.ioError }
            throw ExitCodes.dataError
        }
        try emit([level], json: json)
    }

    /// `storefront stock [list] [--low N] [--json]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every product's stock, fewest on hand first.")

        @Option(help: ArgumentHelp("Only products with at most this many on hand.", valueName: "n"))
        var low: Int?

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func validate() throws {
            if let low, low < 0 { throw ValidationError("--low must be 0 or more") }
        }

        func run() async throws {
            let (stock, close) = try await shop.openStock()
            defer { close() }
            let levels: [StockLevel]
            do { levels = try await stock.stockLevels() } catch {
                complain("\(error)")
                throw ExitCodes.ioError
            }
            try StockCommand.emit(levels.filter { level in low.map { level.onHand <= $0 } ?? true }, json: json)
        }
    }

    /// `storefront stock set ID N`.
    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set what is on hand of a product (a count taken on the shelf).")

        @Argument(help: ArgumentHelp("The product's id, as in the catalog.", valueName: "product"))
        var product: String

        @Argument(help: ArgumentHelp("How many are on hand, 0 or more.", valueName: "count"))
        var count: Int

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            let (product, count) = (ProductID(product), count)
            try await StockCommand.change(shop, json: json) { stock throws(StockChangeError) in try await stock.setStock(of: product, onHand: count)
            }
        }
    }

    /// `storefront stock adjust ID --by ±N`.
    struct Adjust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add to what is on hand of a product, or take away with a negative number.")

        @Argument(help: ArgumentHelp("The product's id, as in the catalog.", valueName: "product"))
        var product: String

        // An option, not an argument: a bare "-2" reads as an option; "--by -2" and "--by=-2" both read as a number.
        @Option(name: .customLong("by"), help: ArgumentHelp("How many to add (5) or take away (-2).", valueName: "change"))
        var change: Int

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            let (product, change) = (ProductID(product), change)
            try await StockCommand.change(shop, json: json) { stock throws(StockChangeError) in try await stock.adjustStock(of: product, by: change)
            }
        }
    }
}
