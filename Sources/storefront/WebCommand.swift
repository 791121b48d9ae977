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

    @Option(defaultOf: "web.listen", as: SettingValue.address) var listen: ListenAddress

    @Option(
        name: .customLong("public-origin"),
        help: ArgumentHelp(
            "The origin visitors' browsers show (https://shop.example); only pages from it may open a session. Repeat for several. Needed unless listening on loopback.",
            valueName: "origin"))
    var publicOrigins: [String] = []

    @Flag(setting: "web.trust-forwarded-for") var trustForwardedFor: Bool
    @Option(defaultOf: "web.max-sessions", as: SettingValue.number) var maxSessions: Int
    @Option(defaultOf: "web.sessions-per-address", as: SettingValue.number) var sessionsPerAddress: Int
    @Option(defaultOf: "web.connections-per-address", as: SettingValue.number) var connectionsPerAddress: Int
    @Option(defaultOf: "web.max-session-length", as: SettingValue.duration) var maxSessionLength: Duration
    @Option(defaultOf: "web.request-timeout", as: SettingValue.duration) var requestTimeout: Duration
    @Option(setting: "ssh.openid-providers", as: SettingValue.text) var openIDProviders: String?
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
