/// What a click on a place of the frame means, in keys: recorded as the screen is drawn, so the
/// mouse goes through the same key table as the keyboard and can never do what no key does.
public struct MouseTarget: Hashable, Sendable {
    public enum Meaning: Hashable, Sendable {
        /// A footer hint or a button: the key it names.
        case key(Key)
        /// A button that takes more than one key (a form's submit, from another field).
        case keys([Key])
        /// A row of the list in focus, `offset` rows from the selected one; `opens` when Enter on
        /// the selected row opens it (a product, an order, a sheet row, a chooser's choice).
        case listRow(offset: Int, opens: Bool)
    }

    public var row: Int
    public var columns: Range<Int>
    public var meaning: Meaning
}

/// How far one turn of the wheel moves a list.
public enum MouseWheel {
    public static let rowsPerTurn = 3
}

extension Frame {
    /// The keys a click at (column, row) stands for; none where nothing was drawn to be clicked.
    ///
    /// A list row moves the selection there (the arrows, once per row), or, when it is already
    /// selected, opens it (Enter), so a double click selects and opens.
    public func keys(forClickAt column: Int, row: Int) -> [Key] {
        guard let target = targets.last(where: { $0.row == row && $0.columns.contains(column) }) else { return [] }
        switch target.meaning {
        case .key(let key):
            return [key]
        case .keys(let keys):
            return keys
        case .listRow(let offset, let opens):
            if offset == 0 { return opens ? [.enter] : [] }
            return Array(repeating: offset > 0 ? .down : .up, count: abs(offset))
        }
    }
}

extension Painter {
    /// Records that a click on `columns` of `row` means `meaning`.
    mutating func target(_ meaning: MouseTarget.Meaning, row: Int, columns: Range<Int>) {
        guard row >= 0, row < size.rows, !columns.isEmpty else { return }
        frame.targets.append(MouseTarget(row: row, columns: columns, meaning: meaning))
    }
}
