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

    @Option(defaultOf: "api.listen", as: SettingValue.address) var listen: ListenAddress
    @Option(defaultOf: "api.rate-limit", as: SettingValue.number) var rateLimit: Int
    @Option(defaultOf: "api.request-timeout", as: SettingValue.duration) var requestTimeout: Duration
    @Option(defaultOf: "api.connections-per-address", as: SettingValue.number) var connectionsPerAddress: Int
    @Option(defaultOf: "api.bank-check-window", as: SettingValue.duration) var bankCheckWindow: Duration
    @Option(setting: "api.admin-keys", as: SettingValue.text) var adminKeys: String?
    @Option(defaultOf: "api.max-connections", as: SettingValue.number) var maxConnections: Int
    @Option(defaultOf: "api.max-body", as: SettingValue.number) var maxBody: Int

    func validate() throws {
        if let problem = settings.problem { throw ValidationError(problem) }
    }

    /// The API's settings from these options.
    var settings: APIServiceSettings {
        var limits = APILimits()
        limits.requestsPerMinute = rateLimit
        limits.burst = max(1, rateLimit / 2)
        limits.maxBodyBytes = maxBody
        limits.requestDeadline = requestTimeout
        limits.connectionsPerAddress = connectionsPerAddress
        limits.maxConnections = maxConnections
        return APIServiceSettings(
            listen: listen, limits: limits, bankCheckWindow: bankCheckWindow, adminKeysFile: adminKeys,
            sandboxLatency: .milliseconds(latency.milliseconds ?? 0))
    }

    @OptionGroup var admin: AdminListenOption

    @OptionGroup var log: LogFormatOption

    func run() async throws {
        log.apply()
        try await FrontCommands.serveAPI(
            configuration: shop.configuration(), migrate: !shop.noMigrate, settings: settings, adminListen: admin.address, metrics: admin.export)
    }
}
