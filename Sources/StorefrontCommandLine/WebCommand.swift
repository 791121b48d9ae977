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

    @Option(setting: "web.listen", as: SettingValue.text) var listen: String?

    @Option(
        name: .customLong("public-origin"),
        help: ArgumentHelp(
            "The origin visitors' browsers show (https://shop.example); only pages from it may open a session. Repeat for several. Needed unless listening on loopback.",
            valueName: "origin"))
    var publicOrigins: [String] = []

    @Flag(setting: "web.trust-forwarded-for") var trustForwardedFor: Bool
    @Option(setting: "web.max-sessions", as: SettingValue.text) var maxSessions: String?
    @Option(setting: "web.sessions-per-address", as: SettingValue.text) var sessionsPerAddress: String?
    @Option(setting: "web.connections-per-address", as: SettingValue.text) var connectionsPerAddress: String?
    @Option(setting: "web.max-session-length", as: SettingValue.text) var maxSessionLength: String?
    @Option(setting: "web.request-timeout", as: SettingValue.text) var requestTimeout: String?
    @Option(setting: "web.first-frame-ms", as: SettingValue.text) var firstFrameWait: String?
    @Option(setting: "web.first-screen-ms", as: SettingValue.text) var firstScreenWait: String?
    @Option(setting: "ssh.openid-providers", as: SettingValue.text) var openIDProviders: String?
    @Option(setting: "web.idle-timeout", as: SettingValue.text) var idleTimeout: String?
    @Option(setting: "web.drain-timeout", as: SettingValue.text) var drainTimeout: String?
    @Option(setting: "web.connections-per-minute", as: SettingValue.text) var connectionsPerMinute: String?

    @OptionGroup var mail: MailSettings

    @OptionGroup var latency: SandboxLatencyOption

    @OptionGroup var sessionStart: SessionStartOption

    func validate() throws {
        for origin in publicOrigins where WebOrigin(origin) == nil {
            throw ValidationError(
                "--public-origin \"\(origin.prefix(80))\" is not an origin: give the scheme, host and any port, as https://shop.example or http://10.0.0.5:8080"
            )
        }
    }

    /// The flags given, as settings over the config file's `[web]` and the environment's.
    var given: [(setting: String, value: String?)] {
        [
            ("web.listen", listen), ("web.public-origins", publicOrigins.isEmpty ? nil : publicOrigins.joined(separator: ",")),
            ("web.trust-forwarded-for", trustForwardedFor ? "on" : nil), ("web.max-sessions", maxSessions),
            ("web.sessions-per-address", sessionsPerAddress), ("web.connections-per-address", connectionsPerAddress),
            ("web.max-session-length", maxSessionLength), ("web.request-timeout", requestTimeout), ("web.first-frame-ms", firstFrameWait),
            ("web.first-screen-ms", firstScreenWait),
            ("ssh.openid-providers", openIDProviders),
            ("web.idle-timeout", idleTimeout), ("web.drain-timeout", drainTimeout), ("web.connections-per-minute", connectionsPerMinute),
        ] + sessionStart.given
    }

    @OptionGroup var admin: AdminListenOption

    @OptionGroup var log: LogFormatOption

    func run() async throws {
        log.apply()
        let metrics = admin.export
        let settings = try ServiceConfiguration.loadForCommand(flags: given)
        var start = try shop.serverStart(mail: mail, latency: latency, sessions: sessionStart, settings: settings)
        start.metricsRelay = metrics?.relay?.address
        try await FrontCommands.serveWeb(
            start, settings: settings.webSettings, openIDProviders: settings["ssh.openid-providers"], adminListen: admin.address, metrics: metrics)
    }
}
