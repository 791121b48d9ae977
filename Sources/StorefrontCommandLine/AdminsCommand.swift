import ArgumentParser
import ShopCommands

/// `storefront admins`: the accounts whose SSH keys open the merchant console (docs/merchants.md).
struct AdminsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admins",
        abstract: "Name the accounts whose SSH keys open the merchant console, take that from one, or list them (docs/merchants.md).",
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every merchant account: its email, keys and since when.")
        @OptionGroup var shop: ShopDatabaseOptions
        @Flag(help: "Print JSON instead of text.")
        var json = false
        func run() async throws { try await AdminCommands.list(json: json, configuration: shop.configuration()) }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Make an account a merchant, by its verified email, a key, or its id.")
        @Argument(help: ArgumentHelp("A verified email, an SSH key's fingerprint (SHA256:…), or an account id.", valueName: "who"))
        var who: String
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await AdminCommands.add(who, configuration: shop.configuration()) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take merchant rights from an account.")
        @Argument(help: ArgumentHelp("A verified email, an SSH key's fingerprint (SHA256:…), or an account id.", valueName: "who"))
        var who: String
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await AdminCommands.remove(who, configuration: shop.configuration()) }
    }
}
