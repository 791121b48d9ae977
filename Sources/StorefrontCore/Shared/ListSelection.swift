/// The one selection and scroll-window arithmetic, shared by the view model and the views.
public enum ListSelection {
    /// `index` kept inside a list of `count` items (0 when the list is empty).
    public static func clamped(_ index: Int, count: Int) -> Int {
        max(0, min(index, count - 1))
    }

    /// The selection after `move` in a list of `count` items.
    /// - Parameter page: rows per page; nil sends the page keys to the ends, as on short lists.
    public static func moved(_ index: Int, by move: ListMove, count: Int, page: Int? = nil) -> Int {
        let target =
            switch move {
            case .up: index - 1
            case .down: index + 1
            case .top: 0
            case .bottom: count - 1
            case .pageUp: page.map { index - $0 } ?? 0
            case .pageDown: page.map { index + $0 } ?? count - 1
            }
        return clamped(target, count: count)
    }

    /// The first visible row of a window of `capacity` rows that shows `selected`, scrolling from
    /// `currentStart` only as far as needed.
    public static func windowStart(selected: Int, currentStart: Int = 0, capacity: Int, total: Int) -> Int {
        var start = currentStart
        if selected < start { start = selected }
        if selected >= start + capacity { start = selected - capacity + 1 }
        return max(0, min(start, max(0, total - capacity)))
    }
}

/// A movement in a list: the keys every list screen shares.
public enum ListMove: Equatable, Sendable, FeatureKeys {
    case up, down, pageUp, pageDown, top, bottom

    public static let keys: [Action: Self] = [
        .moveUp: .up, .moveDown: .down, .pageUp: .pageUp, .pageDown: .pageDown, .moveToTop: .top, .moveToBottom: .bottom,
    ]
}

/// A feature's keys, decoded by its table: a key the table does not name is not the feature's.
public protocol FeatureKeys: Equatable {
    static var keys: [Action: Self] { get }
    /// What typed text is to the feature (a search, a field); nil where it takes none.
    static var typing: ((String) -> Self)? { get }
}

extension FeatureKeys {
    public static var typing: ((String) -> Self)? { nil }

    public init?(_ key: Action) {
        if case .textInput(let text) = key, let typing = Self.typing {
            self = typing(text)
            return
        }
        guard let decoded = Self.keys[key] else { return nil }
        self = decoded
    }
}
