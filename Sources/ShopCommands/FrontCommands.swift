import Foundation
import PseudoTerminal
import ShopAPI
import ShopBootstrap
import ShopCredentialFile
import ShopIdentity
import ShopMetrics
import ShopOpenID
import ShopSSH
import ShopServices
import ShopSessions
import ShopWebFront
import ShopWebhookServer
import StorefrontUI
import SystemPackage

/// What every server takes beside its own options: the shop's configuration, whether to migrate, its mail, and how
/// its sessions start.
public struct ServerStart: Sendable {
    public var configuration: ShopConfiguration
    public var migrate: Bool
    public var mail: MailChoice
    public var sandboxLatencyMilliseconds: Int?
    public var sessionStart: ServerSessions.Start
    /// The providers a session's terminal signs in with, and where their links open.
    public var terminalOpenID: TerminalOpenIDSettings?
    /// Where sessions send their metrics (`MetricsExport`'s relay); nil: they keep none.
    public var metricsRelay: String?
    /// How many sessions share a worker process (with `fork`), and when a worker is recycled.
    public var workers: WorkerPolicy = .processPerSession

    public init(
        configuration: ShopConfiguration, migrate: Bool, mail: MailChoice, sandboxLatencyMilliseconds: Int?, sessionStart: ServerSessions.Start
    ) {
        self.configuration = configuration
        self.migrate = migrate
        self.mail = mail
        self.sandboxLatencyMilliseconds = sandboxLatencyMilliseconds
        self.sessionStart = sessionStart
    }

    /// The command line of every session, with the host that forks them (nil for exec); stop the host at the end.
    func sessionCommand(
        environment: [String: String], front: String, adminFingerprints: Set<String> = [], openSSHFront: String? = nil
    ) throws -> SessionCommand {
        var sessionEnvironment = environment
        if let metricsRelay {
            sessionEnvironment[MetricsRelay.addressVariable] = metricsRelay
            sessionEnvironment[MetricsRelay.frontVariable] = front
        }
        return SessionCommand(
            executable: thisExecutable(), arguments: ["run"], environment: sessionEnvironment,
            largestTerminal: TerminalSize(columns: Size.maximum.columns, rows: Size.maximum.rows),
            adminArguments: ["admin"], adminFingerprints: adminFingerprints, openSSHFront: openSSHFront,
            host: try ServerSessions.host(sessionStart, preparing: ["run"], workers: workers, environment: sessionEnvironment)
        )
    }
}

/// `storefront serve`, `web` and `api`: each front started, run until SIGTERM or SIGINT, and drained.
public enum FrontCommands {
    /// The shop over SSH at `host`:`port`, its host key at `hostKey` (default: in the data directory), with the
    /// merchant console for `adminKeys` and, at `webhookListen`, Stripe's webhooks.
    public static func serveSSH(
        _ start: ServerStart, host: String, port: Int, limits: ServeLimits, hostKey: FilePath?, adminKeys: String?, openSSHFront: String?,
        joinSocket: String? = nil,
        webhookListen: ListenAddress?, webhookSecretFile: String?, adminListen: ListenAddress? = nil, metrics: MetricsExport? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        if let problem = SSHShopSettings.problem(port: port, limits: limits) {
            complain(problem)
            throw ExitCodes.usage
        }
        let configuration = start.configuration
        let dataDirectory = SessionLaunch.absolute(configuration.dataDirectory(environment: environment))
        let admins = try Self.adminKeys(adminKeys)
        // Checked before anything is opened: a listener that cannot check signatures, or hear no one, must not start.
        let webhookSecrets = try webhookListen.map { _ in
            do throws(ServiceStartFailure) { try WebhookListener.requireStripe(configuration) } catch { throw error.told() }
            return try WebhookCommands.secrets(file: webhookSecretFile, environment: environment)
        }
        // Opening storage here migrates the database (and, on SQLite, imports the catalog) once,
        // before any session process races to do it.
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: start.migrate, environment: environment)
        announce("storage: \(storage.place)")
        if let database = storage.postgres { DatabaseWatch.start(database) { announce($0) } }
        let command = try await sshSessions(
            start, storage: storage, dataDirectory: dataDirectory, admins: admins, openSSHFront: openSSHFront, environment: environment)
        defer { command.host?.stop() }

        SessionLaunch.raiseOpenFileLimit()
        let settings = SSHShopSettings(
            host: host, port: port, hostKeyPath: SessionLaunch.absolute(hostKey ?? dataDirectory.appending("ssh_host_ed25519_key")), limits: limits,
            joinSocket: joinSocket.map { SessionLaunch.absolute(FilePath($0)).string })
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
                    log: announce)
            } catch {
                try? await server.shutdown()
                throw error.told()
            }
            announce(
                "webhooks: listening on \(ListenAddress(host: webhookListen.host, port: hearing?.port ?? 0)) for POST \(WebhookServer.stripePath)")
        }
        let admin: RunningAdminListener?
        do throws(ServiceStartFailure) {
            admin = try await AdminListening.start(
                at: adminListen, storage: storage,
                checks: [AdminListening.payments(configuration)] + [AdminListening.sessions(command.host)].compactMap { $0 }, metrics: metrics,
                log: announce)
        } catch {
            try? await server.shutdown()
            await hearing?.stop()
            throw error.told()
        }
        let mailer = try start.mail.startLoop(storage: storage, environment: environment)
        let renewals = SubscriptionCommands.startBeside(storage: storage, configuration: start.configuration, environment: environment)
        let signal = await stop.next()
        let drainTimeout = settings.limits.drainTimeout
        announce(ServerSessions.drainLine(signal, open: server.openSessions, for: drainTimeout))
        let killed = await server.drain()
        if killed > 0 { announce("killed \(killed) session\(killed == 1 ? "" : "s") still open after \(ServeDuration.describe(drainTimeout))") }
        try await server.shutdown()
        await hearing?.stop()
        await mailer?.stop()
        await renewals?.stop()
        await admin?.stop()
        announce("stopped")
    }

    /// The shop in a browser: a terminal page whose WebSocket runs a guest session per tab.
    public static func serveWeb(
        _ start: ServerStart, settings: WebFrontSettings, openIDProviders: String? = nil, adminListen: ListenAddress? = nil,
        metrics: MetricsExport? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        if let problem = settings.problem {
            complain(problem)
            throw ExitCodes.usage
        }
        let providers = try (openIDProviders ?? environment["STOREFRONT_OPENID_PROVIDERS"]).map(OpenIDProviderFile.read) ?? []
        let (dataDirectory, storage) = try await ShopStorage.openForServer(
            configuration: start.configuration, migrate: start.migrate, environment: environment)
        var settings = settings
        let (command, signIn) = try await webSessions(
            start, settings: &settings, providers: providers, storage: storage, dataDirectory: dataDirectory, environment: environment)
        defer { command.host?.stop() }
        SessionLaunch.raiseOpenFileLimit()
        let stop = StopSignals()
        let mailer = try start.mail.startLoop(storage: storage, environment: environment)
        let front: RunningWebShop
        do throws(ServiceStartFailure) {
            let mailPages = WebMailPageReaders.make(storage: storage, environment: environment, log: { announce("web: \($0)", level: .warning) })
            front = try await WebShopService.start(settings, command: command, signIn: signIn, mailPages: mailPages, log: announce)
        } catch {
            await mailer?.stop()
            throw error.told()
        }
        let admin: RunningAdminListener?
        do throws(ServiceStartFailure) {
            admin = try await AdminListening.start(
                at: adminListen, storage: storage,
                checks: [AdminListening.payments(start.configuration)] + [AdminListening.sessions(command.host)].compactMap { $0 }, metrics: metrics,
                log: announce)
        } catch {
            _ = await front.stop()
            await mailer?.stop()
            throw error.told()
        }
        let signal = await stop.next()
        let drainTimeout = settings.limits.drainTimeout
        announce(ServerSessions.drainLine(signal, open: front.openSessions, for: drainTimeout))
        let left = await front.stop()
        if left > 0 {
            announce(
                "\(left) session\(left == 1 ? "" : "s") still open after \(ServeDuration.describe(drainTimeout)); their shops are killed 5 s after being asked to end"
            )
        }
        await mailer?.stop()
        await admin?.stop()
        announce("stopped")
    }

    /// The shop's HTTP API on its database, until SIGTERM or SIGINT stops it after the requests in flight.
    package static func serveAPI(
        configuration: ShopConfiguration, migrate: Bool, settings: APIServiceSettings, adminListen: ListenAddress? = nil,
        metrics: MetricsExport? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        if let problem = settings.problem {
            complain(problem)
            throw ExitCodes.usage
        }
        let (_, storage) = try await ShopStorage.openForServer(configuration: configuration, migrate: migrate, environment: environment)
        SessionLaunch.raiseOpenFileLimit()
        let stop = StopSignals()
        let api: RunningAPI
        do throws(ServiceStartFailure) {
            api = try await APIService.start(settings, configuration: configuration, storage: storage, environment: environment, log: announce)
        } catch { throw error.told() }
        let address = ListenAddress(host: settings.listen.host, port: api.port)
        announce("listening on \(address); the document is at http://\(address)/v1/openapi.json")
        let admin: RunningAdminListener?
        do throws(ServiceStartFailure) {
            admin = try await AdminListening.start(
                at: adminListen, storage: storage, checks: [AdminListening.payments(configuration)], metrics: metrics, log: announce)
        } catch {
            await api.stop()
            throw error.told()
        }
        let signal = await stop.next()
        announce("\(signalName(signal)): stopping after the requests in flight")
        await admin?.stop()
        await api.stop()
        storage.postgres?.close()
        announce("stopped")
    }
}
