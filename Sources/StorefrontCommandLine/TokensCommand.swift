import ArgumentParser
import ShopCommands
import ShopPorts

/// `storefront tokens`: the API's personal access tokens, made, listed and revoked from the server's shell.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Make, list and revoke tokens for the HTTP API (docs/api.md).",
        subcommands: [Create.self, List.self, Revoke.self],
        defaultSubcommand: List.self
    )

    /// `storefront tokens create --name N --customer ID [--scope merchant --admin-keys FILE]`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a token and print its secret, once.",
            discussion: """
                A shop token acts for one shopper: --customer is their customer id, as `storefront orders list` shows \
                it (ssh:SHA256:… for an SSH key, sandbox-id:… for a Sandbox ID account). A merchant token reaches \
                /v1/merchant: its --customer must be ssh: and a key in the --admin-keys file. The secret is printed \
                once and kept only as its SHA-256.
                """
        )

        @Option(help: ArgumentHelp("What the token is for, shown when listing (1 to 60 characters).", valueName: "name"))
        var name: String

        @Option(
            help: ArgumentHelp("Whose token it is: an account's acct_… id (storefront accounts list), ssh:SHA256:… or sandbox-id:….", valueName: "id")
        )
        var customer: String

        @Option(help: ArgumentHelp("shop (a shopper's own cart, wallet and orders) or merchant.", valueName: "scope"))
        var scope: String = APITokenScope.shop.rawValue

        @Option(
            name: .customLong("admin-keys"),
            help: ArgumentHelp(
                "For a merchant token: the authorized_keys file of `serve --admin-keys`, which must hold the --customer key.", valueName: "file"))
        var adminKeys: String?

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func validate() throws {
            if let problem = TokenCommands.problem(name: name, customer: customer, scope: scope, adminKeys: adminKeys) {
                throw ValidationError(problem)
            }
        }

        func run() async throws {
            try await TokenCommands.create(
                name: name, customer: customer, scope: APITokenScope(rawValue: scope) ?? .shop, adminKeys: adminKeys, json: json,
                configuration: shop.configuration())
        }
    }

    /// `storefront tokens list [--customer ID] [--json]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every token (or one customer's), revoked ones too; never a secret.")

        @Option(help: ArgumentHelp("Only this customer's tokens.", valueName: "id"))
        var customer: String?

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            try await TokenCommands.list(
                customer: customer, json: json, configuration: shop.configuration())
        }
    }

    /// `storefront tokens revoke ID`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a token: requests with it are refused from now on.")

        @Argument(help: ArgumentHelp("The token's id (tok_…), as `storefront tokens list` shows it.", valueName: "id"))
        var id: String

        @OptionGroup var shop: ShopDatabaseOptions

        func run() async throws {
            try await TokenCommands.revoke(id: id, configuration: shop.configuration())
        }
    }
}
