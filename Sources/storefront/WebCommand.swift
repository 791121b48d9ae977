import ArgumentParser
import ShopCommands
import ShopServices
import ShopWebFront

/// `storefront web`: the shop in a browser, a terminal page whose WebSocket runs a session per tab.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serve the shop in a browser: a terminal page, one session per tab (docs/web.md).",
        discussion: """
            Plain HTTP: put a TLS reverse proxy in front (docs/web.md has Caddy and nginx set-ups) and name the \
            address visitors use with --public-origin. With --mail-command the page signs visitors in by an emailed \
            code, and with --openid-providers by each provider named; the cookie keeps the sign-in, and a sign-out \
            anywhere closes every tab of it. Without either, a visitor is a guest (nothing kept), or on loopback with \
            sandbox payments may sign in with Sandbox ID. SIGTERM or Ctrl-C drains: open sessions are told and closed, then it exits.
            """
    )

    @OptionGroup var shop: ShopOptions

    @Option(
        help: ArgumentHelp("HOST:PORT to listen on; port 0 picks a free one (printed at start).", valueName: "address"),
        transform: ListenAddress.init(argument:))
    var listen = ListenAddress(host: "127.0.0.1", port: 8080)

    @Option(
        name: .customLong("public-origin"),
        help: ArgumentHelp(
            "The origin visitors' browsers show (https://shop.example); only pages from it may open a session. Repeat for several. Needed unless listening on loopback.",
            valueName: "origin"))
    var publicOrigins: [String] = []

    @Flag(
        name: .customLong("trust-forwarded-for"),
        help: "Take the visitor's address from the last X-Forwarded-For entry: only behind a proxy that sets it.")
    var trustForwardedFor = false

    @Option(name: .customLong("max-sessions"), help: ArgumentHelp("Browser sessions open at once; more are told the shop is full.", valueName: "n"))
    var maxSessions = 32

    @Option(name: .customLong("sessions-per-address"), help: ArgumentHelp("Sessions one address may hold at once.", valueName: "n"))
    var sessionsPerAddress = 2

    @Option(
        name: .customLong("connections-per-address"),
        help: ArgumentHelp(
            "HTTP connections one address may hold at once; ignored with --trust-forwarded-for, where all come from the proxy.", valueName: "n"))
    var connectionsPerAddress = 16

    @Option(
        name: .customLong("max-session-length"),
        help: ArgumentHelp("Close a session after this long, however busy (default: 2h).", valueName: "duration"),
        transform: Arguments.duration("--max-session-length", examples: "30m or 2h"))
    var maxSessionLength = Duration.seconds(2 * 60 * 60)

    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp(
            "Close a connection that has not sent a whole request (head and body) after this long, however slowly it sends, or sits idle between requests (default: 30s).",
            valueName: "duration"), transform: Arguments.duration("--request-timeout", examples: "10s or 1m"))
    var requestTimeout = Duration.seconds(30)

    @Option(
        name: .customLong("openid-providers"),
        help: ArgumentHelp(
            "A JSON file of OpenID Connect providers visitors may sign in with (docs/openid-connect.md). Env: STOREFRONT_OPENID_PROVIDERS.",
            valueName: "file"))
    var openIDProviders: String?

    @OptionGroup var sessions: SessionTimeOptions

    @OptionGroup var mail: MailSettings

    @OptionGroup var latency: SandboxLatencyOption

    @OptionGroup var sessionStart: SessionStartOption

    func validate() throws {
        for origin in publicOrigins where WebOrigin(origin) == nil {
            throw ValidationError(
                "--public-origin \"\(origin.prefix(80))\" is not an origin: give the scheme, host and any port, as https://shop.example or http://10.0.0.5:8080"
            )
        }
        if let problem = settings.problem { throw ValidationError(problem) }
    }

    /// The web front's settings from these options; the shop's name is read at start.
    var settings: WebFrontSettings {
        var settings = WebFrontSettings(
            host: listen.host, port: listen.port, publicOrigins: publicOrigins.compactMap(WebOrigin.init), trustForwardedFor: trustForwardedFor,
            shopName: "")
        settings.limits.maxSessions = maxSessions
        settings.limits.sessionsPerAddress = sessionsPerAddress
        settings.limits.connectionsPerMinute = sessions.connectionsPerMinute
        settings.limits.idleTimeout = sessions.idleTimeout
        settings.limits.maxSessionLength = maxSessionLength
        settings.limits.drainTimeout = sessions.drainTimeout
        settings.limits.connectionIdleTimeout = requestTimeout
        settings.limits.connectionsPerAddress = connectionsPerAddress
        return settings
    }

    @OptionGroup var admin: AdminListenOption

    @OptionGroup var log: LogFormatOption

    func run() async throws {
        log.apply()
        let metrics = admin.export
        var start = try shop.serverStart(mail: mail, latency: latency, sessions: sessionStart)
        start.metricsRelay = metrics?.relay?.address
        try await FrontCommands.serveWeb(start, settings: settings, openIDProviders: openIDProviders, adminListen: admin.address, metrics: metrics)
    }
}
