import CNCurses
import Dispatch
import Foundation
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
    private let log: (String) -> Void

    /// `mouse`: clicks and the wheel work (the default); off, the terminal keeps its own selection.
    /// `background` answers `--theme auto`: the terminal's, found by `BackgroundProbe`, or dark when it did not say.
    /// `typeahead`: keys typed before the screen opened that the probe read (`Question.typedMeanwhile`), the first keys.
    public init(
        dependencies: StorefrontDependencies, theme: ThemePreference, background: Background? = nil, typeahead: [UInt8] = [],
        environment: [String: String], mouse: Bool = true, log: @escaping (String) -> Void = { _ in }
    ) {
        self.typeahead = typeahead
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
        let backend = NCursesBackend(screen: screen)
        let events = TerminalEvents(
            screen: screen, backend: backend, program: Program(dependencies: dependencies, backend: backend), hasTypeahead: !typeahead.isEmpty,
            signalPipe: signalPipe,
            marksSettled: environment[Self.settledMarkerVariable] != nil,
            marksPrivate: environment[Self.privateMarkersVariable] != nil
        )
        let ending = try await events.run()
        await events.finish()
        log("session ended: \(ending)")
        return ending
    }
}

/// The events of one running session: keys on stdin, signals forwarded through a pipe, and timer
/// ticks while a payment is in progress, all on the main queue, fed to the program loop.
@MainActor
private final class TerminalEvents {
    private let screen: NCursesScreen
    private let backend: NCursesBackend
    private let program: Program
    private var finish: CheckedContinuation<TerminalSession.Ending, Never>?
    private var sources: [any DispatchSourceProtocol] = []
    private var ticker: (any DispatchSourceTimer)?
    private var keyWaiter: KeyWaiter?
    private var isTicking = false
    private let marksSettled: Bool
    private let marksPrivate: Bool
    private var inPrivate = false

    /// Keys typed before the screen opened were handed back to curses (`NCursesScreen`), where no poll of stdin sees them.
    private let hasTypeahead: Bool

    /// Where the signals the session handles arrive, forwarded since before curses started.
    private let signalPipe: (read: Int32, write: Int32)

    init(
        screen: NCursesScreen, backend: NCursesBackend, program: Program, hasTypeahead: Bool, signalPipe: (read: Int32, write: Int32),
        marksSettled: Bool, marksPrivate: Bool
    ) {
        self.screen = screen
        self.hasTypeahead = hasTypeahead
        self.signalPipe = signalPipe
        self.backend = backend
        self.program = program
        self.marksSettled = marksSettled
        self.marksPrivate = marksPrivate
    }

    /// For a recorder: a form about to be drawn opens a private section; one closed ends it and
    /// repaints the whole screen, since the recording missed what the form drew over.
    private func markPrivacy(_ state: StorefrontState) {
        guard marksPrivate, (state.form != nil) != inPrivate else { return }
        inPrivate = state.form != nil
        writeAll(inPrivate ? TerminalSession.privateBegins : TerminalSession.privateEnds, to: STDOUT_FILENO)
        if !inPrivate {
            screen.invalidate()
            program.setNeedsDraw()
        }
    }

    /// For a recorder: once the effects of what was just handled have settled and been drawn, the marker.
    private func markWhenSettled() {
        guard marksSettled else { return }
        Task { @MainActor [program] in
            await program.viewModel.settled()
            program.drawIfNeeded()
            writeAll(TerminalSession.settledMarker, to: STDOUT_FILENO)
        }
    }

    /// After the screen is given back: the cart's last write is waited for, so no change is lost.
    func finish() async {
        await program.viewModel.finish()
    }

    func run() async throws -> TerminalSession.Ending {
        program.onStateChange = { [weak self] state in
            self?.updateTicker(busy: state.wantsTicks)
            self?.markPrivacy(state)
        }
        program.onBurstHandled = { [weak self] state in
            if state.isQuitting { self?.end(.quit) }
        }
        program.draw()
        try listen()
        if hasTypeahead { inputReady(bytesAvailable: 1) }
        markWhenSettled()
        let ending = await withCheckedContinuation { finish = $0 }
        for source in sources { source.cancel() }
        keyWaiter?.stop()
        ticker?.cancel()
        return ending
    }

    private func listen() throws {
        let keys = try KeyWaiter { [weak self] bytesAvailable in self?.inputReady(bytesAvailable: bytesAvailable) }
        keys.start()
        keyWaiter = keys

        let signals = DispatchSource.makeReadSource(fileDescriptor: signalPipe.read, queue: .main)
        let readEnd = signalPipe.read
        signals.setEventHandler { [weak self] in
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = read(readEnd, &bytes, bytes.count)
            guard count > 0 else { return }
            MainActor.assumeIsolated { self?.signalsArrived(bytes.prefix(count).map(Int32.init)) }
        }
        signals.resume()
        sources.append(signals)

        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.tick() }
        }
        ticker = timer
        updateTicker(busy: program.state.wantsTicks)
    }

    private func inputReady(bytesAvailable: Int) {
        let inputs = screen.readKeys()
        if inputs.isEmpty && bytesAvailable == 0 {
            // Readable with nothing to read: the terminal went away.
            end(.hangup)
            return
        }
        // One pass for the burst: its frame is drawn below, so no later pass is scheduled for it.
        var ending: TerminalSession.Ending?
        program.handlingInput { ending = handle(inputs) }
        if let ending {
            end(ending)
            return
        }
        program.drawIfNeeded()
        markWhenSettled()
    }

    /// Sends each input to the program; the ending one of them asks for, if any, leaving the rest.
    private func handle(_ inputs: [NCursesScreen.Input]) -> TerminalSession.Ending? {
        var keys: [Key] = []
        for (index, input) in inputs.enumerated() {
            if case .key(let key) = input {
                // Keys in a row go to the program together, so a paste is handled as one text.
                keys.append(key)
                if index + 1 < inputs.count, case .key = inputs[index + 1] { continue }
                program.enqueue(contentsOf: keys)
                keys.removeAll(keepingCapacity: true)
                if program.state.isQuitting { return .quit }
                continue
            }
            switch input {
            case .key:
                break
            case .click(let column, let row):
                program.click(column: column, row: row)
            case .wheel(let down):
                program.wheel(down: down)
            case .interrupt:
                return .interrupted
            case .redraw:
                screen.invalidate()
                program.setNeedsDraw()
            case .resize:
                resized()
            }
            if program.state.isQuitting { return .quit }
        }
        return nil
    }

    private func signalsArrived(_ numbers: [Int32]) {
        for number in numbers {
            switch number {
            case SIGWINCH: resized()
            case SIGTERM:
                end(.terminated)
                return
            case SIGHUP:
                end(.hangup)
                return
            case SIGINT, SIGQUIT:
                end(.interrupted)
                return
            default: break
            }
        }
        program.drawIfNeeded()
    }

    private func resized() {
        _ = screen.adoptTerminalSize()
        program.resized()
    }

    private func tick() {
        guard program.state.wantsTicks else { return }
        program.viewModel.send(.tick)
        program.drawIfNeeded()
    }

    /// Ticks only while something is in progress or the database is being waited for, so an idle shop writes nothing.
    private func updateTicker(busy: Bool) {
        // A recording has no timer: a spinner turned by the clock would make each take differ.
        // Once the session has ended (`finish` taken), the ticker is resumed for good: states published after it
        // (the cart's last write answering) must not suspend it, as a source released suspended crashes libdispatch.
        guard let ticker, !marksSettled, finish != nil else { return }
        if busy && !isTicking {
            ticker.resume()
            isTicking = true
        }
        if !busy && isTicking {
            ticker.suspend()
            isTicking = false
        }
    }

    private func end(_ ending: TerminalSession.Ending) {
        guard let finish else { return }
        self.finish = nil
        backend.isOpen = false
        keyWaiter?.stop()
        // A suspended dispatch source must be resumed before it is cancelled and released.
        if !isTicking {
            ticker?.resume()
            isTicking = true
        }
        screen.restore()
        finish.resume(returning: ending)
    }
}
