import ArgumentParser
import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopRecording
import StorefrontCore
import StorefrontUI
import SystemPackage
import TerminalNCurses

/// `storefront headless`: runs a key script without a terminal and prints frames as text.
struct Headless: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headless",
        abstract: "Run a key script without a terminal and print the final frame as text.",
        discussion: """
            Key names: up, down, left, right, enter, esc, tab, backspace, pgup, pgdn, home, end, space,
            comma, or any single character. Frames are printed once every effect has settled.
            """
    )

    @Option(help: ArgumentHelp("Terminal size as COLUMNSxROWS (default: 80x24).", valueName: "size"), transform: Arguments.size)
    var size = Size(columns: 80, rows: 24)

    @Option(help: ArgumentHelp("Comma-separated keys, e.g. \"enter,a,c,enter,p,enter\".", valueName: "keys"))
    var keys: String = ""

    @Flag(help: "Print every frame, not only the last.")
    var frames = false

    @Flag(help: "Draw with ASCII only, as on a terminal whose locale is not UTF-8.")
    var ascii = false

    @Flag(help: "Run the merchant console (storefront admin) instead of the shop.")
    var admin = false

    @Option(
        help: ArgumentHelp(
            "Write the session as an asciicast v2 file (asciinema plays it): the shop runs in a pty, so the file holds what a terminal receives.",
            valueName: "file.cast"))
    var cast: FilePath?

    @Flag(help: "With --cast: replace the file if it exists.")
    var force = false

    @Option(
        help: ArgumentHelp("With --cast: dark (default), light or mono; the file is the same on every terminal it is played on.", valueName: "theme"))
    var theme: ThemePreference = .dark

    @Option(
        help: ArgumentHelp("With --cast: the time between keys, e.g. 400ms or 1s (default 400ms).", valueName: "duration"), transform: Arguments.pace)
    var pace = Duration.milliseconds(400)

    @OptionGroup var shop: ShopOptions

    func validate() throws {
        do {
            // A recording can click and turn the wheel too: it has a terminal to send them to.
            if cast != nil { _ = try CastRecording.steps(keys) } else { _ = try Key.script(keys) }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    @MainActor
    func run() async throws {
        if let cast { return try recordCast(try CastRecording.steps(keys), to: cast) }
        let script = try Key.script(keys)
        let configuration = try shop.configuration(environment: ProcessInfo.processInfo.environment)
        let environment = ProcessInfo.processInfo.environment
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: configuration.dataDirectory(environment: environment), pool: .session,
            migrate: !shop.noMigrate, environment: environment)
        let console: Console = admin ? .merchant(name: Admin.merchantName(environment: environment)) : .shop
        let composed: (dependencies: StorefrontDependencies, settlement: StartSettlement, payments: PaymentStack)
        do {
            composed = try await SessionComposition.dependencies(
                storage: storage, configuration: configuration, environment: environment, clock: ContinuousClock(), latency: .zero, console: console)
        } catch { throw error.told() }
        let (dependencies, payments) = (composed.dependencies, composed.payments)
        var printed = 0
        let printsEveryFrame = frames
        let backend = HeadlessBackend(size: size, charset: ascii ? .ascii : .unicode) { _, frame in
            guard printsEveryFrame else { return }
            printed += 1
            print("--- frame \(printed) ---")
            print(frame.plainText)
        }
        let driver = Program(dependencies: dependencies, backend: backend)
        // The first products are read before the first key, as a shopper would wait to see them.
        await driver.settle()
        for key in script {
            await driver.press(key)
            if driver.state.isQuitting { break }
        }
        if !frames { print(driver.frame.plainText) }
        await payments.close()
    }

    /// `--cast`: this binary's `run` in a pty, with the same shop, recorded; exits as the shop did.
    private func recordCast(_ script: [CastRecording.Step], to path: FilePath) throws {
        let url = try writingRecording { () throws(RecordingFileError) in try RecordingFile.checked(path, force: force) }
        // The file is played on someone else's xterm-256color: in the theme asked for (never probed), whatever this
        // terminal's NO_COLOR says, so the same script always gives the same file.
        var configuration = try shop.configuration(environment: ProcessInfo.processInfo.environment)
        configuration.sandboxLatencyMilliseconds = 0
        configuration.theme = theme == .auto ? "dark" : theme.rawValue
        var environment = ProcessInfo.processInfo.environment
        // The recorded shop gets this command's configuration whole, as a server's sessions do.
        environment[SessionSettings.variable] = SessionSettings(configuration: configuration, migrates: !shop.noMigrate).encoded()
        environment["TERM"] = "xterm-256color"
        let locale = ascii ? "C" : "C.UTF-8"
        environment["LANG"] = locale
        environment["LC_ALL"] = locale
        for name in ["COLUMNS", "LINES", "NO_COLOR"] { environment[name] = nil }
        environment[TerminalSession.settledMarkerVariable] = "1"
        environment[TerminalSession.privateMarkersVariable] = "1"
        let recording = CastRecording(
            executable: thisExecutable(),
            arguments: ["run"], environment: environment, size: size, pace: pace
        )
        let events: [CastRecording.Event]
        let termination: ProcessTermination
        do {
            (events, termination) = try recording.record(script)
        } catch {
            complain("cannot record \(path): \(error)")
            throw ExitCodes.ioError
        }
        try writingRecording { () throws(RecordingFileError) in
            try RecordingFile.write(
                events, size: size, term: environment["TERM"] ?? "xterm-256color", title: "storefront headless", to: url, force: force)
        }
        let seconds = events.last.map { String(format: "%.1f", $0.time) } ?? "0"
        print("wrote \(path): \(script.count) keys, \(events.count) frames, \(seconds) s")
        if termination.shellStatus != 0 { throw ExitCode(termination.shellStatus) }
    }
}

/// Runs `write`; a recording's file that cannot be written is told on stderr and ends the command with 73.
func writingRecording<T>(_ write: () throws(RecordingFileError) -> T) throws -> T {
    do {
        return try write()
    } catch {
        complain(error.description)
        throw ExitCodes.cannotCreate
    }
}
