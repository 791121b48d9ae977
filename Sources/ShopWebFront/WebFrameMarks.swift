/// What a web session's shop writes for the server, not the screen: synchronized output's closing mark, which ends each
/// frame (`STOREFRONT_SYNCHRONIZED_OUTPUT`), and the first screen's mark and cells.
enum FrameMarks {
    static let end = Array("\u{1B}[?2026l".utf8)
    /// What a session started with its page writes once its first screen is whole (`STOREFRONT_FIRST_SCREEN_MARKER`).
    static let firstScreen = Array("\u{1B}]7766;storefront-first-screen\u{07}".utf8)

    /// What the shop writes its first screen's cells in, just before `firstScreen`: this, the payload, then BEL.
    static let cellsBegin = Array("\u{1B}]7766;storefront-first-screen-cells;".utf8)
    /// The longest payload taken: a longer one is dropped with the sequence, and the page's scripts draw the screen.
    static let cellsLimit = 512 * 1024

    /// The cells' sequence that ends just before `end` (its BEL at `end - 1`): the whole sequence and its payload; nil
    /// where none ends there, or its payload passes `cellsLimit`.
    static func cellsEnding(at end: Int, in bytes: [UInt8]) -> (whole: Range<Int>, payload: Range<Int>)? {
        guard end > 0, end <= bytes.count, bytes[end - 1] == 0x07 else { return nil }
        // Back to the sequence's ESC: the payload holds no control character, so the first one met is its start.
        var index = end - 2
        while index >= 0, bytes[index] >= 0x20 || bytes[index] == 0x1E || bytes[index] == 0x1F {
            if end - 1 - index > cellsLimit + cellsBegin.count { return nil }
            index -= 1
        }
        guard index >= 0, bytes[index] == 0x1B, index + cellsBegin.count <= end - 1,
            bytes[index..<(index + cellsBegin.count)].elementsEqual(cellsBegin)
        else { return nil }
        return (index..<end, (index + cellsBegin.count)..<(end - 1))
    }

    /// Where `mark` is first found in `bytes` at or after `start`; nil when it is not.
    static func range(of mark: [UInt8], in bytes: [UInt8], from start: Int) -> Range<Int>? {
        guard let first = mark.first else { return nil }
        var index = max(0, start)
        while index + mark.count <= bytes.count {
            if bytes[index] == first, bytes[index..<(index + mark.count)].elementsEqual(mark) { return index..<(index + mark.count) }
            index += 1
        }
        return nil
    }

    /// The index just past the first closing mark at or after `start`; nil when there is none.
    static func firstEnd(in bytes: [UInt8], from start: Int) -> Int? {
        range(of: end, in: bytes, from: start)?.upperBound
    }
}
