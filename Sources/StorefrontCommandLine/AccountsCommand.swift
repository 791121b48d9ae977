import ArgumentParser
import ShopCommands

/// `storefront accounts`: the customers' accounts and the ways in that reach each (docs/accounts.md).
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the customers' accounts, show one with its ways in, or join two one person made (docs/accounts.md).",
        subcommands: [List.self, Show.self, Merge.self],
        defaultSubcommand: List.self
    )

    /// `storefront accounts list [--json]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every account, by id: name, email and ways in.")

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws { try await AccountCommands.list(json: json, configuration: shop.configuration()) }
    }

    /// `storefront accounts show ID-OR-EMAIL [--json]`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One account, by its id or its verified email, with each way in and its last use.")

        @Argument(help: ArgumentHelp("The account's id (ssh:SHA256:…, sandbox-id:…, local:…) or verified email.", valueName: "id-or-email"))
        var idOrEmail: String

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() async throws { try await AccountCommands.show(idOrEmail, json: json, configuration: shop.configuration()) }
    }

    /// `storefront accounts merge FROM INTO`.
    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Join two accounts one person made: FROM's orders, cart, cards, addresses, tokens, ways in and sessions become INTO's.")

        @Argument(help: ArgumentHelp("The account that goes: its id or verified email.", valueName: "from"))
        var from: String

        @Argument(help: ArgumentHelp("The account that stays: its id or verified email.", valueName: "into"))
        var into: String

        @OptionGroup var shop: ShopDatabaseOptions

        func run() async throws { try await AccountCommands.merge(from, into: into, configuration: shop.configuration()) }
    }
}
