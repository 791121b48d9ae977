import Foundation
import Logging
import PseudoTerminal
import ServiceLifecycle
import ShopApplication
import ShopBootstrap
import ShopPorts
import ShopSSH
import ShopServices
import ShopSessions
import ShopWebFront
import SystemPackage

/// `storefront up`: every front and worker the configuration enables, in one process.
///
/// Order of calls: the configuration checked → the shop opened (and migrated) once → the fronts started in order (SSH,
/// web, API, webhooks; one that cannot start stops the start-up with its reason) → the admin listener → the workers →
/// served until SIGTERM or SIGINT, SIGHUP reloading what can change live → the fronts drained together, then the
/// workers and the admin listener stopped.
public enum UpCommands {
    public static func run(_ configuration: ServiceConfiguration, overrides: [String], migrate: Bool, environment: [String: String]) async throws {
        if configuration.problems.isEmpty { configuration.configureLog(format: true) }
        let problems = configuration.everyProblem
        guard problems.isEmpty else {
            for problem in problems { complain(problem.description) }
            complain("nothing started: \(problems.count) problem\(problems.count == 1 ? "" : "s") in the configuration (storefront config check)")
            throw ExitCodes.configError
        }
        for warning in configuration.warnings { announce("up: warning: \(warning)", level: .warning) }
        announce("up: \(configuration.file ?? "no config file"): starting \(configuration.enabled.joined(separator: ", "))")
        var stack = StartedStack()
        do {
            let running = try await start(configuration, migrate: migrate, environment: environment, stack: &stack)
            let reload = Reloader(running: running, current: configuration, overrides: overrides, environment: environment)
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: StopOnShutdown { await running.admin?.stop() })]
            services += running.workers.map { .init(service: $0) }
            services.append(.init(service: ReloadOnHangUp { await reload.reload() }))
            services.append(.init(service: StopOnShutdown { await running.drain() }))
            var logger = Logger(label: "storefront.up")
            logger.logLevel = .warning
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            announce("up: running; SIGHUP reloads the configuration, SIGTERM or SIGINT drains and stops")
            try await group.run()
            await stack.unwind(startFailed: false)
            announce("stopped")
        } catch {
            await stack.unwind(startFailed: true)
            throw error
        }
    }

    /// Starts each enabled front, then the admin listener and the workers; `stack` gets what to undo for each.
    static func start(
        _ configuration: ServiceConfiguration, migrate: Bool, environment: [String: String], stack: inout StartedStack
    ) async throws -> RunningUp {
        let shop = configuration.shop
        var start = ServerStart(
            configuration: shop, migrate: migrate, mail: configuration.mail, sandboxLatencyMilliseconds: shop.sandboxLatencyMilliseconds,
            sessionStart: .fork)
        start.workers = configuration.workers
        let dataDirectory = SessionLaunch.absolute(shop.dataDirectory(environment: environment))
        // Before any front: the process's metrics go to Prometheus from the first, and sessions are told the relay.
        let metrics = configuration.isOn("metrics.enabled") && configuration.address("admin.listen") != nil ? MetricsExport.start() : nil
        start.metricsRelay = metrics?.relay?.address
        let runsSSH = configuration.isOn("ssh.enabled")
        let admins = runsSSH ? try FrontCommands.adminKeys(configuration["ssh.admin-keys"]) : AdminKeys()
        if runsSSH {
            start.terminalOpenID = try TerminalOpenIDChoice.settings(
                providersFile: configuration["ssh.openid-providers"], webOrigin: configuration["web.origin"], environment: environment)
        }
        let webhookSecrets =
            configuration.isOn("webhooks.enabled")
            ? try WebhookCommands.secrets(file: configuration["webhooks.secret-file"], environment: environment) : nil
        let storage = try await ShopStorage.open(
            configuration: shop, dataDirectory: dataDirectory, pool: .command, migrate: migrate, environment: environment)
        announce("storage: \(storage.place)")
        if let database = storage.postgres {
            DatabaseWatch.start(database) { announce($0) }
            stack.push { database.close() }
        }
        SessionLaunch.raiseOpenFileLimit()
        var running = RunningUp(storage: storage)
        var sessionChecks: [ReadinessProbe] = []
        if runsSSH {
            let command = try await FrontCommands.sshSessions(
                start, storage: storage, dataDirectory: dataDirectory, admins: admins, openSSHFront: configuration["ssh.openssh-front"],
                environment: environment)
            stack.push { command.host?.stop() }
            sessionChecks += [AdminListening.sessions(command.host, name: "ssh sessions")].compactMap { $0 }
            let listen = configuration.address("ssh.listen") ?? ListenAddress(host: "0.0.0.0", port: 2222)
            let hostKey =
                configuration["ssh.host-key"].map { SessionLaunch.absolute(FilePath($0)) } ?? dataDirectory.appending("ssh_host_ed25519_key")
            let settings = SSHShopSettings(
                host: listen.host, port: listen.port, hostKeyPath: hostKey, limits: configuration.sshLimits,
                joinSocket: configuration["ssh.join-socket"].map { SessionLaunch.absolute(FilePath($0)).string })
            let ssh = try await told { () async throws(ServiceStartFailure) in
                try await SSHShopService.start(settings, command: command) { announce("ssh: \($0)") }
            }
            stack.pushFront { try? await ssh.shutdown() }
            running.ssh = ssh
            running.sshSessions = command
        }
        if configuration.isOn("web.enabled") {
            let providers = try configuration["ssh.openid-providers"].map(OpenIDProviderFile.read) ?? []
            var settings = configuration.webSettings
            let (command, signIn) = try await FrontCommands.webSessions(
                start, settings: &settings, providers: providers, storage: storage, dataDirectory: dataDirectory, environment: environment)
            stack.push { command.host?.stop() }
            sessionChecks += [AdminListening.sessions(command.host, name: "web sessions")].compactMap { $0 }
            let finalSettings = settings
            let mailPages = WebMailPageReaders.make(storage: storage, environment: environment, log: { announce("web: \($0)", level: .warning) })
            let web = try await told { () async throws(ServiceStartFailure) in
                try await WebShopService.start(finalSettings, command: command, signIn: signIn, mailPages: mailPages) { announce("web: \($0)") }
            }
            stack.pushFront { _ = await web.stop() }
            running.web = web
        }
        if configuration.isOn("api.enabled") {
            let settings = configuration.apiSettings
            let api = try await told { () async throws(ServiceStartFailure) in
                try await APIService.start(settings, configuration: shop, storage: storage, environment: environment) { announce("api: \($0)") }
            }
            stack.pushFront { await api.stop() }
            announce("api: listening on \(ListenAddress(host: settings.listen.host, port: api.port))")
            running.api = api
        }
        if let webhookSecrets {
            let listen = configuration.address("webhooks.listen") ?? ListenAddress(host: "127.0.0.1", port: 8088)
            let hearing = try await told { () async throws(ServiceStartFailure) in
                try await WebhookListener.start(
                    at: listen, storage: storage, configuration: shop, environment: environment, secrets: webhookSecrets
                ) { announce("webhooks: \($0)") }
            }
            stack.pushFront { await hearing.stop() }
            announce("webhooks: listening on \(ListenAddress(host: listen.host, port: hearing.port))")
            running.webhooks = hearing
        }
        let admin = try await told { () async throws(ServiceStartFailure) in
            try await AdminListening.start(
                at: configuration.address("admin.listen"), storage: storage,
                checks: [AdminListening.payments(shop)] + sessionChecks + [running.accepting.probe], metrics: metrics, log: announce)
        }
        stack.pushFront { await admin?.stop() }
        running.admin = admin
        running.workers = try workers(configuration, storage: storage, environment: environment, running: &running)
        if let payments = running.renewalPayments { stack.push { await payments.close() } }
        return running
    }

    /// A front's start, its failure told and turned into its exit status.
    private static func told<Value>(_ start: () async throws(ServiceStartFailure) -> Value) async throws -> Value {
        do throws(ServiceStartFailure) { return try await start() } catch { throw error.told() }
    }
}

/// What `up` started, to be undone in reverse when it stops or a later start fails.
struct StartedStack {
    private var undo: [(step: @Sendable () async -> Void, front: Bool)] = []

    /// A session host or the database: closed last, however `up` ends.
    mutating func push(_ step: @escaping @Sendable () async -> Void) { undo.append((step, false)) }

    /// A front: stopped here only when a later start fails; once all are up, the shutdown drains them.
    mutating func pushFront(_ step: @escaping @Sendable () async -> Void) { undo.append((step, true)) }

    /// Runs each step once, newest first; the fronts' only when the start-up failed.
    mutating func unwind(startFailed: Bool) async {
        while let (step, front) = undo.popLast() {
            if startFailed || !front { await step() }
        }
    }
}
