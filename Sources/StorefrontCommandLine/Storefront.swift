import ArgumentParser
import Foundation
import ShopBootstrap
import ShopCommands

/// The `storefront` command: the composition root, and the only place that picks live implementations.
public struct Storefront: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "storefront",
        abstract: "A terminal storefront: browse, fill a cart and pay on an Apple Pay-style sheet.",
        version: "0.1.0",
        subcommands: [
            Run.self, Admin.self, Headless.self, OrdersCommand.self, OutboxCommand.self, MailWorker.self, WebhooksCommand.self, StockCommand.self,
            TokensCommand.self, AccountsCommand.self, AdminsCommand.self, DiscountsCommand.self, SubscriptionsCommand.self, SubscriptionsWorker.self,
            ClockCommand.self, RatesCommand.self, ReportsCommand.self, CustomersCommand.self,
            APICommand.self,
            SSHDConfig.self, SSHDKeys.self,
            SSHDSession.self,
            CatalogCommand.self,
            DatabaseCommand.self, BackupCommand.self, RestoreCommand.self, StatusCommand.self,
            Serve.self, WebCommand.self, ConfigCommand.self, UpCommand.self, SessionWorkerCommand.self,
        ],
        defaultSubcommand: Run.self
    )

    public init() {}

    /// Parses and runs `arguments` (nil: the command line); every message ArgumentParser makes (which may quote an
    /// argument's raw escape sequences back) goes through the same sanitizer as the shop's own messages.
    public static func start(_ arguments: [String]?) async {
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

/// Options shared by every command that opens a shop. Flags win over the environment and the config file.
struct ShopOptions: ParsableArguments {
    @Option(setting: "shop.catalog", as: SettingValue.text) var catalog: String?
    @Option(setting: "shop.data-dir", as: SettingValue.text) var dataDirectory: String?
    @Option(setting: "shop.one-tap", as: SettingValue.text) var oneTap: String?
    @Option(setting: "shop.payments", as: SettingValue.text) var payments: String?
    @Option(setting: "shop.stripe-secret-key-file", as: SettingValue.text) var stripeSecretKeyFile: String?
    @Option(setting: "shop.stripe-api-base", as: SettingValue.text) var stripeAPIBase: String?
    @Option(setting: "shop.stripe-return-url", as: SettingValue.text) var stripeReturnURL: String?
    @Flag(setting: "shop.stripe-raw-card-data") var stripeRawCardData: Bool
    @Option(setting: "shop.database", as: SettingValue.text) var database: String?
    @Option(setting: "shop.language", as: SettingValue.text) var language: String?
    @Option(setting: "shop.rates", as: SettingValue.text) var rates: String?

    @Flag(name: .customLong("no-migrate"), help: "On PostgreSQL, do not bring the schema up to date; refuse a database that is not (exit 74).")
    var noMigrate = false

    /// The flags given, by their key in `[shop]`: `configuration` and `up`'s `--set shop.KEY` take the same list.
    var given: [(key: String, value: String?)] {
        [
            ("catalog", catalog), ("data-dir", dataDirectory), ("payments", payments), ("stripe-secret-key-file", stripeSecretKeyFile),
            ("stripe-api-base", stripeAPIBase), ("stripe-return-url", stripeReturnURL), ("database", database), ("one-tap", oneTap),
            ("stripe-raw-card-data", stripeRawCardData ? "on" : nil), ("language", language), ("rates", rates),
        ]
    }

    /// The file, environment and these flags, merged; `settings`: the file and environment a front's command read.
    func configuration(settings: ServiceConfiguration? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> ShopConfiguration
    {
        try .forCommand(flags: given, settings: settings, environment: environment)
    }
}
