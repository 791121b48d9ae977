import LiveObjects

/// Names a part of the screen whose cells the painter may copy from the frame before.
struct RegionID: Hashable, Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

/// What one region of a frame was drawn from, kept with the frame so the next one can copy the region
/// instead of drawing it again. Not part of what the frame shows.
///
/// A class: a memo is never changed once made, and a frame that copies the region keeps the very same memo, where a
/// struct was copied field by field (its content, targets and slots retained) each time it was looked up.
final class RegionMemo: Sendable {
    let id: RegionID
    let rows: Range<Int>
    let columns: Range<Int>
    /// What the drawing depended on: equal content at the same place draws the same cells.
    let content: any Sendable
    /// The mouse targets the drawing added, added again with a copy.
    let targets: [MouseTarget]
    /// The pictures the drawing placed, placed again with a copy (whose cells hold them as last drawn).
    let slots: [PictureSlot]

    init(id: RegionID, rows: Range<Int>, columns: Range<Int>, content: any Sendable, targets: [MouseTarget], slots: [PictureSlot] = []) {
        (self.id, self.rows, self.columns, self.content, self.targets, self.slots) = (id, rows, columns, content, targets, slots)
    }
}

extension RegionMemo: LiveObject {}

/// The rows of a list window as drawn: which item each showed, where, and how.
private struct ListWindowMemo<Item: Equatable & Sendable, Look: Equatable & Sendable>: Sendable {
    var items: [Item]
    var firstIndex: Int
    var selectedIndex: Int
    var look: Look
    /// Each row's measure, as `listWindow` asked for it: one per row drawn.
    var measures: [Int]

    /// The row (from the top of the window) that showed `items[offset]` as item `index` of the list, if one did.
    func offset(showing items: [Item], _ offset: Int, at index: Int) -> Int? {
        let earlier = index - firstIndex
        guard earlier >= 0, earlier < measures.count, Self.same(self.items, earlier, items, offset) else { return nil }
        return earlier
    }

    /// `old[i] == new[j]`. Most keys change no item and leave the very same array, whose element at the same index is
    /// the same item: comparing would copy both out of their arrays, retaining and releasing every string in them.
    private static func same(_ old: [Item], _ i: Int, _ new: [Item], _ j: Int) -> Bool {
        if i == j, old.withUnsafeBufferPointer({ $0.baseAddress }) == new.withUnsafeBufferPointer({ $0.baseAddress }) { return true }
        return old[i] == new[j]
    }
}

/// Frame reuse, the painter's alone: a screen says what a region shows, and the painter copies it from
/// the frame before when that drew the same, or has the screen draw it.
extension Painter {
    private func memo(_ id: RegionID) -> RegionMemo? {
        previous?.memos.first { $0.id == id }
    }

    /// Draws `rows` × `columns` (every column unless told) with `draw`, unless the frame before drew that region
    /// from equal `content`: then its cells are copied and its mouse targets added again.
    mutating func region<Content: Equatable & Sendable>(
        _ id: RegionID, rows: Range<Int>, columns: Range<Int>? = nil, content: Content, draw: (inout Painter) -> Void
    ) {
        let columns = columns ?? 0..<size.columns
        if let earlier = memo(id), earlier.rows == rows, earlier.columns == columns, let drawn = earlier.content as? Content, drawn == content {
            copyFromPrevious(rows: rows, columns: columns)
            frame.targets += earlier.targets
            frame.pictureSlots += earlier.slots
            frame.memos.append(earlier)
            return
        }
        let targetsBefore = frame.targets.count
        let slotsBefore = frame.pictureSlots.count
        draw(&self)
        frame.memos.append(
            RegionMemo(
                id: id, rows: rows, columns: columns, content: content, targets: Array(frame.targets[targetsBefore...]),
                slots: Array(frame.pictureSlots[slotsBefore...])))
    }

    /// A window of a list: row `top + offset` shows `items[offset]`, item `firstIndex + offset` of the whole list,
    /// for `offset` below `count`, in the band `band..<band + width`; item `selectedIndex` is selected.
    ///
    /// Order of calls: `measure(offset)` for each row whose item the frame before did not show at the same index
    /// (a row's measure, such as its price's width, is kept with the frame) → `look(largest measure)`, everything
    /// else a row's drawing depends on → a row the frame before drew from the same item at the same index, selected
    /// or not as now and with an equal look, is copied and made clickable again; `draw(&painter, offset, row,
    /// fromSelected, look)` draws each other row.
    mutating func listWindow<Item: Equatable & Sendable, Look: Equatable & Sendable>(
        _ id: RegionID, items: [Item], count: Int, firstIndex: Int, selectedIndex: Int, top: Int, band: Int, width: Int,
        measure: (Int) -> Int, look makeLook: (Int) -> Look,
        draw: (inout Painter, _ offset: Int, _ row: Int, _ fromSelected: Int, _ look: Look) -> Void
    ) {
        let rows = top..<(top + count)
        let columns = band..<(band + width)
        let earlier = memo(id).flatMap { $0.rows.lowerBound == top && $0.columns == columns ? $0.content as? ListWindowMemo<Item, Look> : nil }
        var measures = [Int](repeating: 0, count: count)
        var sources = [Int](repeating: -1, count: count)
        for offset in 0..<count {
            if let earlier, let from = earlier.offset(showing: items, offset, at: firstIndex + offset) {
                sources[offset] = from
                measures[offset] = earlier.measures[from]
            } else {
                measures[offset] = measure(offset)
            }
        }
        let look = makeLook(measures.max() ?? 0)
        let reusable = earlier.flatMap { $0.look == look ? $0 : nil }
        for offset in 0..<count {
            let row = top + offset
            let fromSelected = firstIndex + offset - selectedIndex
            let from = sources[offset]
            if let reusable, let previous, from >= 0, (reusable.firstIndex + from == reusable.selectedIndex) == (fromSelected == 0) {
                frame.copyCells(of: previous, row: top + from, columns: columns, to: row)
                listRowTarget(row: row, band: band, width: width, fromSelected: fromSelected)
                continue
            }
            draw(&self, offset, row, fromSelected, look)
        }
        let content = ListWindowMemo(items: items, firstIndex: firstIndex, selectedIndex: selectedIndex, look: look, measures: measures)
        frame.memos.append(RegionMemo(id: id, rows: rows, columns: columns, content: content, targets: []))
    }

    /// Draws over what is drawn in `rows` already: the regions there no longer show what their memos say, so the
    /// next frame draws them again.
    mutating func overlay(rows: Range<Int>, _ draw: (inout Painter) -> Void) {
        draw(&self)
        frame.memos.removeAll { $0.rows.overlaps(rows) }
    }
}
