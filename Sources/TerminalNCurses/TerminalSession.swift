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
    public enum Ending: Int32, Sendable {
        case quit = 0
        case hangup = 129
        case interrupted = 130
        case terminated = 143
    }

    private let dependencies: StorefrontDependencies
    private let theme: ThemePreference
    private let environment: [String: String]
    private let log: (String) -> Void
    private var screen: NCursesScreen!
    private var viewModel: StorefrontViewModel!
    private let keys = KeyQueue()
    private var needsDraw = false
    private var drawScheduled = false
    private var finish: CheckedContinuation<Ending, Never>?
    private var sources: [any DispatchSourceProtocol] = []
    private var ticker: (any DispatchSourceTimer)?
    private var isTicking = false

    public init(dependencies: StorefrontDependencies, theme: ThemePreference, environment: [String: String], log: @escaping (String) -> Void = { _ in }) {
        self.dependencies = dependencies
        self.theme = theme
        self.environment = environment
        self.log = log
    }

    /// Checks that stdin and stdout are a usable terminal, without drawing anything.
    public static func checkTerminal(environment: [String: String]) throws {
        try NCursesScreen.checkTerminal(environment: environment)
    }

    /// Opens the screen, runs until the shop ends, and always restores the terminal.
    public func run() async throws -> Ending {
        screen = try NCursesScreen(theme: theme, environment: environment)
        defer { screen.restore() }
        log("screen \(screen.size), charset \(screen.charset), colours \(screen.colorMode)")
        viewModel = StorefrontViewModel(dependencies: dependencies) { [weak self] _ in self?.stateChanged() }
        viewModel.send(.viewportChanged(listRows: Layout.listRows(for: screen.size)))
        draw()
        try listen()
        let ending = await withCheckedContinuation { finish = $0 }
        for source in sources { source.cancel() }
        ticker?.cancel()
        log("session ended: \(ending)")
        return ending
    }

    private func listen() throws {
        let input = DispatchSource.makeReadSource(fileDescriptor: 0, queue: .main)
        input.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.inputReady(bytesAvailable: Int(input.data)) }
        }
        input.resume()
        sources.append(input)

        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw TerminalError.startFailed("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        for signal in [SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            _ = sf_forward_signal_to_pipe(signal, fds[1])
        }
        let signals = DispatchSource.makeReadSource(fileDescriptor: fds[0], queue: .main)
        let readEnd = fds[0]
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
        updateTicker()
    }

    private func inputReady(bytesAvailable: Int) {
        let inputs = screen.readKeys()
        if inputs.isEmpty && bytesAvailable == 0 {
            // Readable with nothing to read: the terminal went away.
            end(.hangup)
            return
        }
        for input in inputs {
            switch input {
            case .key(let key):
                keys.enqueue(key, into: viewModel)
            case .interrupt:
                end(.interrupted)
                return
            case .redraw:
                screen.invalidate()
                needsDraw = true
            case .resize:
                resized()
            }
            if viewModel.state.isQuitting {
                end(.quit)
                return
            }
        }
        drawIfNeeded()
    }

    private func signalsArrived(_ numbers: [Int32]) {
        for number in numbers {
            switch number {
            case SIGWINCH: resized()
            case SIGTERM: end(.terminated); return
            case SIGHUP: end(.hangup); return
            case SIGINT, SIGQUIT: end(.interrupted); return
            default: break
            }
        }
        drawIfNeeded()
    }

    private func resized() {
        let size = screen.adoptTerminalSize()
        viewModel.send(.viewportChanged(listRows: Layout.listRows(for: size)))
        needsDraw = true
    }

    private func tick() {
        guard viewModel.state.isBusy else { return }
        viewModel.send(.tick)
        drawIfNeeded()
    }

    /// A state arrived (from a key or an effect): draw once, after whatever else is queued now.
    private func stateChanged() {
        needsDraw = true
        updateTicker()
        guard !drawScheduled else { return }
        drawScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.drawScheduled = false
                // Keys that waited on an effect are handled now, against the state it produced.
                self.keys.drain(into: self.viewModel)
                if self.viewModel.state.isQuitting { self.end(.quit); return }
                self.drawIfNeeded()
            }
        }
    }

    /// Ticks only while something is in progress, so an idle shop writes nothing.
    private func updateTicker() {
        guard let ticker else { return }
        let busy = viewModel?.state.isBusy ?? false
        if busy && !isTicking { ticker.resume(); isTicking = true }
        if !busy && isTicking { ticker.suspend(); isTicking = false }
    }

    private func drawIfNeeded() {
        guard needsDraw, finish != nil else { return }
        draw()
    }

    private func draw() {
        needsDraw = false
        screen.draw(layout(viewModel.state, screen.size, charset: screen.charset))
    }

    private func end(_ ending: Ending) {
        guard let finish else { return }
        self.finish = nil
        // A suspended dispatch source must be resumed before it is cancelled and released.
        if !isTicking { ticker?.resume(); isTicking = true }
        screen.restore()
        finish.resume(returning: ending)
    }
}
