import CNCurses
import Dispatch
import Foundation
import LiveObjects
import ShopMetrics
import StorefrontCore
import StorefrontUI

/// Where a session's keys come from.
enum KeySource {
    /// The process's own stdin, waited on by a thread of its own (`KeyWaiter`), with signals through `signalPipe`.
    case ownTerminal(signalPipe: (read: Int32, write: Int32))
    /// A descriptor among a worker's many, all waited on by one thread (`DescriptorKeys`); the worker's server says
    /// when the window changed or the session must end (`TerminalEvents.windowChanged`, `end`).
    case descriptor(Int32)
}

/// The events of one running session: keys, signals (or the worker's messages), and timer
/// ticks while a payment is in progress, all on the main queue, fed to the program loop.
@MainActor
final class TerminalEvents {
    private let screen: any SessionScreen
    private let closeBackend: () -> Void
    /// Hands the backend an answer the terminal gave; true when it draws pictures another way from now on.
    private let learn: (TerminalAnswer) -> Bool
    private let program: Program
    private var finish: CheckedContinuation<TerminalSession.Ending, Never>? {
        didSet { isWaitingForEnd = finish != nil }
    }
    /// `finish != nil`, kept as it changes: the ticker asks at every state, and the comparison copied the continuation.
    private var isWaitingForEnd = false
    private var sources: [any DispatchSourceProtocol] = []
    private var ticker: (any DispatchSourceTimer)?
    private var keyWaiter: KeyWaiter?
    /// Looked up once: every key records it.
    private lazy var keyToFrame = Timing(ShopMetrics.keyToFrame, [("front", ShopMetrics.front)])
    /// A worker's session: its descriptor among those the worker's one waiter watches.
    private var keyWatch: DescriptorKeys.Watch?
    private var isTicking = false
    private let marks: SessionMarks
    private var inPrivate = false
    /// Set once `end` has run: no key or window change is handled after.
    private var hasEnded = false
    /// The end asked for before `run` waited for one.
    private var pendingEnding: TerminalSession.Ending?

    /// Keys typed before the screen opened were handed back to curses (`NCursesScreen`), where no poll of stdin sees them.
    private let hasTypeahead: Bool

    private let keySource: KeySource
    /// Called with each key before the program gets it: the fault a test injects (`WorkerFaults`), nil otherwise.
    var inspectKey: ((Key) -> Void)?

    init(
        screen: any SessionScreen, closeBackend: @escaping () -> Void, program: Program, hasTypeahead: Bool, keySource: KeySource,
        marks: SessionMarks, learn: @escaping (TerminalAnswer) -> Bool = { _ in false }
    ) {
        self.learn = learn
        self.screen = screen
        self.hasTypeahead = hasTypeahead
        self.keySource = keySource
        self.closeBackend = closeBackend
        self.program = program
        self.marks = marks
    }

    /// For a recorder: a form about to be drawn opens a private section; one closed ends it and
    /// repaints the whole screen, since the recording missed what the form drew over.
    private func markPrivacy(_ state: StorefrontState) {
        guard marks.privateForms, (state.form != nil) != inPrivate else { return }
        inPrivate = state.form != nil
        screen.write(inPrivate ? TerminalSession.privateBegins : TerminalSession.privateEnds)
        if !inPrivate {
            screen.invalidate()
            program.setNeedsDraw()
        }
    }

    private func markWhenSettled() {
        if marks.settled { marks.write(TerminalSession.settledMarker, whenSettled: program, on: screen, allPictures: true) }
    }

    private func markFirstScreen() {
        guard marks.firstScreen else { return }
        // Its cells too, for the page that waits for this mark to draw them as HTML.
        marks.write(TerminalSession.firstScreenMarker, whenSettled: program, on: screen, allPictures: false) { [screen] frame in
            FirstScreenCells.sequence(of: frame, colorMode: screen.colorMode)
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
        markFirstScreen()
        let ending = await withCheckedContinuation { continuation in
            finish = continuation
            // An end asked for before this wait began (a quit typed ahead, a worker's hang-up) ends it at once.
            if let pendingEnding { end(pendingEnding) }
        }
        for source in sources { source.cancel() }
        sources.removeAll()
        if let keyWatch { DescriptorKeys.shared.stopWatching(keyWatch) }
        keyWaiter?.stop()
        ticker?.cancel()
        return ending
    }

    private func listen() throws {
        switch keySource {
        case .ownTerminal(let signalPipe):
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
        case .descriptor(let descriptor):
            keyWatch = DescriptorKeys.shared.watch(descriptor) { [weak self] available in self?.inputReady(bytesAvailable: available) }
            guard keyWatch != nil else { throw TerminalError.startFailed("cannot wait for keys: \(String(cString: strerror(errno)))") }
        }

        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.tick() }
        }
        ticker = timer
        updateTicker(busy: program.state.wantsTicks)
    }

    private func inputReady(bytesAvailable: Int, flushing: Bool = false) {
        // Not `finish`: keys typed ahead are read before `run` starts waiting for the end.
        guard !hasEnded else { return }
        let arrived = ContinuousClock.now
        let inputs = flushing ? screen.flushKeys() : screen.readKeys()
        if screen.isGone || (!flushing && inputs.isEmpty && bytesAvailable == 0) {
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
        // From the keys read to their frame written: what the shopper waits for at every key.
        keyToFrame.record(ContinuousClock.now - arrived)
        markWhenSettled()
        if screen.waitsForEscape {
            // A lone ESC, or a sequence cut by the read: what has not followed within curses' escape delay was typed.
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(25)) { [weak self] in
                MainActor.assumeIsolated {
                    guard let self, self.screen.waitsForEscape else { return }
                    self.inputReady(bytesAvailable: 1, flushing: true)
                }
            }
        }
    }

    /// Sends each input to the program; the ending one of them asks for, if any, leaving the rest.
    private func handle(_ inputs: [NCursesScreen.Input]) -> TerminalSession.Ending? {
        var keys: [Key] = []
        for (index, input) in inputs.enumerated() {
            if case .key(let key) = input {
                inspectKey?(key)
                // Keys in a row go to the program together, so a paste is handled as one text.
                keys.append(key)
                if index + 1 < inputs.count, case .key = inputs[index + 1] { continue }
                program.enqueue(contentsOf: keys)
                keys.removeAll(keepingCapacity: true)
                if program.reading({ $0.isQuitting }) { return .quit }
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
            case .terminalSaid(let answer):
                guard learn(answer) else { break }
                screen.invalidate()
                program.picturesChanged()
            }
            if program.reading({ $0.isQuitting }) { return .quit }
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

    /// The worker's server says the window changed: the screen takes its new size and is drawn again.
    func windowChanged() {
        guard !hasEnded else { return }
        resized()
        program.drawIfNeeded()
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
        guard let ticker, !marks.settled, isWaitingForEnd else { return }
        if busy && !isTicking {
            ticker.resume()
            isTicking = true
        }
        if !busy && isTicking {
            ticker.suspend()
            isTicking = false
        }
    }

    /// Ends the session as `ending` (the first call counts): the terminal is restored and `run` returns.
    func end(_ ending: TerminalSession.Ending) {
        guard let finish else {
            if pendingEnding == nil { pendingEnding = ending }
            return
        }
        self.finish = nil
        hasEnded = true
        closeBackend()
        keyWaiter?.stop()
        if let keyWatch { DescriptorKeys.shared.stopWatching(keyWatch) }
        // A suspended dispatch source must be resumed before it is cancelled and released.
        if !isTicking {
            ticker?.resume()
            isTicking = true
        }
        screen.restore()
        finish.resume(returning: ending)
    }
}

extension TerminalEvents: LiveObject {}
