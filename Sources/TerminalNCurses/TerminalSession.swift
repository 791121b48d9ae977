import CNCurses
import Dispatch
import Foundation
import LiveObjects
import StorefrontCore
import StorefrontUI

/// Runs the shop in the process's terminal until the shopper quits or a signal ends it.
///
/// One thread, the main one, owns curses. Its events are keys on stdin, signals (SIGWINCH,
/// SIGTERM, SIGHUP, SIGINT) forwarded through a pipe, effect results (main-actor tasks) and
/// timer ticks while a payment is in progress. Keys that arrive together are handled
/// together and drawn as one frame.
@MainActor
public final class TerminalSession {
    /// How the session ended, as a process exit status.
    public enum Ending: Int32, Sendable, CustomStringConvertible {
        case quit = 0
        case hangup = 129
        case interrupted = 130
        case terminated = 143

        public var description: String {
            switch self {
            case .quit: "quit"
            case .hangup: "hangup"
            case .interrupted: "interrupted"
            case .terminated: "terminated"
            }
        }
    }

    private let dependencies: StorefrontDependencies
    private let theme: ThemePreference
    private let background: Background
    private let environment: [String: String]
    private let mouse: Bool
    private let typeahead: [UInt8]
    private let deviceAttributes: [Int]
    private let log: (String) -> Void

    /// `mouse`: clicks and the wheel work (the default); off, the terminal keeps its own selection.
    /// `background` answers `--theme auto`: the terminal's, found by `BackgroundProbe`, or dark when it did not say.
    /// `typeahead`: keys typed before the screen opened that the probe read (`Question.typedMeanwhile`), the first keys.
    /// `deviceAttributes`: what the terminal answered DA1 (`Question.deviceAttributes`): 4 is sixel.
    public init(
        dependencies: StorefrontDependencies, theme: ThemePreference, background: Background? = nil, typeahead: [UInt8] = [],
        deviceAttributes: [Int] = [], environment: [String: String], mouse: Bool = true, log: @escaping (String) -> Void = { _ in }
    ) {
        self.typeahead = typeahead
        self.deviceAttributes = deviceAttributes
        self.dependencies = dependencies
        self.theme = theme
        self.background = background ?? .dark
        self.environment = environment
        self.mouse = mouse
        self.log = log
    }

    /// Set (to any value) by a recorder: once every key's effects have settled and the frame is
    /// drawn, the session writes `settledMarker`, a private OSC sequence terminals ignore, so the
    /// recorder knows an answer is whole without guessing from quiet time.
    public nonisolated static let settledMarkerVariable = "STOREFRONT_SETTLED_MARKER"
    public nonisolated static let settledMarker = "\u{1B}]7766;storefront-settled\u{07}"
    /// Set by the web front for a session started with its page: once the first screen is whole (the start's reads
    /// answered, the pictures it shows drawn), the session writes `firstScreenMarker`, once, so the page goes with that
    /// screen at once instead of after a quiet spell. Keys and ticks go on as in any session.
    public nonisolated static let firstScreenMarkerVariable = "STOREFRONT_FIRST_SCREEN_MARKER"
    public nonisolated static let firstScreenMarker = "\u{1B}]7766;storefront-first-screen\u{07}"
    /// Set by `run --record`: the session brackets every form (card numbers, codes, addresses)
    /// with these markers, and repaints the whole screen after one, so a recorder can leave the
    /// form out and still show a true screen after it.
    public nonisolated static let privateMarkersVariable = "STOREFRONT_PRIVATE_MARKERS"
    public nonisolated static let privateBegins = "\u{1B}]7766;storefront-private-begin\u{07}"
    public nonisolated static let privateEnds = "\u{1B}]7766;storefront-private-end\u{07}"

    /// Checks that stdin and stdout are a usable terminal, without drawing anything.
    public static func checkTerminal(environment: [String: String]) throws {
        try NCursesScreen.checkTerminal(environment: environment)
    }

    /// Opens the screen, runs until the shop ends, and always restores the terminal.
    public func run() async throws -> Ending {
        // Ours first: curses installs handlers only where none is set, and its SIGWINCH one sized its screens to the pty (8.7 GB at 10000x10000).
        let signalPipe = try makePipe(nonBlocking: true)
        for signal in [SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            _ = sf_forward_signal_to_pipe(signal, signalPipe.write)
        }
        let screen = try NCursesScreen(theme: theme, environment: environment, mouse: mouse, background: background, typeahead: typeahead)
        defer { screen.restore() }
        // Each type here describes itself (`CustomStringConvertible`): interpolating one that does not has the runtime
        // look its conformances up by scanning every conformance record of the binary, about a millisecond of every
        // start (docs/BENCHMARKS.md, "Why some code is shaped as it is").
        log("screen \(screen.size), charset \(screen.charset), colours \(screen.colorMode)")
        let backend = ScreenBackend(screen: screen, environment: environment, deviceAttributes: deviceAttributes)
        log("pictures \(backend.pictures.rawValue)")
        let events = TerminalEvents(
            screen: screen, closeBackend: { backend.isOpen = false }, program: Program(dependencies: dependencies, backend: backend),
            hasTypeahead: !typeahead.isEmpty, keySource: .ownTerminal(signalPipe: signalPipe),
            marks: SessionMarks(environment), learn: { [log] in backend.learn($0, log: log) }
        )
        // Not asked with the background (no `--theme auto`): asked now, the answer read among the keys.
        if deviceAttributes.isEmpty { backend.ask(screen, environment: environment) }
        let ending = try await events.run()
        await events.finish()
        log("session ended: \(ending)")
        return ending
    }
}

extension TerminalSession: LiveObject {}
