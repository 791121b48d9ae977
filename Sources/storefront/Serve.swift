import ArgumentParser
import Dispatch
import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopMerchant
import ShopModels
import ShopSSH
import ShopServices
import ShopSessions
import ShopStripe
import ShopWebhookServer
import StorefrontUI
import SystemPackage

/// `storefront serve`: the shop over SSH, one shop process per session, the database shared.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the shop over SSH: ssh -p PORT HOST opens it, the key is the customer.",
        discussion: """
            Any public key is accepted once its signature checks out; its SHA256 fingerprint is the \
            customer, so carts and orders follow the key. Sessions need a pty (ssh -t). SIGTERM or \
            Ctrl-C drains: no new connections, open sessions are told and closed, then the server exits.
            """
    )

    @OptionGroup var shop: ShopOptions

    @Option(help: ArgumentHelp("The address to listen on.", valueName: "address"))
    var host = "0.0.0.0"

    @Option(help: ArgumentHelp("The TCP port to listen on; 0 picks a free one (printed at start).", valueName: "port"))
    var port = 2222

    @Option(
        name: .customLong("host-key"),
        help: ArgumentHelp(
            "The Ed25519 host key (OpenSSH format), created on first start. Default: DATA-DIR/ssh_host_ed25519_key.", valueName: "path"))
    var hostKey: FilePath?

    @Option(name: .customLong("max-sessions"), help: ArgumentHelp("Sessions open at once; more are told the shop is full.", valueName: "n"))
    var maxSessions = 64

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Close a session after this long without a key: 90s, 15m, 2h (default: 15m).", valueName: "duration"),
        transform: Arguments.duration("--idle-timeout", examples: "90s, 15m or 2h"))
    var idleTimeout = Duration.seconds(15 * 60)

    @Option(
        name: .customLong("max-guests"),
        help: ArgumentHelp(
            "Guest sessions (no key: ssh guest@HOST) open at once, beside --max-sessions for key holders; 0 takes no guests.", valueName: "n"))
    var maxGuests = 16

    @Option(
        name: .customLong("openssh-front"),
        help: ArgumentHelp(
            "How shoppers reach the shop through the system's OpenSSH (such as \"ssh shop@shop.example\"), told to guests: the way in for RSA keys (docs/openssh.md).",
            valueName: "command"))
    var openSSHFront: String?

    @Option(name: .customLong("guests-per-address"), help: ArgumentHelp("Guest sessions one address may hold at once.", valueName: "n"))
    var guestsPerAddress = 2

    @Option(name: .customLong("connections-per-minute"), help: ArgumentHelp("New connections one address may open in any minute.", valueName: "n"))
    var connectionsPerMinute = 30

    @Option(
        name: .customLong("drain-timeout"),
        help: ArgumentHelp("How long SIGTERM waits for sessions to end before killing them (default: 10s).", valueName: "duration"),
        transform: Arguments.duration("--drain-timeout", examples: "10s or 1m"))
    var drainTimeout = Duration.seconds(10)

    @OptionGroup var mail: MailSettings

    @Option(
        name: .customLong("webhook-listen"),
        help: ArgumentHelp(
            "Also listen for Stripe's webhooks (POST /webhooks/stripe) on HOST:PORT, behind a TLS proxy (docs/webhooks.md).", valueName: "address"),
        transform: ListenAddress.init(argument:))
    var webhookListen: ListenAddress?

    @OptionGroup var webhooks: WebhookSettings

    @Option(
        name: .customLong("admin-keys"),
        help: ArgumentHelp("An authorized_keys file: these keys get the merchant console (storefront admin) instead of the shop.", valueName: "file"))
    var adminKeys: String?

    @OptionGroup var sessionLatency: SessionLatencyOption

    @OptionGroup var sessionStart: SessionStartOption

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
        guard (1...10_000).contains(maxSessions) else { throw ValidationError("--max-sessions must be between 1 and 10000, not \(maxSessions)") }
        if let openSSHFront, openSSHFront.count > 200 || openSSHFront.unicodeScalars.contains(where: \.isUnsafeForTerminal) {
            throw ValidationError("--openssh-front must be one line of printable text, at most 200 characters")
        }
        guard (0...10_000).contains(maxGuests) else { throw ValidationError("--max-guests must be between 0 and 10000, not \(maxGuests)") }
        guard (1...1_000).contains(guestsPerAddress) else {
            throw ValidationError("--guests-per-address must be between 1 and 1000, not \(guestsPerAddress)")
        }
        guard connectionsPerMinute >= 1 else { throw ValidationError("--connections-per-minute must be at least 1") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try shop.configuration(environment: environment)
        let dataDirectory = SessionLaunch.absolute(configuration.dataDirectory(environment: environment))
        let admins: AdminKeys
        do {
            admins = try adminKeys.map { try AdminKeys.load(SessionLaunch.absolute(FilePath($0)).string) } ?? AdminKeys()
        } catch {
            complain("\(error)")
            throw ExitCodes.configError
        }
        if let adminKeys {
            announce("merchant console for \(admins.fingerprints.count) admin key\(admins.fingerprints.count == 1 ? "" : "s") from \(adminKeys)")
        }

        // Checked before anything is opened: a listener that cannot check signatures, or hear no one, must not start.
        let webhookSecrets = try webhookListen.map { _ in
            do throws(ServiceStartFailure) { try WebhookListener.requireStripe(configuration) } catch { throw error.told() }
            return try webhooks.secrets(environment: environment)
        }
        // Opening storage here migrates the database (and, on SQLite, imports the catalog) once,
        // before any session process races to do it.
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !shop.noMigrate, environment: environment)
        announce("storage: \(storage.place)")
        if let database = storage.postgres { DatabaseWatch.start(database) { announce($0) } }

        let sessionEnvironment = try await sessionLatency.sessionEnvironment(
            configuration: configuration, dataDirectory: dataDirectory, environment: environment)
        let command = SessionCommand(
            executable: thisExecutable(), arguments: ["run"], environment: sessionEnvironment,
            largestTerminal: TerminalSize(columns: Size.maximum.columns, rows: Size.maximum.rows),
            adminArguments: ["admin"], adminFingerprints: admins.fingerprints, openSSHFront: openSSHFront,
            host: try sessionStart.host(preparing: ["run"], environment: sessionEnvironment)
        )
        defer { command.host?.stop() }

        SessionLaunch.raiseOpenFileLimit()
        let settings = SSHShopSettings(
            host: host, port: port, hostKeyPath: SessionLaunch.absolute(hostKey ?? dataDirectory.appending("ssh_host_ed25519_key")),
            limits: ServeLimits(
                maxSessions: maxSessions, connectionsPerSourcePerMinute: connectionsPerMinute, idleTimeout: idleTimeout,
                drainTimeout: drainTimeout, maxGuests: maxGuests, guestsPerAddress: guestsPerAddress))
        let stop = StopSignals()
        let server: RunningSSHShop
        do throws(ServiceStartFailure) {
            server = try await SSHShopService.start(settings, command: command, log: announce)
        } catch { throw error.told() }
        var hearing: RunningWebhookListener?
        if let webhookListen, let webhookSecrets {
            do throws(ServiceStartFailure) {
                hearing = try await WebhookListener.start(
                    at: webhookListen, storage: storage, configuration: configuration, environment: environment, secrets: webhookSecrets,
                    log: announce
                )
            } catch {
                try? await server.shutdown()
                throw error.told()
            }
            announce(
                "webhooks: listening on \(ListenAddress(host: webhookListen.host, port: hearing?.port ?? 0)) for POST \(WebhookServer.stripePath)")
        }
        let mailer = try mail.startLoop(storage: storage, environment: environment)
        let signal = await stop.next()
        announce(
            "\(signalName(signal)): draining \(server.openSessions) session\(server.openSessions == 1 ? "" : "s") for up to \(ServeDuration.describe(drainTimeout))"
        )
        let killed = await server.drain()
        if killed > 0 { announce("killed \(killed) session\(killed == 1 ? "" : "s") still open after \(ServeDuration.describe(drainTimeout))") }
        try await server.shutdown()
        await hearing?.stop()
        await mailer?.stop()
        announce("stopped")
    }
}

/// Prints one timestamped line of the server's log to stdout.
func announce(_ message: String) {
    let stamp = UTCTime(Date()).iso8601Milliseconds
    emit("\(stamp) \(message)\n", to: STDOUT_FILENO)
}
