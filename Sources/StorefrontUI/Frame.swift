/// A terminal size in character cells.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// The smallest size the shop draws its screens at; below it, a "too small" view.
    public static let minimum = Size(columns: 40, rows: 12)
    /// The largest size the shop lays out and allocates for; a larger terminal is drawn at this size,
    /// the rest left blank. 640x240 is a 4K screen at a 6x9-pixel font, more than any readable
    /// terminal; every cell costs about 100 bytes across curses' screens and the frame, so a
    /// terminal at this cap adds ~15 MB, where 10000x10000 asked 2.6 GB.
    public static let maximum = Size(columns: 640, rows: 240)

    /// This size within `maximum`.
    public var bounded: Size { Size(columns: min(columns, Self.maximum.columns), rows: min(rows, Self.maximum.rows)) }

    public var description: String { "\(columns)x\(rows)" }

    /// Parses "80x24".
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let columns = Int(parts[0]), let rows = Int(parts[1]), columns > 0, rows > 0 else { return nil }
        self.init(columns: columns, rows: rows)
    }

    public var isBelowMinimum: Bool { columns < Size.minimum.columns || rows < Size.minimum.rows }
}

/// What a cell means; the backend maps roles to colours or, without colour, to attributes.
public enum StyleRole: Hashable, Sendable, CaseIterable {
    case normal, header, title, dim, accent, price, selection, error, success, art, border, key
}

/// How a cell is drawn.
public struct Style: Hashable, Sendable {
    public var role: StyleRole
    public var bold: Bool
    public var underline: Bool

    public init(_ role: StyleRole = .normal, bold: Bool = false, underline: Bool = false) {
        self.role = role
        self.bold = bold
        self.underline = underline
    }

    public static let normal = Style()
}

/// One character cell: a grapheme, or empty when it continues the wide grapheme to its left.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style
    public init(text: String, style: Style) {
        self.text = text
        self.style = style
    }

    public static let blank = Cell(text: " ", style: .normal)
    public var isContinuation: Bool { text.isEmpty }
}

/// Which characters the terminal can show.
public enum Charset: Hashable, Sendable {
    case unicode
    /// The locale is not UTF-8: every cell is plain ASCII.
    case ascii
}

/// A grid of styled cells exactly the terminal's size; `layout` fills it and a backend draws it.
public struct Frame: Hashable, Sendable {
    public let size: Size
    public let charset: Charset
    public private(set) var cells: [Cell]
    /// Where a click means something, in drawing order (a later target covers an earlier one).
    public internal(set) var targets: [MouseTarget] = []

    public init(size: Size, charset: Charset = .unicode) {
        self.size = size
        self.charset = charset
        self.cells = Array(repeating: .blank, count: max(0, size.columns * size.rows))
    }

    public subscript(column: Int, row: Int) -> Cell {
        cells[row * size.columns + column]
    }

    /// Writes `text` from (column, row), clipped at `limit` columns and the frame's edge; returns the columns used.
    ///
    /// Every string passes through here, so this is where data is made safe: control characters and
    /// escape sequences become a visible placeholder, and in ASCII mode everything is transliterated.
    @discardableResult
    public mutating func put(_ text: String, column: Int, row: Int, style: Style = .normal, limit: Int? = nil) -> Int {
        guard row >= 0, row < size.rows, column < size.columns else { return 0 }
        let end = min(size.columns, column + (limit ?? size.columns))
        var x = column
        if TerminalText.isPrintableASCII(text) {
            // The common case: one byte, one column, nothing to sanitize or transliterate.
            for byte in text.utf8 {
                guard x < end else { break }
                if x >= 0 {
                    clearWide(at: x, row: row)
                    cells[row * size.columns + x] = Cell(text: String(Unicode.Scalar(byte)), style: style)
                }
                x += 1
            }
            return x - column
        }
        for character in TerminalText.displayable(text, charset: charset) {
            let width = TerminalText.width(of: character)
            if width == 0 { continue }
            guard x + width <= end else { break }
            if x >= 0 {
                // Overwriting half of a wide character leaves a blank, never half a glyph.
                clearWide(at: x, row: row)
                if width == 2 { clearWide(at: x + 1, row: row) }
                cells[row * size.columns + x] = Cell(text: String(character), style: style)
                if width == 2 { cells[row * size.columns + x + 1] = Cell(text: "", style: style) }
            }
            x += width
        }
        return x - column
    }

    /// Fills a rectangle with blanks in `style`.
    public mutating func fill(row: Int, column: Int = 0, width: Int? = nil, height: Int = 1, style: Style = .normal) {
        let w = width ?? size.columns - column
        for y in max(0, row)..<min(size.rows, row + height) {
            for x in max(0, column)..<min(size.columns, column + w) {
                clearWide(at: x, row: y)
                cells[y * size.columns + x] = Cell(text: " ", style: style)
            }
        }
    }

    private mutating func clearWide(at x: Int, row: Int) {
        let index = row * size.columns + x
        // A single byte is ASCII: neither wide nor the right half of a wide character.
        if cells[index].text.utf8.count == 1 { return }
        if cells[index].isContinuation, x > 0 {
            cells[index - 1] = Cell(text: " ", style: cells[index - 1].style)
        } else if TerminalText.width(of: Character(cells[index].text.isEmpty ? " " : cells[index].text)) == 2, x + 1 < size.columns {
            cells[index + 1] = Cell(text: " ", style: cells[index + 1].style)
        }
    }

    /// The frame as plain text, one line per row, trailing blanks kept so every line is `columns` wide.
    public var text: String { lines.joined(separator: "\n") }

    /// The frame as text with trailing blanks removed from each line, as `storefront headless` prints it.
    public var plainText: String {
        lines.map { line in
            var line = line
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    public var lines: [String] {
        (0..<size.rows).map { row in
            var line = ""
            for x in 0..<size.columns where !self[x, row].isContinuation {
                line += self[x, row].text
            }
            return line
        }
    }
}
