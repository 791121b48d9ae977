import ArgumentParser
import ShopCommands
import ShopServices
import ShopSessions
import SystemPackage

/// `storefront serve`: the shop over SSH, one shop process per session, the database shared.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the shop over SSH: ssh -p PORT HOST opens it, the key reaches its account.",
        discussion: """
            Any public key is accepted once its signature checks out; its SHA256 fingerprint reaches an account \
            (made by the key, or joined to one by an emailed code or a provider), so carts and orders follow it. \
            Without a key a visitor is a guest (--max-guests). Sessions need a pty (ssh -t). SIGTERM or \
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
        name: .customLong("openssh-front"),
        help: ArgumentHelp(
            "How shoppers reach the shop through the system's OpenSSH (such as \"ssh shop@shop.example\"), told to guests: the way in for RSA keys (docs/openssh.md).",
            valueName: "command"))
    var openSSHFront: String?

    @Option(
        name: .customLong("join-socket"),
        help: ArgumentHelp(
            "Also take the sessions the system's OpenSSH hands over here (storefront sshd-config --join) into this server's workers: a local socket only this user may use (docs/openssh.md).",
            valueName: "path"))
    var joinSocket: String?

    @OptionGroup var sessions: SessionTimeOptions

    @OptionGroup var guests: GuestLimitOptions

    @OptionGroup var mail: MailSettings
    @OptionGroup var admin: AdminListenOption

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

    @Option(
        name: .customLong("openid-providers"),
        help: ArgumentHelp(
            "A JSON file of OpenID Connect providers shoppers may sign in with from the terminal (docs/openid-connect.md). Env: STOREFRONT_OPENID_PROVIDERS.",
            valueName: "file"))
    var openIDProviders: String?

    @Option(
        name: .customLong("web-origin"),
        help: ArgumentHelp(
            "The origin of this shop's storefront web (https://shop.example), where a terminal's sign-in link opens and subscription mail sends subscribers. Env: STOREFRONT_WEB_ORIGIN.",
            valueName: "url"))
    var webOrigin: String?

    @OptionGroup var latency: SandboxLatencyOption

    @OptionGroup var sessionStart: SessionStartOption

    func validate() throws {
        if let problem = webOrigin.flatMap(TerminalOpenIDChoice.originProblem) { throw ValidationError(problem) }
        if let problem = SSHShopSettings.problem(port: port, limits: limits) { throw ValidationError(problem) }
        if let problem = openSSHFront.flatMap(OpenSSHSession.frontProblem) { throw ValidationError(problem) }
    }

    /// The limits these options set on sessions and connections.
    var limits: ServeLimits {
        ServeLimits(
            maxSessions: maxSessions, connectionsPerSourcePerMinute: sessions.connectionsPerMinute, idleTimeout: sessions.idleTimeout,
            drainTimeout: sessions.drainTimeout, maxGuests: guests.maxGuests, guestsPerAddress: guests.guestsPerAddress)
    }

    @OptionGroup var log: LogFormatOption

    func run() async throws {
        log.apply()
        var start = try shop.serverStart(mail: mail, latency: latency, sessions: sessionStart)
        start.terminalOpenID = try TerminalOpenIDChoice.settings(providersFile: openIDProviders, webOrigin: webOrigin)
        start.mail.webOrigin = webOrigin
        let metrics = admin.export
        start.metricsRelay = metrics?.relay?.address
        try await FrontCommands.serveSSH(
            start, host: host, port: port, limits: limits, hostKey: hostKey,
            adminKeys: adminKeys, openSSHFront: openSSHFront, joinSocket: joinSocket, webhookListen: webhookListen,
            webhookSecretFile: webhooks.secretFile,
            adminListen: admin.address, metrics: metrics)
    }
}
