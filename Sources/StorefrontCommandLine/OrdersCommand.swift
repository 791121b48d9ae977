import ArgumentParser
import ShopCommands

/// `storefront orders`: the orders as a table or JSON for scripts, one order with its history, and the merchant's
/// changes to an order (`OrdersCommand+Changes`).
struct OrdersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "List, show, ship, deliver, refund, cancel and export orders.",
        subcommands: [List.self, Show.self, Ship.self, Deliver.self, Refund.self, Cancel.self, Export.self],
        defaultSubcommand: List.self
    )
}

extension OrdersCommand {
    /// `storefront orders [list]`: the order history as a table, or JSON for scripts.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List placed orders of every customer, newest first."
        )

        @Option(
            help: ArgumentHelp(
                "Only this customer's orders: an account's acct_… id, ssh:SHA256:<fingerprint>, sandbox-id:<id> or local:<user>.", valueName: "id"))
        var customer: String?

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        @Option(help: ArgumentHelp("Show at most this many orders.", valueName: "n"))
        var limit: Int = 1_000

        func validate() throws {
            if let problem = OrderCommands.listProblem(customer: customer, limit: limit) { throw ValidationError(problem) }
        }

        func run() async throws {
            // The same precedence as the shop itself: flag, environment, config file, default.
            try await OrderCommands.list(
                configuration: shop.configuration(), customer: customer, limit: limit, json: json)
        }
    }
}
