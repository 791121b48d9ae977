import LiveObjects
import Synchronization

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

/// Takes the first screen's cells and mark out of what a session started with its page relays to the page's socket,
/// where the shop writes them only after the page went: the socket carries what a terminal draws, nothing else.
final class FirstScreenMarkFilter: Sendable {
    private struct State {
        /// The start of what may be the cells' sequence or the mark, held until it is whole or cannot be.
        var held: [UInt8] = []
        var finished: Bool
    }

    private let state: Mutex<State>

    /// `finished`: the mark was already taken out (it came before the socket), so everything passes as it is.
    init(finished: Bool) { state = Mutex(State(finished: finished)) }

    /// Both sequences are out (or were before the socket): everything passes as it is.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// What of `chunk` goes on: all of it, but for the two sequences and any start of them not yet whole.
    func pass(_ chunk: [UInt8]) -> [UInt8] {
        state.withLock { state in
            guard !state.finished else { return chunk }
            var bytes = state.held + chunk
            state.held = []
            if let mark = FrameMarks.range(of: FrameMarks.firstScreen, in: bytes, from: 0) {
                let from = FrameMarks.cellsEnding(at: mark.lowerBound, in: bytes)?.whole.lowerBound ?? mark.lowerBound
                bytes.removeSubrange(from..<mark.upperBound)
                state.finished = true
                return bytes
            }
            guard let start = Self.unfinishedStart(in: bytes) else { return bytes }
            state.held = Array(bytes[start...])
            return Array(bytes[..<start])
        }
    }

    /// Where the bytes end in a start of the cells' sequence (its payload bounded), of the mark, or of both.
    static func unfinishedStart(in bytes: [UInt8]) -> Int? {
        guard let escape = bytes.lastIndex(of: 0x1B) else { return nil }
        let tail = bytes[escape...]
        if FrameMarks.firstScreen.starts(with: tail) {
            // The mark under way, after the cells' sequence where that ends just before it.
            return FrameMarks.cellsEnding(at: escape, in: bytes)?.whole.lowerBound ?? escape
        }
        if FrameMarks.cellsBegin.starts(with: tail) { return escape }
        guard tail.starts(with: FrameMarks.cellsBegin), tail.count <= FrameMarks.cellsBegin.count + FrameMarks.cellsLimit + 1 else { return nil }
        // The payload under way (no control but its separators), or whole with its BEL.
        let payload = tail.dropFirst(FrameMarks.cellsBegin.count)
        let body = payload.last == 0x07 ? payload.dropLast() : payload
        return body.allSatisfy { $0 >= 0x20 || $0 == 0x1E || $0 == 0x1F } ? escape : nil
    }
}

extension FirstScreenMarkFilter: LiveObject {}
