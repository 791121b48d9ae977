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

    @Option(setting: "ssh.host-key", as: SettingValue.text) var hostKey: String?
    @Option(setting: "ssh.max-sessions", as: SettingValue.text) var maxSessions: String?
    @Option(setting: "ssh.openssh-front", as: SettingValue.text) var openSSHFront: String?
    @Option(setting: "ssh.join-socket", as: SettingValue.text) var joinSocket: String?
    @Option(setting: "ssh.idle-timeout", as: SettingValue.text) var idleTimeout: String?
    @Option(setting: "ssh.drain-timeout", as: SettingValue.text) var drainTimeout: String?
    @Option(setting: "ssh.connections-per-minute", as: SettingValue.text) var connectionsPerMinute: String?
    @OptionGroup var guests: GuestLimitOptions
    @OptionGroup var mail: MailSettings
    @OptionGroup var admin: AdminListenOption
    @Option(setting: "webhooks.listen", as: SettingValue.address, showingDefault: false) var webhookListen: ListenAddress?
    @OptionGroup var webhooks: WebhookSettings
    @Option(setting: "ssh.admin-keys", as: SettingValue.text) var adminKeys: String?
    @Option(setting: "ssh.openid-providers", as: SettingValue.text) var openIDProviders: String?
    @Option(setting: "web.origin", as: SettingValue.text) var webOrigin: String?
    @OptionGroup var latency: SandboxLatencyOption

    @OptionGroup var sessionStart: SessionStartOption

    func validate() throws {
        if let problem = webOrigin.flatMap(TerminalOpenIDChoice.originProblem) { throw ValidationError(problem) }
        if let problem = openSSHFront.flatMap(OpenSSHSession.frontProblem) { throw ValidationError(problem) }
    }

    /// The flags given, as settings over the config file's `[ssh]` and the environment's.
    var given: [(setting: String, value: String?)] {
        [
            ("ssh.max-sessions", maxSessions), ("ssh.host-key", hostKey), ("ssh.openssh-front", openSSHFront), ("ssh.join-socket", joinSocket),
            ("ssh.admin-keys", adminKeys), ("ssh.openid-providers", openIDProviders), ("web.origin", webOrigin),
            ("ssh.idle-timeout", idleTimeout), ("ssh.drain-timeout", drainTimeout), ("ssh.connections-per-minute", connectionsPerMinute),
        ] + guests.given + sessionStart.given
    }

    @OptionGroup var log: LogFormatOption

    func run() async throws {
        log.apply()
        let settings = try ServiceConfiguration.loadForCommand(flags: given)
        let (webOrigin, openSSHFront) = (settings["web.origin"], settings["ssh.openssh-front"])
        // The flags were checked as they were parsed; the file's and the environment's values are checked here alike.
        if let problem = webOrigin.flatMap(TerminalOpenIDChoice.originProblem) ?? openSSHFront.flatMap(OpenSSHSession.frontProblem) {
            throw ValidationError(problem)
        }
        var start = try shop.serverStart(mail: mail, latency: latency, sessions: sessionStart, settings: settings)
        start.terminalOpenID = try TerminalOpenIDChoice.settings(providersFile: settings["ssh.openid-providers"], webOrigin: webOrigin)
        start.mail.webOrigin = webOrigin
        let metrics = admin.export
        start.metricsRelay = metrics?.relay?.address
        try await FrontCommands.serveSSH(
            start, host: host, port: port, limits: settings.sshLimits, hostKey: settings["ssh.host-key"].map { FilePath($0) },
            adminKeys: settings["ssh.admin-keys"], openSSHFront: openSSHFront, joinSocket: settings["ssh.join-socket"], webhookListen: webhookListen,
            webhookSecretFile: webhooks.secretFile,
            adminListen: admin.address, metrics: metrics)
    }
}
