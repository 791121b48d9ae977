import ArgumentParser
import Foundation
import ShopBootstrap
import ShopCommands

/// The `storefront` command: the composition root, and the only place that picks live implementations.
struct Storefront: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storefront",
        abstract: "A terminal storefront: browse, fill a cart and pay on an Apple Pay-style sheet.",
        version: "0.1.0",
        subcommands: [
            Run.self, Admin.self, Headless.self, OrdersCommand.self, OutboxCommand.self, MailWorker.self, WebhooksCommand.self, StockCommand.self,
            TokensCommand.self, AccountsCommand.self, AdminsCommand.self, DiscountsCommand.self, SubscriptionsCommand.self, SubscriptionsWorker.self,
            ClockCommand.self,
            APICommand.self,
            SSHDConfig.self, SSHDKeys.self,
            SSHDSession.self,
            CatalogCommand.self,
            DatabaseCommand.self, BackupCommand.self, RestoreCommand.self, StatusCommand.self,
            Serve.self, WebCommand.self, ConfigCommand.self, UpCommand.self, SessionWorkerCommand.self,
        ],
        defaultSubcommand: Run.self
    )

    /// Parses and runs `arguments` (nil: the command line); every message ArgumentParser makes (which may quote an
    /// argument's raw escape sequences back) goes through the same sanitizer as the shop's own messages.
    static func start(_ arguments: [String]?) async {
        let arguments = arguments ?? OpenSSHSession.argumentsCalledAsShell()
        do {
            var command = try SessionWarmUp.preparedCommand(for: arguments) ?? parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            ServerLog.shared.flush()
        } catch let exit as CommandExit {
            ServerLog.shared.flush()
            Foundation.exit(exit.status)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty { emit(message + "\n", to: code == .success ? STDOUT_FILENO : STDERR_FILENO) }
            ServerLog.shared.flush()
            Foundation.exit(code.rawValue)
        }
    }
}

extension PaymentsChoice: ExpressibleByArgument {}

/// Options shared by every command that opens a shop. Flags win over the environment and the config file.
struct ShopOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("A catalog JSON file to sell from instead of the bundled one. Env: STOREFRONT_CATALOG.", valueName: "path"))
    var catalog: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp("Where the shop keeps its files. Default: $XDG_DATA_HOME/storefront. Env: STOREFRONT_DATA_DIR.", valueName: "path"))
    var dataDirectory: String?

    @Option(
        name: .customLong("one-tap"),
        help: ArgumentHelp("One-Tap Buy now: on, off, cart, product or cart,product. Env: STOREFRONT_ONE_TAP.", valueName: "setting"))
    var oneTap: String?

    @Option(help: ArgumentHelp("The payment provider: sandbox (default) or stripe. Env: STOREFRONT_PAYMENTS.", valueName: "provider"))
    var payments: PaymentsChoice?

    @Option(
        name: .customLong("stripe-secret-key-file"),
        help: ArgumentHelp(
            "A file (mode 0600, yours) holding the Stripe secret key, instead of STOREFRONT_STRIPE_SECRET_KEY. Env: STOREFRONT_STRIPE_SECRET_KEY_FILE.",
            valueName: "path"
        ))
    var stripeSecretKeyFile: String?

    @Option(
        name: .customLong("stripe-api-base"),
        help: ArgumentHelp("Stripe's API address. Default: https://api.stripe.com. Env: STOREFRONT_STRIPE_API_BASE.", valueName: "url"))
    var stripeAPIBase: String?

    @Option(
        name: .customLong("stripe-return-url"),
        help: ArgumentHelp(
            "A page of yours Stripe sends the shopper back to after its card page or a card check. Needed with Stripe unless cards are typed in the shop. Env: STOREFRONT_STRIPE_RETURN_URL.",
            valueName: "url"
        ))
    var stripeReturnURL: String?

    @Flag(
        name: .customLong("stripe-raw-card-data"),
        help: ArgumentHelp(
            "Take cards typed in the shop and send them to Stripe, instead of Stripe's card page. Only for a Stripe account granted raw card data access; it puts this host in PCI DSS scope for card data (SAQ D). Env: STOREFRONT_STRIPE_RAW_CARD_DATA=on."
        ))
    var stripeRawCardData = false

    @Option(
        help: ArgumentHelp(
            "Keep everything in PostgreSQL: postgres://USER@HOST:PORT/DB?sslmode=require. Default: SQLite in the data directory. Env: STOREFRONT_DATABASE_URL.",
            valueName: "url"
        ))
    var database: String?

    @Flag(name: .customLong("no-migrate"), help: "On PostgreSQL, do not bring the schema up to date; refuse a database that is not (exit 74).")
    var noMigrate = false

    /// The file, environment and these flags, merged.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ShopConfiguration {
        try .forCommand(
            flags: [
                ("catalog", catalog), ("data-dir", dataDirectory), ("stripe-secret-key-file", stripeSecretKeyFile),
                ("stripe-api-base", stripeAPIBase), ("stripe-return-url", stripeReturnURL), ("database", database),
            ], payments: payments, stripeRawCardData: stripeRawCardData, oneTap: oneTap, environment: environment)
    }
}
