import ArgumentParser
import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopCredentialFile
import ShopIdentity
import ShopMerchant
import ShopSSH
import ShopServices
import ShopSessions
import ShopWebFront
import StorefrontUI
import SystemPackage

/// `storefront web`: the shop in a browser, a terminal page whose WebSocket runs a guest session per tab.
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serve the shop in a browser: a terminal page, one guest session per tab (docs/web.md).",
        discussion: """
            Plain HTTP: put a TLS reverse proxy in front (docs/web.md has Caddy and nginx set-ups) and name the \
            address visitors use with --public-origin. A visitor is a guest (nothing kept); on loopback without \
            --public-origin, and with sandbox payments, a visitor may sign in with Sandbox ID, whose code the shop \
            shows on the screen; anywhere else visitors stay guests. SIGTERM or Ctrl-C drains: open sessions are told and closed, then it exits.
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

    @Option(name: .customLong("connections-per-minute"), help: ArgumentHelp("Sessions one address may open in any minute.", valueName: "n"))
    var connectionsPerMinute = 30

    @Option(
        name: .customLong("idle-timeout"), help: ArgumentHelp("Close a session after this long without a key (default: 15m).", valueName: "duration"),
        transform: Arguments.duration("--idle-timeout", examples: "90s, 15m or 2h"))
    var idleTimeout = Duration.seconds(15 * 60)

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
        name: .customLong("drain-timeout"), help: ArgumentHelp("How long SIGTERM waits for sessions to end (default: 10s).", valueName: "duration"),
        transform: Arguments.duration("--drain-timeout", examples: "10s or 1m"))
    var drainTimeout = Duration.seconds(10)

    @OptionGroup var mail: MailSettings

    @OptionGroup var sessionLatency: SessionLatencyOption

    @OptionGroup var sessionStart: SessionStartOption

    func validate() throws {
        guard (1...10_000).contains(maxSessions) else { throw ValidationError("--max-sessions must be between 1 and 10000, not \(maxSessions)") }
        guard (1...1_000).contains(sessionsPerAddress) else {
            throw ValidationError("--sessions-per-address must be between 1 and 1000, not \(sessionsPerAddress)")
        }
        guard connectionsPerMinute >= 1 else { throw ValidationError("--connections-per-minute must be at least 1") }
        guard (1...10_000).contains(connectionsPerAddress) else {
            throw ValidationError("--connections-per-address must be between 1 and 10000, not \(connectionsPerAddress)")
        }
        for origin in publicOrigins where WebOrigin(origin) == nil {
            throw ValidationError(
                "--public-origin \"\(origin.prefix(80))\" is not an origin: give the scheme, host and any port, as https://shop.example or http://10.0.0.5:8080"
            )
        }
        if publicOrigins.isEmpty, !WebFrontSettings.isLoopback(listen.host) {
            throw ValidationError(
                "--public-origin is needed when listening on \(listen.host): the address visitors' browsers show, such as https://shop.example (docs/web.md)"
            )
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (configuration, dataDirectory, storage) = try await shop.openForServer(environment: environment)
        // Made here once, so sessions only read it: every visitor's Sandbox ID tokens are signed with it.
        do {
            _ = try SandboxIdentityProvider.signingKey(
                in: FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment)))
        } catch {
            announce("sign-in is off for visitors: \(error)")
        }
        var shopConfiguration = configuration
        // The page's terminal is dark (storefront.css), so the shop need not ask: a question's answer that arrives
        // after the shop stopped waiting (a busy host) would otherwise be read as keys (its "?" opens the help).
        shopConfiguration.theme = "dark"
        var sessionEnvironment = try await sessionLatency.sessionEnvironment(
            configuration: shopConfiguration, dataDirectory: dataDirectory, environment: environment)
        var settings = WebFrontSettings(
            host: listen.host, port: listen.port, publicOrigins: publicOrigins.compactMap(WebOrigin.init), trustForwardedFor: trustForwardedFor,
            shopName: storage.catalog.shop.name
        )
        if settings.offersSandboxSignIn { sessionEnvironment[SessionCommand.sandboxSignInVariable] = SessionCommand.localSandboxSignIn }
        let command = SessionCommand(
            executable: thisExecutable(), arguments: ["run"], environment: sessionEnvironment,
            largestTerminal: TerminalSize(columns: Size.maximum.columns, rows: Size.maximum.rows),
            host: try sessionStart.host(preparing: ["run"], environment: sessionEnvironment)
        )
        defer { command.host?.stop() }
        var limits = WebFrontLimits()
        limits.maxSessions = maxSessions
        limits.sessionsPerAddress = sessionsPerAddress
        limits.connectionsPerMinute = connectionsPerMinute
        limits.idleTimeout = idleTimeout
        limits.maxSessionLength = maxSessionLength
        limits.drainTimeout = drainTimeout
        limits.connectionIdleTimeout = requestTimeout
        limits.connectionsPerAddress = connectionsPerAddress
        settings.limits = limits
        SessionLaunch.raiseOpenFileLimit()
        let stop = StopSignals()
        let mailer = try mail.startLoop(storage: storage, environment: environment)
        let front: RunningWebShop
        do throws(ServiceStartFailure) {
            front = try await WebShopService.start(settings, command: command, log: announce)
        } catch {
            await mailer?.stop()
            throw error.told()
        }
        let signal = await stop.next()
        announce(
            "\(signalName(signal)): draining \(front.openSessions) session\(front.openSessions == 1 ? "" : "s") for up to \(ServeDuration.describe(drainTimeout))"
        )
        let left = await front.stop()
        if left > 0 {
            announce(
                "\(left) session\(left == 1 ? "" : "s") still open after \(ServeDuration.describe(drainTimeout)); their shops are killed 5 s after being asked to end"
            )
        }
        await mailer?.stop()
        announce("stopped")
    }
}
