/// An optional part of the state kept on the heap behind one reference: for a large part that is usually absent (the
/// merchant console, an opened order), so the state stays small to copy and to keep. A session keeps several copies of
/// its state (the reducers' and the one last drawn); they share one copy of such a part. Every change makes a new one.
@propertyWrapper
public struct OutOfLine<Wrapped> {
    // @unchecked: its one property is immutable, and Sendable wherever `OutOfLine` is. Not a LiveObject for that reason:
    // Mirror may read it, so a failed expectation shows the part it holds.
    private final class Box: @unchecked Sendable {
        let value: Wrapped
        init(_ value: Wrapped) { self.value = value }
    }

    private var box: Box?

    public init(wrappedValue: Wrapped?) { box = wrappedValue.map(Box.init) }

    public var wrappedValue: Wrapped? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }
}

extension OutOfLine: Sendable where Wrapped: Sendable {}

extension OutOfLine: Equatable where Wrapped: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.box === rhs.box || lhs.wrappedValue == rhs.wrappedValue }
}

extension OutOfLine: Hashable where Wrapped: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
}
