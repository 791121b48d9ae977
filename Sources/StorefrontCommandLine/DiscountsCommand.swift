import ArgumentParser
import ShopCommands

/// `storefront discounts`: the shop's discount codes (docs/discounts.md).
struct DiscountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discounts",
        abstract: "Make, list, pause, resume and delete the shop's discount codes (docs/discounts.md).",
        subcommands: [List.self, Create.self, Pause.self, Resume.self, Delete.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every code: what it takes off, its limits, and its uses.")
        @OptionGroup var shop: ShopDatabaseOptions
        @Flag(help: "Print JSON instead of text.")
        var json = false
        func run() async throws { try await DiscountCommands.list(json: json, configuration: shop.configuration()) }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Make a code: what it takes off, and when and for whom it holds.")
        @Argument(help: ArgumentHelp("The code shoppers type: 3 to 32 letters, digits or dashes, in any case.", valueName: "code"))
        var code: String
        @Option(help: ArgumentHelp("A share of the goods off, in percent (12.5).", valueName: "percent"))
        var percent: String?
        @Option(help: ArgumentHelp("An amount off the goods, in the shop's currency (5.00).", valueName: "amount"))
        var amount: String?
        @Flag(name: .customLong("free-shipping"), help: "The shipping off, whole.")
        var freeShipping = false
        @Option(help: ArgumentHelp("The first day (2026-12-01, from midnight UTC) or moment (2026-12-01T09:00:00Z).", valueName: "when"))
        var from: String?
        @Option(help: ArgumentHelp("The moment it stops: a day (from its midnight UTC) or a UTC time.", valueName: "when"))
        var until: String?
        @Option(help: ArgumentHelp("Uses in all.", valueName: "n"))
        var uses: Int?
        @Option(name: .customLong("per-customer"), help: ArgumentHelp("Uses by one customer.", valueName: "n"))
        var perCustomer: Int?
        @Option(help: ArgumentHelp("The least the goods it applies to must come to (20.00).", valueName: "amount"))
        var minimum: String?
        @Option(help: ArgumentHelp("Only these products (ids) or variants (SKUs), comma-separated; repeatable.", valueName: "ids"))
        var only: [String] = []
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws {
            let terms = DiscountCommands.Terms(
                percent: percent, amount: amount, freeShipping: freeShipping, from: from, until: until, uses: uses, perCustomer: perCustomer,
                minimum: minimum, only: only)
            try await DiscountCommands.create(code, terms: terms, configuration: shop.configuration())
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "pause", abstract: "Refuse a code, as if unknown, until it is resumed.")
        @Argument(help: ArgumentHelp("The code.", valueName: "code"))
        var code: String
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await DiscountCommands.setPaused(code, true, configuration: shop.configuration()) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Let a paused code hold again.")
        @Argument(help: ArgumentHelp("The code.", valueName: "code"))
        var code: String
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await DiscountCommands.setPaused(code, false, configuration: shop.configuration()) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a code no order used (pause one that was).")
        @Argument(help: ArgumentHelp("The code.", valueName: "code"))
        var code: String
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await DiscountCommands.delete(code, configuration: shop.configuration()) }
    }
}
