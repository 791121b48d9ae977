import ArgumentParser
import ShopCommands

/// `storefront customers`: find a customer by email, name, order number or key, and show their page.
struct CustomersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customers",
        abstract: "Find customers by email, name, order number or key fingerprint, and show one's page (docs/merchants.md).",
        subcommands: [Search.self, Show.self, Note.self])

    /// What a customer's id may be, for each subcommand that takes one.
    static let idHelp = ArgumentHelp(
        "An id `storefront accounts` or `customers search` prints (acct_…, ssh:SHA256:…, local:NAME), or a verified email.", valueName: "id")

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract:
                "Customers whose email or name holds the words (any case), whose order has that number, or whose SSH key's fingerprint holds them.")

        @Argument(help: ArgumentHelp("What to look for: max@example.de, Müller, SF-000042, SHA256:abc…", valueName: "words"))
        var query: String

        @Option(help: ArgumentHelp("Show at most this many.", valueName: "n"))
        var limit: Int = 50

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        @OptionGroup var shop: ShopDatabaseOptions

        func validate() throws {
            guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
        }

        func run() async throws {
            try await CustomerCommands.search(query, limit: limit, json: json, configuration: shop.configuration())
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "One customer's page: ways in, addresses, spend and refunds per currency, latest orders and subscriptions, notes.")

        @Argument(help: CustomersCommand.idHelp)
        var id: String

        @Option(help: ArgumentHelp("Show this many of the latest orders.", valueName: "n"))
        var orders: Int = 20

        @Flag(help: "Print JSON instead of text.")
        var json = false

        @OptionGroup var shop: ShopDatabaseOptions

        func validate() throws {
            guard (1...1_000).contains(orders) else { throw ValidationError("--orders must be 1 to 1000") }
        }

        func run() async throws {
            try await CustomerCommands.show(id, orders: orders, json: json, configuration: shop.configuration())
        }
    }

    struct Note: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "note",
            abstract: "Write a note on a customer's page, signed with your user name; the console's customer page shows it too.")

        @Argument(help: CustomersCommand.idHelp)
        var id: String

        @Argument(help: ArgumentHelp("The note: one line, 1 to 500 characters.", valueName: "text"))
        var text: String

        @OptionGroup var shop: ShopDatabaseOptions

        func run() async throws {
            try await CustomerCommands.note(id, text: text, configuration: shop.configuration())
        }
    }
}
