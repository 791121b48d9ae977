import Foundation
import Logging
import PseudoTerminal
import ShopApplication
import ShopBootstrap
import ShopRecording
import ShopSSH
import ShopServices
import ShopSessions
import StorefrontCore
import SystemPackage
import TerminalNCurses

/// `storefront run` and `admin`: the shop, or the merchant console, in this terminal.
public enum TerminalShop {
    /// What the command line sets over the configuration: the terminal's looks, the log, the sandbox's pace.
    public struct Overrides: Sendable {
        public var logLevel: String?
        public var theme: String?
        public var mouse: Bool?
        public var sandboxLatencyMilliseconds: Int?
        public init(logLevel: String? = nil, theme: String? = nil, mouse: Bool? = nil, sandboxLatencyMilliseconds: Int? = nil) {
            self.logLevel = logLevel
            self.theme = theme
            self.mouse = mouse
            self.sandboxLatencyMilliseconds = sandboxLatencyMilliseconds
        }
    }

    /// Opens `console` in this terminal (or, in a worker, on `place`'s) and returns when the shopper quits; exits with
    /// the session's ending otherwise.
    ///
    /// Order of calls: the settings (a server's, handed over, else `ownConfiguration`) → the log level, theme and
    /// latency checked → the terminal asked for its background → storage → the terminal checked → the log → the
    /// session's dependencies → the mail loop → the session runs → the mail loop, then the payments, closed.
    @MainActor
    public static func open(
        console: Console, ownConfiguration: () throws -> ShopConfiguration, migrate: Bool, overrides: Overrides, mail: MailChoice,
        place: TerminalPlace = .ownTerminal
    ) async throws {
        let environment = place.environment ?? ProcessInfo.processInfo.environment
        // A session a server started has the server's configuration; a shop started by hand reads its own.
        let handedOver: SessionSettings?
        do throws(ServiceStartFailure) { handedOver = try SessionSettings.handedOver(in: environment) } catch { throw error.told() }
        var configuration = try handedOver?.configuration ?? ownConfiguration()
        let migrates = handedOver?.migrates ?? migrate
        if let logLevel = overrides.logLevel { configuration.logLevel = logLevel }
        if let theme = overrides.theme { configuration.theme = theme }
        if let mouse = overrides.mouse { configuration.mouse = mouse }
        if let latency = overrides.sandboxLatencyMilliseconds { configuration.sandboxLatencyMilliseconds = latency }

        guard let theme = ThemePreference(rawValue: configuration.theme ?? "auto") else {
            complain("unknown theme \"\(configuration.theme ?? "")\"; use auto, dark, light or mono")
            throw ExitCodes.usage
        }
        guard let level = Logger.Level(rawValue: configuration.logLevel ?? "info") else {
            complain("unknown log level \"\(configuration.logLevel ?? "")\"; use trace, debug, info, notice, warning, error or critical")
            throw ExitCodes.usage
        }
        let latency = configuration.sandboxLatencyMilliseconds ?? 300
        guard latency <= 60_000 else {
            complain("sandbox latency \(latency) ms is over a minute")
            throw ExitCodes.usage
        }

        // `auto` asks the terminal for its background now and reads the answer when the screen starts: the round trip
        // (over SSH, the client's) overlaps opening the database instead of delaying the first frame.
        // Only of a terminal the shop will draw on: a dumb one would print the question.
        // In a worker, whose sessions must never block one another, the answer is not waited for: COLORFGBG, else dark.
        // Its DA1 answer also says whether the terminal draws sixels.
        let backgroundQuestion =
            place.isOwnTerminal && theme == .auto && (environment["NO_COLOR"] ?? "").isEmpty
                && (try? TerminalSession.checkTerminal(environment: environment)) != nil
            ? BackgroundProbe.ask(input: STDIN_FILENO, output: STDOUT_FILENO, environment: environment) : nil

        // Everything that can fail is checked before the screen is touched: files first, then the terminal.
        let dataDirectory = configuration.dataDirectory(environment: environment)
        // A shopper at a terminal (an SSH session among them) waits for a database that is down; a script gets 69.
        let storage = try await WorkerStorage.open(
            shared: !place.isOwnTerminal, configuration: configuration, environment: environment, migrate: migrates,
            waitsForDatabase: !place.isOwnTerminal || (isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1))
        do {
            if place.isOwnTerminal { try TerminalSession.checkTerminal(environment: environment) }
        } catch let error as TerminalError {
            complain("\(error)")
            throw ExitCodes.noTerminal
        }
        let (logger, logSink) = try place.isOwnTerminal ? openLog(in: dataDirectory, level: level) : WorkerLogs.log(in: dataDirectory, level: level)
        for warning in storage.warnings { logger.warning("\(warning)") }
        let productCount = try await storage.catalog.count(matching: "")
        // Every SSH session appends to this one file: the customer and pid tell their lines apart.
        let sshCustomer = environment[SessionCommand.fingerprintVariable].map { ", over SSH for ssh:\($0), pid \(getpid())" } ?? ""
        let catalogSource = configuration.database == nil ? configuration.catalog?.string ?? "bundled" : "from the database"
        logger.info(
            "starting: catalog \(catalogSource) with \(productCount) products\(storage.didImport ? ", imported into SQLite" : ""), stored in \(storage.place)\(sshCustomer)"
        )

        let codeMailer = MailChoice.codeMailer(
            try handedOver?.codeMail ?? mail.codeMailSettings(shop: storage.catalog.shop, environment: environment), shop: storage.catalog.shop)
        let openID = try handedOver.map { $0.openID } ?? TerminalOpenIDChoice.settings(providersFile: nil, webOrigin: nil, environment: environment)
        let composed: (dependencies: StorefrontDependencies, settlement: StartSettlement, payments: PaymentStack)
        do throws(ServiceStartFailure) {
            composed = try await SessionComposition.dependencies(
                storage: storage, configuration: configuration, environment: environment, clock: ContinuousClock(), latency: .milliseconds(latency),
                console: console,
                codeMailer: codeMailer,
                openID: openID,
                log: { logger.warning("\($0)") })
        } catch { throw error.told() }
        let (dependencies, settlement, payments) = composed
        logger.info("payments: \(dependencies.paymentProvider.mode.label)")
        log(settlement, to: logger)
        // Said once, before the terminal is taken, or once after it is given back; the shop runs either way.
        let logPath = dataDirectory.appending("storefront.log")
        var toldLogFailure = false
        func tellLogFailure() {
            guard !toldLogFailure, let reason = logSink.firstFailure else { return }
            toldLogFailure = true
            complain("cannot write the log \(logPath) (\(reason)); log lines are dropped")
        }
        tellLogFailure()
        defer { tellLogFailure() }
        // With a mail command, this shop sends its own shoppers' messages: at start, every 10 s, and once more at the end.
        let mailer = try mail.delivery(storage: storage, environment: environment).map { delivery in
            MailLoop.start(delivery, every: .seconds(10)) { logger.notice("mail: \($0)") }
        }
        let ending: TerminalSession.Ending
        do {
            if case .worker(let descriptor, _, let typedAhead, let started) = place {
                let session = try DescriptorSession(
                    dependencies: dependencies, descriptor: descriptor, theme: theme,
                    background: environment["COLORFGBG"].flatMap(BackgroundProbe.background(colorFGBG:)), typeahead: typedAhead(),
                    environment: environment, mouse: configuration.mouse ?? true, crashKey: WorkerFaults.crashKey(environment)
                ) { logger.info("\($0)") }
                // The session runs on in a task of the worker's own: this start's deep frames (whose memory a task keeps
                // until it ends) are given back now, where awaiting the session here would hold them for its length.
                started(session) { ending in
                    await mailer?.stop()
                    await payments.close()
                    return ending.rawValue
                }
                return
            } else {
                SessionHost.releaseFreeMemory()
                let background = backgroundQuestion?.answer()
                let session = TerminalSession(
                    dependencies: dependencies, theme: theme, background: background, typeahead: backgroundQuestion?.typedMeanwhile ?? [],
                    deviceAttributes: backgroundQuestion?.deviceAttributes ?? [],
                    environment: environment, mouse: configuration.mouse ?? true
                ) { logger.info("\($0)") }
                ending = try await session.run()
            }
        } catch {
            logger.error("terminal failed: \(error)")
            complain("\(error)")
            throw ExitCodes.noTerminal
        }
        await mailer?.stop()
        await payments.close()
        if ending != .quit { throw CommandExit(ending.rawValue) }
    }

    /// In a fresh worker, before its first session: opens the storage its sessions will share, for the configuration
    /// the server hands every session, so that session (on a quiet server, every shopper's) waits on no database open.
    /// Nothing is said of a failure: the session that needs the storage opens it again, and says why it cannot.
    @MainActor
    public static func prepareWorker(ownConfiguration: () throws -> ShopConfiguration, migrate: Bool) async {
        let environment = ProcessInfo.processInfo.environment
        let handedOver: SessionSettings?
        do { handedOver = try SessionSettings.handedOver(in: environment) } catch { return }
        guard let configuration = try? handedOver?.configuration ?? ownConfiguration() else { return }
        _ = try? await WorkerStorage.open(
            shared: true, configuration: configuration, environment: environment, migrate: handedOver?.migrates ?? migrate, waitsForDatabase: false)
    }

    /// What the start found of an earlier stop's open orders and pending refunds, and what it made of them.
    private static func log(_ settlement: StartSettlement, to logger: Logger) {
        for order in settlement.settled { logger.notice("settled order \(order.number) left open by an earlier stop: \(order.status.rawValue)") }
        for order in settlement.leftOpen { logger.warning("order \(order.number) left open by an earlier stop is still open: \(order.reason)") }
        for recovery in settlement.refunds {
            let outcome = recovery.failure.map { "still not refunded: \($0)" } ?? "refunded now"
            logger.notice("refund \(recovery.refundID) of \(recovery.orderNumber) left pending by an earlier stop: \(outcome)")
        }
    }

    static func openLog(in directory: FilePath, level: Logger.Level) throws -> (Logger, FileLogHandler.Sink) {
        let url = URL(fileURLWithPath: directory.string)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let (sink, factory) = try FileLogHandler.open(url.appendingPathComponent("storefront.log"), level: level)
            return (Logger(label: "storefront", factory: factory), sink)
        } catch {
            complain("cannot write to the data directory \(directory): \(error.localizedDescription)")
            throw ExitCodes.cannotCreate
        }
    }

    /// `run --record`: this very command, without `--record`, in a pty between this terminal and the shop, recorded;
    /// exits as the shop did.
    @MainActor
    public static func record(to path: FilePath, force: Bool, arguments given: [String]) throws {
        let url = try writingRecording { () throws(RecordingFileError) in try RecordingFile.checked(path, force: force) }
        do {
            try TerminalSession.checkTerminal(environment: ProcessInfo.processInfo.environment)
        } catch {
            complain("\(error)")
            throw ExitCodes.noTerminal
        }
        var arguments = given
        // Drop --record and its value (as "--record F" or "--record=F"); the session is told to mark its forms.
        if let index = arguments.firstIndex(of: "--record"), index + 1 < arguments.count {
            arguments.removeSubrange(index...(index + 1))
        }
        arguments.removeAll { $0.hasPrefix("--record=") || $0 == "--force" }
        if arguments.first != "run" { arguments.insert("run", at: 0) }
        var environment = ProcessInfo.processInfo.environment
        environment[TerminalSession.privateMarkersVariable] = "1"
        let recording = LiveRecording(executable: thisExecutable(), arguments: arguments, environment: environment)
        let result: LiveRecording.Result
        do {
            result = try recording.run()
        } catch {
            complain("cannot record \(path): \(error)")
            throw ExitCodes.ioError
        }
        try writingRecording { () throws(RecordingFileError) in
            try RecordingFile.write(
                result.events, size: result.size, term: environment["TERM"] ?? "xterm-256color", title: "storefront run", to: url, force: force)
        }
        if result.termination.shellStatus != 0 { throw CommandExit(result.termination.shellStatus) }
    }
}

extension TerminalShop {
    /// Who the console's changes are recorded as made by: the SSH key `serve --admin-keys` let in, or the local user
    /// (the same name the `orders` commands record).
    public static func merchantName(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let fingerprint = environment[SessionCommand.fingerprintVariable], SSHPublicKeyIdentity.isFingerprint(fingerprint) {
            return "ssh:\(fingerprint)"
        }
        return ProcessUser.name
    }
}
