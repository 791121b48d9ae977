import LiveObjects
import ShopPorts
import StorefrontCore

/// The one loop from a key to a frame, in a terminal and headless alike.
///
/// Order of calls: init (the store publishes the first state, which is drawn) → `press` for each
/// key (decoded against the state it will act on, held while a screen is on its way) → each
/// published state is laid out at the backend's size and drawn, at once or once per burst as the
/// backend's `timing` says → `resized()` when the backend's size changed → `settle()` waits for
/// effects and the keys that waited on them.
@MainActor
public final class Program {
    public let viewModel: StorefrontViewModel
    public let backend: any TerminalBackend
    private let keys = KeyQueue()
    private var needsDraw = false
    private var drawScheduled = false
    /// Hears every published state before it is drawn (a terminal starts or stops its spinner ticks).
    public var onStateChange: ((StorefrontState) -> Void)?
    /// Runs after a burst's keys and effects are handled, before its frame (a terminal ends on quit).
    public var onBurstHandled: ((StorefrontState) -> Void)?
    private var isHandlingInput = false
    /// The pictures this session has drawn, and those it is waiting for.
    private var pictures: PictureFill
    /// Where pictures come from, for a `PictureFill` made again when the backend learns to draw them otherwise.
    private let pictureSource: (any PictureMosaics)?

    /// Runs `body`, input the host draws right after with `drawIfNeeded`: states published meanwhile
    /// schedule no pass of their own, which would only wake a thread to find nothing to do.
    public func handlingInput(_ body: () -> Void) {
        isHandlingInput = true
        defer { isHandlingInput = false }
        body()
    }

    public init(dependencies: StorefrontDependencies, backend: any TerminalBackend) {
        self.backend = backend
        pictureSource = dependencies.pictures
        pictures = Self.pictureFill(source: dependencies.pictures, backend: backend)
        // The store publishes its first state while it is made, before `self` exists: relayed after.
        let relay = StateRelay()
        viewModel = StorefrontViewModel(dependencies: dependencies) { relay.program?.stateChanged($0) }
        relay.program = self
        stateChanged(viewModel.state)
        viewModel.send(.viewportChanged(listRows: Layout.listRows(for: backend.size)))
    }

    public var state: StorefrontState { viewModel.state }

    /// What `body` makes of the current state, lent in place: `state` is a copy, which retains and releases every
    /// string and array in it, at every key where a host only asks one thing of it. `body` must not send actions.
    public func reading<Answer>(_ body: (borrowing StorefrontState) -> Answer) -> Answer {
        viewModel.reading(body)
    }

    private static func pictureFill(source: (any PictureMosaics)?, backend: any TerminalBackend) -> PictureFill {
        PictureFill(
            source: backend.pictures.showsPictures ? source : nil, graphics: backend.pictures.graphics,
            cellPixels: { [backend] in backend.cellPixels })
    }

    /// The backend draws pictures another way now (the terminal answered what it draws): the next frame is laid out
    /// for it and its pictures are drawn again.
    public func picturesChanged() {
        pictures = Self.pictureFill(source: pictureSource, backend: backend)
        setNeedsDraw()
    }

    /// The frame for the current state at the backend's size, with the pictures the session has.
    public var frame: Frame {
        var frame = layout(viewModel.state, backend.size, charset: backend.charset, pictures: backend.pictures)
        pictures.draw(into: &frame)
        return frame
    }

    /// Decodes `key` against the state it will act on and sends its action; keys that mean nothing there are ignored.
    public func press(_ key: Key, settle: Bool = true) async {
        keys.enqueue(key, into: viewModel)
        if settle { await self.settle() }
    }

    /// Queues `key` without waiting for its effects: a terminal's input handler.
    public func enqueue(_ key: Key) {
        keys.enqueue(key, into: viewModel)
    }

    /// Queues keys read in one burst without waiting for their effects; text typed in a row is handled as one action.
    public func enqueue(contentsOf burst: some Collection<Key>) {
        keys.enqueue(contentsOf: burst, into: viewModel)
    }

    public func send(_ action: Action, settle: Bool = true) async {
        viewModel.send(action)
        if settle { await self.settle() }
    }

    /// Waits for every effect in flight, handling keys that were waiting on them, and for the pictures on screen.
    public func settle() async {
        repeat {
            await viewModel.settled()
            keys.drain(into: viewModel)
        } while !keys.isEmpty && viewModel.isAcceptingInput
        await viewModel.settled()
        await pictures.settled()
    }

    /// Returns once every picture the frames on screen asked for is in (and marked to be drawn).
    public func picturesSettled() async {
        await pictures.settled()
    }

    /// Returns once every picture a frame has shown is in: not those asked for ahead of a move.
    public func shownPicturesSettled() async {
        await pictures.shownSettled()
    }

    /// The backend's size changed: the list window follows and a frame is drawn at the new size.
    public func resized() {
        viewModel.send(.viewportChanged(listRows: Layout.listRows(for: backend.size)))
        switch backend.timing {
        case .everyState: draw()
        case .perBurst: needsDraw = true
        }
    }

    /// Draws the current state if something changed since the last frame.
    public func drawIfNeeded() {
        guard needsDraw else { return }
        draw()
    }

    /// Draws the current state now.
    public func draw() {
        needsDraw = false
        var drawn = viewModel.reading { layout($0, backend.size, charset: backend.charset, pictures: backend.pictures, previous: onScreen) }
        // A picture not drawn yet is asked for; when it comes, the frame is drawn again if it still shows its slot.
        pictures.draw(into: &drawn) { [weak self] slot in
            guard let self, self.onScreen?.pictureSlots.contains(slot) == true else { return }
            self.stateChanged(self.viewModel.state)
        }
        onScreen = drawn
        viewModel.reading { backend.draw(drawn, for: $0) }
    }

    /// The frame last drawn: what a click lands on.
    private var onScreen: Frame?

    /// The frame last drawn, nil before the first.
    public var frameOnScreen: Frame? { onScreen }

    /// A click at (column, row) of the frame on screen: the keys it stands for, queued as typed keys are.
    public func click(column: Int, row: Int) {
        for key in (onScreen ?? frame).keys(forClickAt: column, row: row) { enqueue(key) }
    }

    /// A turn of the wheel: the selection moves as the arrows move it.
    public func wheel(down: Bool) {
        for _ in 0..<MouseWheel.rowsPerTurn { enqueue(down ? .down : .up) }
    }

    /// Marks the screen stale without a state change, e.g. after a terminal asked for a full repaint.
    public func setNeedsDraw() {
        needsDraw = true
    }

    private func stateChanged(_ state: StorefrontState) {
        onStateChange?(state)
        switch backend.timing {
        case .everyState:
            draw()
        case .perBurst(let schedule):
            needsDraw = true
            guard !drawScheduled, !isHandlingInput else { return }
            drawScheduled = true
            schedule { [weak self] in
                guard let self else { return }
                self.drawScheduled = false
                // Keys that waited on an effect are handled now, against the state it produced.
                self.keys.drain(into: self.viewModel)
                self.onBurstHandled?(self.viewModel.state)
                self.drawIfNeeded()
            }
        }
    }
}

/// Carries the store's published states to the program once the program exists.
@MainActor
private final class StateRelay: LiveObject {
    weak var program: Program?
}

extension Program: LiveObject {}
