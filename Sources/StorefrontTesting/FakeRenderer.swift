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
    public var timing: FrameTiming { .everyState }

    public init(size: Size = Size(columns: 80, rows: 24), charset: Charset = .unicode) {
        self.size = size
        self.charset = charset
    }

    public func draw(_ frame: Frame, for state: StorefrontState) {
        states.append(state)
        frames.append(frame)
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
