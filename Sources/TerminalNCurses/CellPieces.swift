/// What curses is given for one frame cell, so the row stays aligned when the C library's widths differ from the frame's.
///
/// curses takes one spacing character per cell and measures it with `wcwidth`. A cell the frame made from a
/// flag (two spacing regional indicators), a character this C library does not know (`wcwidth` -1: newer
/// than its Unicode data), or a character it measures narrower than the frame did would otherwise be
/// dropped or leave stale columns behind.
public enum CellPieces {
    /// One character (a spacing scalar and the zero-width scalars after it) at `offset` columns into the cell.
    public struct Piece: Equatable, Sendable {
        public var offset: Int
        public var text: String
        public init(offset: Int, text: String) {
            self.offset = offset
            self.text = text
        }
    }

    /// Pieces covering exactly `columns` columns: the characters that fit, in order (the placeholder when none
    /// does), then blanks.
    /// - Parameter width: the C library's width of a scalar (`wcwidth`): -1 for one it does not know.
    public static func pieces(of text: String, columns: Int, width: (Unicode.Scalar) -> Int) -> [Piece] {
        // Only Unicode cells come here (ASCII-only frames are single-byte cells), so the placeholder is U+FFFD.
        let placeholder = "\u{FFFD}"
        var pieces: [Piece] = []
        var used = 0
        var current: (text: String.UnicodeScalarView, width: Int)? = nil
        var isFull = false
        func finish() {
            guard let piece = current else { return }
            current = nil
            if isFull || used + piece.width > columns {
                isFull = true
                return
            }
            pieces.append(Piece(offset: used, text: String(piece.text)))
            used += piece.width
        }
        for scalar in text.unicodeScalars {
            let measured = width(scalar)
            if measured == 0 {
                // Zero-width: rides on the character before it; one with nothing before it is left out.
                current?.text.append(scalar)
                continue
            }
            finish()
            if measured < 0 {
                current = (placeholder.unicodeScalars, 1)
            } else {
                current = (String.UnicodeScalarView([scalar]), measured)
            }
        }
        finish()
        // Nothing fit (the C library measures the character wider than the frame does): show that something is there.
        if pieces.isEmpty, !text.isEmpty, columns > 0 {
            pieces.append(Piece(offset: 0, text: placeholder))
            used = 1
        }
        while used < columns {
            pieces.append(Piece(offset: used, text: " "))
            used += 1
        }
        return pieces
    }
}
