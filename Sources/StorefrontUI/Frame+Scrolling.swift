/// What a terminal's line insertion and deletion can do for a frame: move a band of rows up or down at
/// the cost of a few bytes, so a scrolled list is not drawn again row by row.
extension Frame {
    /// Moves rows `rows` by `offset` (up when negative), as a terminal scrolls a band of lines: rows moved
    /// past the band's ends are lost, and those left behind become blank.
    public mutating func scroll(_ rows: ClosedRange<Int>, by offset: Int) {
        let columns = size.columns
        let order = offset < 0 ? Array(rows) : rows.reversed()
        for row in order {
            let source = row - offset
            let target = row * columns
            if rows.contains(source) {
                for column in 0..<columns { packed[target + column] = packed[source * columns + column] }
            } else {
                for column in 0..<columns { packed[target + column] = .blank }
            }
        }
    }

    /// The band of rows and the offset that, scrolled from `old`, leave the most rows of this frame already
    /// drawn that were not in place before; nil when no band gains at least two rows.
    ///
    /// Offsets of up to 3 rows either way are tried: a list moves by one row per arrow key and by three per
    /// turn of the wheel, and a page moves too far for any row to stay on screen.
    public func scrollBand(from old: Frame) -> (rows: ClosedRange<Int>, offset: Int)? {
        guard old.size == size else { return nil }
        let rows = size.rows
        // Each row compared in place once. Only a changed row can be gained, so an offset under which fewer than two
        // changed rows are found moved is passed over before its unchanged rows are compared: a move in a list
        // changes a handful of rows, and every other row of a tall frame would be compared six times over.
        let changed = (0..<rows).filter { !self.row($0, matches: old) }
        guard changed.count >= 2 else { return nil }
        var inPlace = [Bool](repeating: true, count: rows)
        for row in changed { inPlace[row] = false }
        var best: (rows: ClosedRange<Int>, offset: Int, gain: Int)?
        for offset in [-1, 1, -3, 3, -2, 2] {
            // New row r shows old row r - offset.
            let first = max(0, offset)
            let end = min(rows, rows + offset)
            guard first < end else { continue }
            let moved = changed.filter { $0 >= first && $0 < end && self.row($0, matches: old, row: $0 - offset) }
            guard moved.count >= 2 else { continue }
            var start: Int?
            var gain = 0
            for row in first...end {
                if row < end, inPlace[row] ? self.row(row, matches: old, row: row - offset) : moved.contains(row) {
                    if start == nil {
                        start = row
                        gain = 0
                    }
                    if !inPlace[row] { gain += 1 }
                    continue
                }
                guard let runStart = start else { continue }
                start = nil
                // The band holds the rows moved and the rows they came from.
                let band = min(runStart, runStart - offset)...max(row - 1, row - 1 - offset)
                if gain >= 2, gain > best?.gain ?? 0 { best = (band, offset, gain) }
            }
        }
        return best.map { ($0.rows, $0.offset) }
    }
}
