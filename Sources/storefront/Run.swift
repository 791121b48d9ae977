import ArgumentParser
import Foundation
import Logging
import PseudoTerminal
import ShopBootstrap
import ShopMerchant
import ShopRecording
import ShopSSH
import ShopServices
import ShopSessions
import StorefrontCore
import SystemPackage
import TerminalNCurses

/// `storefront` / `storefront run`: opens the shop in this terminal.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Open the shop in this terminal (the default command).",
        discussion: "Keys: arrows or j/k move, Enter opens, Esc goes back, a adds, c cart, u account, p pays, ? help, q quits."
    )

    @OptionGroup var shop: ShopOptions

    @OptionGroup var terminal: TerminalOptions

    @OptionGroup var mail: MailSettings

    @Option(help: ArgumentHelp("Record this session as an asciicast v2 file; what is typed in forms is left out.", valueName: "file.cast"))
    var record: FilePath?

    @Flag(help: "With --record: replace the file if it exists.")
    var force = false

    @Option(
        name: .customLong("sandbox-latency-ms"),
        help: ArgumentHelp("How long each sandbox payment call takes, to show progress. Default 300.", valueName: "ms"))
    var sandboxLatencyMilliseconds: Int?

    @MainActor
    func run() async throws {
        try await open(console: .shop)
    }

    /// Opens the shop, or the merchant console, in this terminal.
    @MainActor
    func open(console: Console) async throws {
        if let record { return try recordSession(to: record) }
        let environment = ProcessInfo.processInfo.environment
        // A session a server started has the server's configuration; a shop started by hand reads its own.
        let handedOver: SessionSettings?
        do { handedOver = try SessionSettings.handedOver(in: environment) } catch { throw error.told() }
        var configuration = try handedOver?.configuration ?? shop.configuration(environment: environment)
        let migrates = handedOver?.migrates ?? !shop.noMigrate
        if let logLevel = terminal.logLevel { configuration.logLevel = logLevel.rawValue }
        if let theme = terminal.theme { configuration.theme = theme.rawValue }
        if let mouse = terminal.mouse { configuration.mouse = mouse }
        if let sandboxLatencyMilliseconds { configuration.sandboxLatencyMilliseconds = sandboxLatencyMilliseconds }

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
        let backgroundQuestion =
            theme == .auto && (environment["NO_COLOR"] ?? "").isEmpty && (try? TerminalSession.checkTerminal(environment: environment)) != nil
            ? BackgroundProbe.ask(input: STDIN_FILENO, output: STDOUT_FILENO, environment: environment) : nil

        // Everything that can fail is checked before the screen is touched: files first, then the terminal.
        let dataDirectory = configuration.dataDirectory(environment: environment)
        // A shopper at a terminal (an SSH session among them) waits for a database that is down; a script gets 69.
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: dataDirectory, pool: .session, migrate: migrates,
            environment: environment, waitsForDatabase: isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        )
        let catalog = storage.catalog
        do {
            try TerminalSession.checkTerminal(environment: environment)
        } catch let error as TerminalError {
            complain("\(error)")
            throw ExitCodes.noTerminal
        }
        let (logger, logSink) = try openLog(in: dataDirectory, level: level)
        for warning in storage.warnings { logger.warning("\(warning)") }
        let productCount = try await catalog.count(matching: "")
        // Every SSH session appends to this one file: the customer and pid tell their lines apart.
        let sshCustomer = environment[SessionCommand.fingerprintVariable].map { ", over SSH for ssh:\($0), pid \(getpid())" } ?? ""
        logger.info(
            "starting: catalog \(configuration.database == nil ? configuration.catalog?.string ?? "bundled" : "from the database") with \(productCount) products\(storage.didImport ? ", imported into SQLite" : ""), stored in \(storage.place)\(sshCustomer)"
        )

        let composed: (dependencies: StorefrontDependencies, settlement: StartSettlement, payments: PaymentStack)
        do {
            composed = try await SessionComposition.dependencies(
                storage: storage, configuration: configuration, environment: environment, clock: ContinuousClock(), latency: .milliseconds(latency),
                console: console, log: { logger.warning("\($0)") })
        } catch { throw error.told() }
        let (dependencies, settlement, payments) = composed
        logger.info("payments: \(dependencies.paymentProvider.mode.label)")
        for order in settlement.settled { logger.notice("settled order \(order.number) left open by an earlier stop: \(order.status.rawValue)") }
        for order in settlement.leftOpen { logger.warning("order \(order.number) left open by an earlier stop is still open: \(order.reason)") }
        for recovery in settlement.refunds {
            let outcome = recovery.failure.map { "still not refunded: \($0)" } ?? "refunded now"
            logger.notice("refund \(recovery.refundID) of \(recovery.orderNumber) left pending by an earlier stop: \(outcome)")
        }
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
        SessionHost.releaseFreeMemory()
        let background = backgroundQuestion?.answer()
        let session = TerminalSession(
            dependencies: dependencies, theme: theme, background: background, typeahead: backgroundQuestion?.typedMeanwhile ?? [],
            environment: environment, mouse: configuration.mouse ?? true
        ) { logger.info("\($0)") }
        let ending: TerminalSession.Ending
        do {
            ending = try await session.run()
        } catch {
            logger.error("terminal failed: \(error)")
            complain("\(error)")
            throw ExitCodes.noTerminal
        }
        await mailer?.stop()
        await payments.close()
        if ending != .quit { throw ExitCode(ending.rawValue) }
    }

    private func openLog(in directory: FilePath, level: Logger.Level) throws -> (Logger, FileLogHandler.Sink) {
        let url = directory.fileURL
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let (sink, factory) = try FileLogHandler.open(url.appendingPathComponent("storefront.log"), level: level)
            return (Logger(label: "storefront", factory: factory), sink)
        } catch {
            complain("cannot write to the data directory \(directory): \(error.localizedDescription)")
            throw ExitCodes.cannotCreate
        }
    }

    /// `--record`: this very command, without `--record`, in a pty between this terminal and the
    /// shop, recorded; exits as the shop did.
    @MainActor
    private func recordSession(to path: FilePath) throws {
        let url = try writingRecording { () throws(RecordingFileError) in try RecordingFile.checked(path, force: force) }
        do {
            try TerminalSession.checkTerminal(environment: ProcessInfo.processInfo.environment)
        } catch {
            complain("\(error)")
            throw ExitCodes.noTerminal
        }
        var arguments = Array(CommandLine.arguments.dropFirst())
        // Drop --record and its value (as "--record F" or "--record=F"); the session is told to mark its forms.
        if let index = arguments.firstIndex(of: "--record"), index + 1 < arguments.count {
            arguments.removeSubrange(index...(index + 1))
        }
        arguments.removeAll { $0.hasPrefix("--record=") || $0 == "--force" }
        if arguments.first != "run" { arguments.insert("run", at: 0) }
        var environment = ProcessInfo.processInfo.environment
        environment[TerminalSession.privateMarkersVariable] = "1"
        let recording = LiveRecording(
            executable: thisExecutable(),
            arguments: arguments, environment: environment
        )
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
        if result.termination.shellStatus != 0 { throw ExitCode(result.termination.shellStatus) }
    }
}

/// How the shop or the console uses the terminal, and what it logs: the options `run` and `admin` share.
struct TerminalOptions: ParsableArguments {
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical. Env: STOREFRONT_LOG_LEVEL.", valueName: "level"))
    var logLevel: Logger.Level?

    @Option(
        help: ArgumentHelp(
            "auto (asks the terminal for its background), dark, light or mono (NO_COLOR also selects mono). Env: STOREFRONT_THEME.",
            valueName: "theme"))
    var theme: ThemePreference?

    @Option(
        help: ArgumentHelp(
            "on or off: clicks and the wheel (default on; off leaves the terminal's own selection). Env: STOREFRONT_MOUSE.", valueName: "on|off"),
        transform: Arguments.onOff("--mouse"))
    var mouse: Bool?
}
