import ArgumentParser
import Foundation
import Logging
import ShopCommands
import ShopServices

/// How the webhook listener checks what arrives: the endpoint's signing secrets. `serve` and `webhooks` take these.
struct WebhookSettings: ParsableArguments {
    @Option(setting: "webhooks.secret-file", as: SettingValue.text) var secretFile: String?
}

extension ListenAddress {
    /// `--listen HOST:PORT` and its kin; a bad one is a usage error.
    init(argument text: String) throws {
        do { try self.init(parsing: text) } catch { throw ValidationError(error.description) }
    }
}

/// `storefront webhooks`: hears Stripe's signed events on their own, beside shops that run elsewhere, and lists the
/// ones waiting to be applied.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Listen for Stripe's signed webhook events, or list the ones waiting to be applied.",
        subcommands: [Listen.self, Waiting.self], defaultSubcommand: Listen.self
    )

    struct Listen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "listen",
            abstract: "Listen for Stripe's signed webhook events (POST /webhooks/stripe): each is kept and answered, then applied to its order once.",
            discussion:
                "Run it behind a reverse proxy that ends TLS; docs/webhooks.md shows one. Stops on SIGTERM or SIGINT, after applying what it kept."
        )

        @OptionGroup var shop: ShopOptions
        @OptionGroup var settings: WebhookSettings

        @Option(
            help: ArgumentHelp("The address to listen on, HOST:PORT; port 0 picks a free one (printed at start).", valueName: "address"),
            transform: ListenAddress.init(argument:))
        var listen = ListenAddress(host: "127.0.0.1", port: 8088)

        @OptionGroup var admin: AdminListenOption
        @OptionGroup var log: LogFormatOption

        func run() async throws {
            log.apply()
            try await WebhookCommands.listen(
                at: listen, configuration: shop.configuration(), secretFile: settings.secretFile, migrate: !shop.noMigrate,
                adminListen: admin.address, metrics: admin.export)
        }
    }

    struct Waiting: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "waiting",
            abstract: "List the provider's events kept but not yet applied, oldest first: waiting for their next try, or given up after three days."
        )

        @OptionGroup var shop: ShopOptions
        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            try await WebhookCommands.waiting(
                configuration: shop.configuration(), migrate: !shop.noMigrate, json: json)
        }
    }
}

/// `--admin-listen` on every server command: the operator's `/healthz` and `/readyz` (docs/operations.md).
struct AdminListenOption: ParsableArguments {
    @Option(setting: "admin.listen", as: SettingValue.address) var address: ListenAddress?
    @Option(
        name: .customLong("metrics"),
        help: ArgumentHelp("GET /metrics on the admin listener, in Prometheus's format (default: on).", valueName: "on|off"),
        transform: Arguments.onOff("--metrics"))
    var metrics = true

    /// The process's metrics, exported on the admin listener; nil without one, or with --metrics off.
    var export: MetricsExport? { address != nil && metrics ? MetricsExport.start() : nil }
}

/// `storefront status`: whether a running instance is ready, as its admin listener says (docs/operations.md).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Ask a running instance's admin listener (--admin-listen) whether it is ready, and print each check.",
        discussion: "Exits 0 when ready, 75 when a check fails, 69 when nothing answers there."
    )

    @Option(help: ArgumentHelp("The instance's --admin-listen address, HOST:PORT.", valueName: "address"), transform: ListenAddress.init(argument:))
    var admin: ListenAddress

    @Flag(help: "Print /readyz's JSON as it came.")
    var json = false

    func run() async throws { try await StatusCommands.status(at: admin, json: json) }
}

/// `--log-format` on every server command: the log on stdout as text lines or one JSON object per line.
struct LogFormatOption: ParsableArguments {
    @Option(setting: "log.format", as: { ServerLog.Format(rawValue: $0) }) var format: ServerLog.Format?

    /// Sets the server's log to it; levels from STOREFRONT_LOG_LEVEL when it names one.
    func apply(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let level = environment["STOREFRONT_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        ServerLog.shared.configure(format: format ?? .text, defaultLevel: level, levels: [:])
    }
}

extension ServerLog.Format: ExpressibleByArgument {}
