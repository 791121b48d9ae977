import ShopModels

#if canImport(Glibc)
    import ShopLanguages
    import Glibc
#endif

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

/// A grid of styled cells exactly the terminal's size; `layout` fills it and a backend draws it.
public struct Frame: Hashable, Sendable {
    public let size: Size
    public let charset: Charset
    /// Every cell, row after row.
    public internal(set) var packed: [PackedCell]
    /// The graphemes of more than one scalar (flags, emoji sequences, accented letters), by index.
    public private(set) var clusters: [String] = []
    /// Where a click means something, in drawing order (a later target covers an earlier one).
    public internal(set) var targets: [MouseTarget] = []
    /// Where pictures go, for the host to draw in once it has them (`draw(_:in:)`).
    public internal(set) var pictureSlots: [PictureSlot] = []
    /// Pictures the next frames may show (the list's neighbours), for the host to draw ahead while it is idle; never
    /// drawn in this frame.
    public internal(set) var pictureHints: [PictureSlot] = []
    /// The bytes that draw each slot's picture as pixels, for a terminal that draws them, by slot; not part of what
    /// the frame's cells show, so equality leaves it out.
    public internal(set) var pictureGraphics: [PictureSlot: PictureGraphics] = [:]
    /// How the frame was laid out to show pictures.
    public internal(set) var pictureSupport = PictureSupport.art
    /// What regions of this frame were drawn from, so the next frame copies those that show the same
    /// (`Painter+Reuse`); not part of what the frame shows, so equality and hashing leave it out.
    var memos: [RegionMemo] = []
    /// The language and region the frame's words and amounts are in: a frame in others is never copied from.
    var formats = FormatLocale.unitedStates

    public init(size: Size, charset: Charset = .unicode) {
        self.size = size
        self.charset = charset
        self.packed = Array(repeating: .blank, count: max(0, size.columns * size.rows))
    }

    public subscript(column: Int, row: Int) -> Cell {
        let cell = packed[row * size.columns + column]
        return Cell(text: text(of: cell), style: cell.style)
    }

    /// The cells as `Cell`s, row after row.
    public var cells: [Cell] { packed.map { Cell(text: text(of: $0), style: $0.style) } }

    /// What a packed cell of this frame shows: one grapheme, or "" for a continuation.
    public func text(of cell: PackedCell) -> String {
        if cell.isCluster { return clusters[Int(cell.code)] }
        if cell.code == 0 { return "" }
        return String(Character(Unicode.Scalar(cell.code) ?? "\u{FFFD}"))
    }

    /// True when `row` shows what `other` shows in `otherRow` (the same row unless told): one memory comparison,
    /// plus the clusters' text when it holds any.
    public func row(_ row: Int, matches other: Frame, row otherRow: Int? = nil) -> Bool {
        guard other.size == size else { return false }
        let start = row * size.columns
        let otherStart = (otherRow ?? row) * size.columns
        let count = size.columns
        guard count > 0 else { return true }
        return packed.withUnsafeBufferPointer { mine in
            other.packed.withUnsafeBufferPointer { theirs in
                guard memcmp(mine.baseAddress! + start, theirs.baseAddress! + otherStart, count * MemoryLayout<PackedCell>.stride) == 0 else {
                    return false
                }
                if clusters.isEmpty && other.clusters.isEmpty { return true }
                for x in 0..<count where mine[start + x].isCluster {
                    if clusters[Int(mine[start + x].code)] != other.clusters[Int(theirs[otherStart + x].code)] { return false }
                }
                return true
            }
        }
    }

    /// True when the cell at `index` shows the same in both frames. Inlinable: the encoder asks it of every cell of a
    /// changed row, from another module.
    @inlinable
    public func cell(at index: Int, matches other: Frame) -> Bool {
        let a = packed[index]
        let b = other.packed[index]
        guard a == b else { return false }
        return !a.isCluster || clusters[Int(a.code)] == other.clusters[Int(b.code)]
    }

    public static func == (lhs: Frame, rhs: Frame) -> Bool {
        guard lhs.size == rhs.size, lhs.charset == rhs.charset, lhs.targets == rhs.targets, lhs.pictureSlots == rhs.pictureSlots else { return false }
        if lhs.packed == rhs.packed, lhs.clusters == rhs.clusters { return true }
        return (0..<lhs.size.rows).allSatisfy { lhs.row($0, matches: rhs) }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(size)
        hasher.combine(charset)
        hasher.combine(text)
    }

    /// Writes `text` from (column, row), clipped at `limit` columns and the frame's edge; returns the columns used.
    ///
    /// Every string passes through here, so this is where data is made safe: control characters and
    /// escape sequences become a visible placeholder, and in ASCII mode everything is transliterated.
    @discardableResult
    public mutating func put(_ text: String, column: Int, row: Int, style: Style = .normal, limit: Int? = nil) -> Int {
        guard row >= 0, row < size.rows, column < size.columns else { return 0 }
        let end = min(size.columns, column + (limit ?? size.columns))
        let base = row * size.columns
        let bits = style.bits
        var x = column
        // The common cases, nothing to sanitize or transliterate: ASCII, a byte to a cell, and one-column characters
        // (Latin, punctuation, arrows, box drawing), a scalar to a cell.
        if TerminalText.isPrintableASCII(text) {
            return putOneColumnCells(text.utf8.lazy.map(UInt32.init), from: column, to: end, row: row, bits: bits)
        }
        if charset == .unicode, TerminalText.isOneColumnPerScalar(text) {
            return putOneColumnCells(text.unicodeScalars.lazy.map { $0.value }, from: column, to: end, row: row, bits: bits)
        }
        drawing: for grapheme in TerminalText.displayable(text, charset: charset) {
            for character in TerminalText.drawnPieces(of: grapheme) {
                let width = TerminalText.width(of: character)
                if width == 0 { continue }
                guard x + width <= end else { break drawing }
                if x >= 0 {
                    // Overwriting half of a wide character leaves a blank, never half a glyph.
                    clearWide(at: x, row: row)
                    if width == 2 { clearWide(at: x + 1, row: row) }
                    let scalars = character.unicodeScalars
                    var cell: PackedCell
                    if let only = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex {
                        cell = PackedCell(code: only.value, bits: bits)
                    } else {
                        clusters.append(String(character))
                        cell = PackedCell(code: UInt32(clusters.count - 1), bits: bits | PackedCell.clusterBit)
                    }
                    if width == 2 { cell.bits |= PackedCell.wideBit }
                    packed[base + x] = cell
                    if width == 2 { packed[base + x + 1] = PackedCell(code: 0, bits: bits) }
                }
                x += width
            }
        }
        return x - column
    }

    /// Writes one cell per code from `column` until `end`; returns the columns used.
    private mutating func putOneColumnCells(_ codes: some Sequence<UInt32>, from column: Int, to end: Int, row: Int, bits: UInt32) -> Int {
        let base = row * size.columns
        var x = column
        for code in codes {
            guard x < end else { break }
            if x >= 0 {
                if !packed[base + x].isASCII { clearWide(at: x, row: row) }
                packed[base + x] = PackedCell(code: code, bits: bits)
            }
            x += 1
        }
        return x - column
    }

    /// Copies `columns` of `sourceRow` in `source`, a frame of the same size, into `row`: the cells,
    /// and the clusters they name. The span must not cut a wide character in half.
    mutating func copyCells(of source: Frame, row sourceRow: Int, columns: Range<Int>, to row: Int) {
        let start = row * size.columns + columns.lowerBound
        let sourceStart = sourceRow * size.columns + columns.lowerBound
        packed.withUnsafeMutableBufferPointer { cells in
            source.packed.withUnsafeBufferPointer { from in
                _ = memcpy(cells.baseAddress! + start, from.baseAddress! + sourceStart, columns.count * MemoryLayout<PackedCell>.stride)
            }
        }
        guard !source.clusters.isEmpty else { return }
        for index in start..<(start + columns.count) where packed[index].isCluster {
            clusters.append(source.clusters[Int(packed[index].code)])
            packed[index].code = UInt32(clusters.count - 1)
        }
    }

    /// Copies the cell at (`column`, `row`), one column wide, down the same column into `rows` (a
    /// cluster's cells share its one entry).
    mutating func repeatCell(column: Int, row: Int, into rows: Range<Int>) {
        guard column >= 0, column < size.columns, row >= 0, row < size.rows else { return }
        guard !packed[row * size.columns + column].isWide, !packed[row * size.columns + column].isContinuation else { return }
        let cell = packed[row * size.columns + column]
        for y in max(0, rows.lowerBound)..<min(size.rows, rows.upperBound) {
            clearWide(at: column, row: y)
            packed[y * size.columns + column] = cell
        }
    }

    /// Fills a rectangle with blanks in `style`.
    public mutating func fill(row: Int, column: Int = 0, width: Int? = nil, height: Int = 1, style: Style = .normal) {
        let w = width ?? size.columns - column
        let blank = PackedCell(code: 0x20, bits: style.bits)
        let columns = max(0, column)..<min(size.columns, column + w)
        guard !columns.isEmpty else { return }
        for y in max(0, row)..<min(size.rows, row + height) {
            // Only the edges can cut a wide character in half; inside, every cell is overwritten.
            clearWide(at: columns.lowerBound, row: y)
            clearWide(at: columns.upperBound - 1, row: y)
            let base = y * size.columns
            packed.withUnsafeMutableBufferPointer { cells in
                for x in columns { cells[base + x] = blank }
            }
        }
    }

    private mutating func clearWide(at x: Int, row: Int) {
        let index = row * size.columns + x
        let cell = packed[index]
        if cell.isASCII { return }
        if cell.isContinuation, x > 0 {
            packed[index - 1] = PackedCell(code: 0x20, bits: packed[index - 1].bits & PackedCell.styleMask)
        } else if cell.isWide, x + 1 < size.columns {
            packed[index + 1] = PackedCell(code: 0x20, bits: packed[index + 1].bits & PackedCell.styleMask)
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
            var line = String.UnicodeScalarView()
            for cell in packed[(row * size.columns)..<((row + 1) * size.columns)] where !cell.isContinuation {
                if cell.isCluster {
                    line.append(contentsOf: clusters[Int(cell.code)].unicodeScalars)
                } else {
                    line.append(Unicode.Scalar(cell.code) ?? "\u{FFFD}")
                }
            }
            return String(line)
        }
    }
}
