/// The one selection and scroll-window arithmetic, shared by the view model and the views.
public enum ListSelection {
    /// `index` kept inside a list of `count` items (0 when the list is empty).
    public static func clamped(_ index: Int, count: Int) -> Int {
        max(0, min(index, count - 1))
    }

    /// The selection after a movement action, or nil when `action` does not move.
    /// - Parameter page: rows per page; nil sends the page keys to the ends, as on short lists.
    public static func moved(_ index: Int, by action: Action, count: Int, page: Int? = nil) -> Int? {
        let target: Int
        switch action {
        case .moveUp: target = index - 1
        case .moveDown: target = index + 1
        case .moveToTop: target = 0
        case .moveToBottom: target = count - 1
        case .pageUp: target = page.map { index - $0 } ?? 0
        case .pageDown: target = page.map { index + $0 } ?? count - 1
        default: return nil
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
