import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopRecording
import StorefrontCore
import StorefrontUI
import SystemPackage
import TerminalNCurses

/// `storefront headless`: a key script run without a terminal, its frames printed as text, or recorded as a cast.
public enum HeadlessShop {
    /// How the frames are drawn and printed.
    public struct Drawing: Sendable {
        public var size: Size
        public var ascii: Bool
        public var everyFrame: Bool
        public init(size: Size, ascii: Bool, everyFrame: Bool) {
            self.size = size
            self.ascii = ascii
            self.everyFrame = everyFrame
        }
    }

    /// Runs `script` on the shop (or the console) in memory and prints the last frame, or every frame.
    @MainActor
    public static func run(_ script: [Key], console: Console, drawing: Drawing, configuration: ShopConfiguration, migrate: Bool) async throws {
        let environment = ProcessInfo.processInfo.environment
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: configuration.dataDirectory(environment: environment), pool: .session, migrate: migrate,
            environment: environment)
        let composed: (dependencies: StorefrontDependencies, settlement: StartSettlement, payments: PaymentStack)
        do throws(ServiceStartFailure) {
            composed = try await SessionComposition.dependencies(
                storage: storage, configuration: configuration, environment: environment, clock: ContinuousClock(), latency: .zero, console: console)
        } catch { throw error.told() }
        var printed = 0
        let backend = HeadlessBackend(size: drawing.size, charset: drawing.ascii ? .ascii : .unicode) { _, frame in
            guard drawing.everyFrame else { return }
            printed += 1
            print("--- frame \(printed) ---")
            print(frame.plainText)
        }
        let driver = Program(dependencies: composed.dependencies, backend: backend)
        // The first products are read before the first key, as a shopper would wait to see them.
        await driver.settle()
        for key in script {
            await driver.press(key)
            if driver.state.isQuitting { break }
        }
        if !drawing.everyFrame { print(driver.frame.plainText) }
        await composed.payments.close()
    }

    /// `--cast`: this binary's `run` in a pty, with the same shop, recorded; exits as the shop did.
    ///
    /// The file is played on someone else's xterm-256color: in the theme asked for (never probed), whatever this
    /// terminal's NO_COLOR says, so the same script always gives the same file.
    public static func recordCast(
        _ script: [CastRecording.Step], to path: FilePath, force: Bool, theme: ThemePreference, pace: Duration, drawing: Drawing,
        configuration given: ShopConfiguration, migrate: Bool
    ) throws {
        let url = try writingRecording { () throws(RecordingFileError) in try RecordingFile.checked(path, force: force) }
        var configuration = given
        configuration.sandboxLatencyMilliseconds = 0
        configuration.theme = theme == .auto ? "dark" : theme.rawValue
        var environment = ProcessInfo.processInfo.environment
        // The recorded shop gets this command's configuration whole, as a server's sessions do.
        environment[SessionSettings.variable] = SessionSettings(configuration: configuration, migrates: migrate).encoded()
        environment["TERM"] = "xterm-256color"
        let locale = drawing.ascii ? "C" : "C.UTF-8"
        environment["LANG"] = locale
        environment["LC_ALL"] = locale
        for name in ["COLUMNS", "LINES", "NO_COLOR"] { environment[name] = nil }
        environment[TerminalSession.settledMarkerVariable] = "1"
        environment[TerminalSession.privateMarkersVariable] = "1"
        let recording = CastRecording(executable: thisExecutable(), arguments: ["run"], environment: environment, size: drawing.size, pace: pace)
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
                events, size: drawing.size, term: environment["TERM"] ?? "xterm-256color", title: "storefront headless", to: url, force: force)
        }
        let seconds = events.last.map { String(format: "%.1f", $0.time) } ?? "0"
        print("wrote \(path): \(script.count) keys, \(events.count) frames, \(seconds) s")
        if termination.shellStatus != 0 { throw CommandExit(termination.shellStatus) }
    }
}
