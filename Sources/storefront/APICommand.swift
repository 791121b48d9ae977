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

    @Option(
        help: ArgumentHelp("HOST:PORT to listen on; port 0 picks a free one (printed at start).", valueName: "address"),
        transform: ListenAddress.init(argument:))
    var listen = ListenAddress(host: "127.0.0.1", port: 8081)

    @Option(
        name: .customLong("rate-limit"),
        help: ArgumentHelp("Requests one token may make a minute; a burst of half as many (at least 1) may come at once.", valueName: "n"))
    var rateLimit = 120

    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp(
            "Close a connection that has not sent a whole request (head and body) after this long (default: 30s).", valueName: "duration"),
        transform: Arguments.duration("--request-timeout", examples: "10s or 1m"))
    var requestTimeout = Duration.seconds(30)

    @Option(name: .customLong("connections-per-address"), help: ArgumentHelp("Connections one client address may hold at once.", valueName: "n"))
    var connectionsPerAddress = 32

    @Option(
        name: .customLong("bank-check-window"),
        help: ArgumentHelp(
            "How long an order waits for its bank's check (3-D Secure) before it is voided and its stock released (default: 15m).",
            valueName: "duration"), transform: Arguments.duration("--bank-check-window", examples: "15m or 1h"))
    var bankCheckWindow = Duration.seconds(15 * 60)

    @Option(
        name: .customLong("admin-keys"),
        help: ArgumentHelp(
            "The authorized_keys file of `serve --admin-keys`: a merchant token is honoured only while its key is in it (read again when it changes). Without it, merchant tokens are refused.",
            valueName: "file"))
    var adminKeys: String?

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections open at once, from everyone.", valueName: "n"))
    var maxConnections = 512

    @Option(name: .customLong("max-body"), help: ArgumentHelp("The largest request body, in bytes.", valueName: "bytes"))
    var maxBody = 64 * 1024

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
