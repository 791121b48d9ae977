import LiveObjects
import StorefrontCore
import StorefrontUI

/// The test backend: records every state and every frame as text, the way a terminal would have received them.
@MainActor
public final class FakeRenderer: TerminalBackend {
    public private(set) var states: [StorefrontState] = []
    public private(set) var frames: [Frame] = []
    /// The screen's size; set it, then tell the program `resized()`.
    public var size: Size
    public let charset: Charset
    public let pictures: PictureSupport
    public var timing: FrameTiming { .everyState }

    public init(size: Size = Size(columns: 80, rows: 24), charset: Charset = .unicode, pictures: PictureSupport = .art) {
        self.size = size
        self.charset = charset
        self.pictures = pictures
    }

    /// Tasks waiting for the next frame (`nextFrame`), resumed by it.
    private var waitingForFrame: [CheckedContinuation<Void, Never>] = []

    public func draw(_ frame: Frame, for state: StorefrontState) {
        states.append(state)
        frames.append(frame)
        wakeFrameWaiters()
    }

    /// Returns once the next frame is drawn, or once `wake` is called (a deadline), whichever comes first.
    func nextFrame() async {
        await withCheckedContinuation { waitingForFrame.append($0) }
    }

    /// Resumes every task waiting for a frame.
    func wakeFrameWaiters() {
        let waiting = waitingForFrame
        waitingForFrame = []
        for continuation in waiting { continuation.resume() }
    }

    /// The frames as plain text, in order.
    public var frameTexts: [String] { frames.map(\.text) }
    public var lastFrameText: String? { frames.last?.text }

    /// The successive values of one property, with repeats in a row collapsed.
    public func history<Value: Equatable>(of value: (StorefrontState) -> Value) -> [Value] {
        var out: [Value] = []
        for state in states {
            let v = value(state)
            if out.last != v { out.append(v) }
        }
        return out
    }
}

extension FakeRenderer: LiveObject {}
