import ArgumentParser
import ShopAPI
import ShopCommands
import ShopServices

/// `storefront api`: the public HTTP API (openapi/storefront.yaml) on the shop's database, alone or beside `serve`
/// and `web` on the same database.
struct APICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api",
        abstract: "Serve the shop's HTTP API, for scripts and integrations (docs/api.md).",
        discussion: """
            Plain HTTP: put a TLS reverse proxy in front of it for anything but loopback. Requests carry a token made \
            with `storefront tokens create` or on the SSH shop's Account screen. One log line per request on stdout, \
            never with a token's secret. A client that has not sent a whole request within --request-timeout is \
            closed, as is a connection past --connections-per-address or --max-connections. SIGTERM or Ctrl-C stops \
            it after the requests in flight.
            """
    )

    @OptionGroup var shop: ShopOptions

    @OptionGroup var latency: SandboxLatencyOption

    @Option(setting: "api.listen", as: SettingValue.text) var listen: String?
    @Option(setting: "api.rate-limit", as: SettingValue.text) var rateLimit: String?
    @Option(setting: "api.request-timeout", as: SettingValue.text) var requestTimeout: String?
    @Option(setting: "api.connections-per-address", as: SettingValue.text) var connectionsPerAddress: String?
    @Option(setting: "api.bank-check-window", as: SettingValue.text) var bankCheckWindow: String?
    @Option(setting: "api.admin-keys", as: SettingValue.text) var adminKeys: String?
    @Option(setting: "api.max-connections", as: SettingValue.text) var maxConnections: String?
    @Option(setting: "api.max-body", as: SettingValue.text) var maxBody: String?

    /// The flags given, as settings over the config file's `[api]` and the environment's.
    var given: [(setting: String, value: String?)] {
        [
            ("api.listen", listen), ("api.rate-limit", rateLimit), ("api.request-timeout", requestTimeout),
            ("api.connections-per-address", connectionsPerAddress), ("api.bank-check-window", bankCheckWindow), ("api.admin-keys", adminKeys),
            ("api.max-connections", maxConnections), ("api.max-body", maxBody),
            ("shop.sandbox-latency-ms", latency.milliseconds.map(String.init)),
        ]
    }

    @OptionGroup var admin: AdminListenOption

    @OptionGroup var log: LogFormatOption

    func run() async throws {
        log.apply()
        let settings = try ServiceConfiguration.loadForCommand(flags: given)
        try await FrontCommands.serveAPI(
            configuration: shop.configuration(settings: settings), migrate: !shop.noMigrate, settings: settings.apiSettings,
            adminListen: admin.address, metrics: admin.export)
    }
}
