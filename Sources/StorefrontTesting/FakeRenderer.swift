import StorefrontCore
import StorefrontUI

/// Records every state and every frame as text, the way a terminal would have received them.
@MainActor
public final class FakeRenderer {
    public private(set) var states: [StorefrontState] = []
    public private(set) var frames: [Frame] = []

    public init() {}

    public func render(_ state: StorefrontState, _ frame: Frame) {
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
