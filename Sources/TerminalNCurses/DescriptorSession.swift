import Dispatch
import Foundation
import LiveObjects
import StorefrontCore
import StorefrontUI

/// Runs the shop for one shopper on a pty's terminal side inside a worker process that hosts many: the same program
/// loop and events as `TerminalSession`, on a `DescriptorScreen`; the worker's server, not a signal, says when the
/// window changed or the session must end.
///
/// Order of calls: `init` (checks the terminal, enters the shop's screen) → `run` → `windowChanged` / `end` meanwhile
/// → `run` returns once the shopper quits or the session is ended, the terminal restored.
@MainActor
public final class DescriptorSession {
    private let screen: DescriptorScreen
    private let events: TerminalEvents
    private let log: (String) -> Void

    /// Throws `TerminalError` before writing anything when the shop cannot draw on this terminal by its own bytes.
    public init(
        dependencies: StorefrontDependencies, descriptor: Int32, theme: ThemePreference, background: Background? = nil, typeahead: [UInt8] = [],
        environment: [String: String], mouse: Bool = true, crashKey: Character? = nil, log: @escaping (String) -> Void = { _ in }
    ) throws {
        let screen = try DescriptorScreen(
            descriptor: descriptor, environment: environment, theme: theme, background: background ?? .dark, mouse: mouse, typeahead: typeahead)
        let backend = ScreenBackend(screen: screen, environment: environment)
        events = TerminalEvents(
            screen: screen, closeBackend: { backend.isOpen = false }, program: Program(dependencies: dependencies, backend: backend),
            hasTypeahead: !typeahead.isEmpty, keySource: .descriptor(descriptor),
            marks: SessionMarks(environment), learn: { backend.learn($0, log: log) })
        // Over SSH the client's environment stays on the client: the terminal is asked what it draws, and its answer
        // comes among the keys, while the first frame is already on screen with a mosaic.
        backend.ask(screen, environment: environment)
        if let crashKey {
            // The fault a test injects to see a worker's crash contained: never set unless its variable is.
            events.inspectKey = { key in if key == .character(crashKey) { fatalError("the crash key was pressed") } }
        }
        self.screen = screen
        self.log = log
        log("screen \(screen.size), charset \(screen.charset), colours \(screen.colorMode), in a worker")
        log("pictures \(backend.pictures.rawValue)")
    }

    /// Whether a session with `environment` can be drawn by the shop's own bytes in every colour mode its terminal type
    /// may be given; where not, its server gives it a process of its own, where curses draws.
    public static func drawsByBytes(environment: [String: String]) -> Bool {
        guard case .success(let type) = TerminalTypes.type(environment["TERM"] ?? "") else { return false }
        let modes: [ColorMode] =
            type.colors >= 256 ? [.monochrome, .color256, .color256Light] : type.colors > 0 ? [.monochrome, .color8, .color8Light] : [.monochrome]
        return modes.allSatisfy { type.dialects[$0] != nil }
    }

    /// Runs until the shopper quits or `end` is called; the terminal is restored either way.
    public func run() async throws -> TerminalSession.Ending {
        defer { screen.restore() }
        let ending = try await events.run()
        await events.finish()
        log("session ended: \(ending)")
        return ending
    }

    /// The window changed size.
    public func windowChanged() { events.windowChanged() }

    /// Ends the session as the server asks (a hangup, a shutdown's drain).
    public func end(_ ending: TerminalSession.Ending) { events.end(ending) }
}

extension DescriptorSession: LiveObject {}
