import StorefrontUI

/// Turns one frame into the next as the bytes an ANSI terminal needs, and no more: what the shop writes
/// instead of asking curses to work the change out again.
///
/// Only changed cells are written. Per change it picks the shortest cursor move (CUP, CUF, CR LF, or
/// reprinting the few unchanged cells between when they keep the pen), the shortest SGR from the pen the
/// terminal has (a delta, or a reset and the full set), and erases a run of blanks that ends the row with EL
/// and a long run inside it with ECH, where the terminal erases in that pen.
///
/// Order of calls: `encode(from:to:)` per frame, then write `output` out; `forget()` when something else
/// may have moved the cursor or changed the pen.
struct FrameEncoder {
    let dialect: AnsiDialect
    /// Columns the C library gives a scalar (`wcwidth`), -1 for one it does not know: a cell measured otherwise
    /// is written in pieces, as curses would, so the terminal's cursor ends where the frame's does.
    /// Each scalar is asked once (`ScalarWidths`).
    let width: (UInt32) -> Int
    /// The bytes of the last `encode`.
    /// Written only by the encoder and its extensions.
    var output: [UInt8] = []
    /// Each pen's look, indexed as `penIndex` numbers them.
    private let looks: [RoleLook]
    /// Blanks in this pen look the same erased as written.
    private let erasable: [Bool]
    /// The shortest SGR from one pen to another, shared by every encoder of this colour mode.
    private let transitions: PenTransitions
    /// The pictures drawn as pixels on the terminal now, each where its slot is.
    var placedPictures: Set<PictureSlot> = []
    /// The images this terminal holds by id (kitty's protocol), by the picture's digest: sent once, placed again.
    var kittyImages: [String: UInt32] = [:]
    /// The pen and cursor the terminal has now; nil when not known.
    private var pen: Int?
    private var cursor: (row: Int, column: Int)?

    /// Whether each frame's bytes come between the marks of synchronized output (DEC mode 2026): a terminal that
    /// knows the mode shows the frame whole, one that does not ignores them, and the browser front finds a session's
    /// first frame by its closing mark.
    let marksFrames: Bool
    /// The variable that asks for the marks (`1`); the browser front sets it for its sessions.
    static let synchronizedOutputVariable = "STOREFRONT_SYNCHRONIZED_OUTPUT"
    static let frameBegins = Array("\u{1B}[?2026h".utf8), frameEnds = Array("\u{1B}[?2026l".utf8)

    init(dialect: AnsiDialect, marksFrames: Bool = false, width: @escaping (UInt32) -> Int) {
        self.dialect = dialect
        self.marksFrames = marksFrames
        self.width = ScalarWidths(width).width(of:)
        looks = Self.penLooks(dialect.colorMode)
        erasable = looks.map { !$0.underline && !$0.reverse && ($0.background < 0 || dialect.erasesInBackground) }
        transitions = PenTransitions.of(dialect.colorMode)
    }

    /// Every pen's look in `mode`, indexed as `penIndex` numbers them: a role's look, with bold and underline added.
    static func penLooks(_ mode: ColorMode) -> [RoleLook] {
        StyleRole.allCases.flatMap { role in
            (0..<4).map { extra in
                var look = Theme.look(for: role, in: mode)
                look.bold = look.bold || extra & 2 != 0
                look.underline = look.underline || extra & 1 != 0
                return look
            }
        }
    }

    /// The pen a cell is drawn in: its role, with its own bold and underline; a picture's cell, its own two colours
    /// (`picturePens` on).
    static func penIndex(_ cell: PackedCell) -> Int {
        if let colors = cell.pictureColors { return picturePens + Int(colors.foreground) << 8 + Int(colors.background) }
        return Int(cell.role.rawValue) * 4 + (cell.isBold ? 2 : 0) + (cell.isUnderlined ? 1 : 0)
    }

    /// Pens from here on are a picture's colours, foreground × 256 + background, past every role's pen.
    static let picturePens = 1 << 20

    /// The look of a role's pen; nil for a picture's.
    private func look(_ pen: Int) -> RoleLook? { pen < Self.picturePens ? looks[pen] : nil }

    /// Something else wrote to the terminal: the next frame sets the pen and moves the cursor from scratch.
    mutating func forget() {
        pen = nil
        cursor = nil
    }

    /// `encode(from:to:)` with the old frame lent from where its screen keeps it: read through the screen's property, it
    /// was copied whole at every frame.
    static func encode(_ encoder: inout FrameEncoder, from old: inout Frame?, to new: Frame) {
        encoder.encode(from: old, to: new)
    }

    /// Fills `output` with the bytes that turn `old` (nil: a screen in an unknown state) into `new`: its cells, and its
    /// pictures' pixels where the terminal draws them (`FrameEncoder+Pictures`).
    mutating func encode(from old: Frame?, to new: Frame) {
        let erasing = pictureErasure(from: old, to: new)
        if !erasing.isEmpty { forget() }
        encodeCells(from: old, to: new)
        output.insert(contentsOf: erasing, at: 0)
        appendPictures(of: new)
        if marksFrames, !output.isEmpty {
            output.insert(contentsOf: Self.frameBegins, at: 0)
            output.append(contentsOf: Self.frameEnds)
        }
    }

    /// Whether `environment` asks for synchronized output's marks around every frame.
    static func marksFrames(in environment: [String: String]) -> Bool { environment[synchronizedOutputVariable] == "1" }

    /// Fills `output` with the bytes that turn `old`'s cells into `new`'s.
    private mutating func encodeCells(from old: Frame?, to new: Frame) {
        output.removeAll(keepingCapacity: true)
        // The old frame is compared where it is: kept in a variable of its own, it was copied (every array in it
        // retained) at every frame.
        if let old, old.size == new.size { return encodeCells(against: old, to: new) }
        // A full repaint: reset and clear, then only what is not blank.
        output.append(contentsOf: dialect.resetAndClear)
        pen = 0
        cursor = (0, 0)
        encodeRows(from: Frame(size: new.size, charset: new.charset), to: new)
    }

    /// `encodeCells` for an old frame of the new one's size: its rows, or a band of them moved by the terminal.
    private mutating func encodeCells(against previous: Frame, to new: Frame) {
        // A band of rows that moved (a scrolled list) may cost less moved by the terminal than drawn again.
        guard dialect.movesLines, let band = new.scrollBand(from: previous) else {
            encodeRows(from: previous, to: new)
            return
        }
        let start = (pen, cursor)
        var moved = previous
        moved.scroll(band.rows, by: band.offset)
        scroll(band.rows, by: band.offset)
        encodeRows(from: moved, to: new)
        let movedOutput = output
        let movedState = (pen, cursor)
        output.removeAll(keepingCapacity: true)
        (pen, cursor) = start
        // Drawing the rows again is kept when it is no longer; it is given up as soon as it is, which for
        // a scrolled list is within its first rows, so the two are compared without drawing every row.
        if encodeRows(from: previous, to: new, givingUpPast: movedOutput.count) { return }
        output = movedOutput
        (pen, cursor) = movedState
    }

    /// Moves rows `band` by `offset` on the terminal, with line deletion and insertion (which need no scroll
    /// region, so nothing outside the band moves); the rows left behind come in blank.
    private mutating func scroll(_ band: ClosedRange<Int>, by offset: Int) {
        // Inserted lines take the pen's background.
        if pen.map({ look($0)?.background ?? 0 >= 0 }) ?? true { setPen(0) }
        let count = abs(offset)
        // Up: delete at the top of the band, insert below it. Down: delete at its bottom, insert at its top.
        // Both, even at the frame's last row: a terminal taller than the largest frame has rows below it.
        let deleteAt = offset < 0 ? band.lowerBound : band.upperBound - count + 1
        let insertAt = offset < 0 ? band.upperBound - count + 1 : band.lowerBound
        lineCommand(at: deleteAt, count: count, final: 0x4D)
        lineCommand(at: insertAt, count: count, final: 0x4C)
    }

    /// IL or DL `count` lines at `row`; both leave the cursor at the row's first column.
    private mutating func lineCommand(at row: Int, count: Int, final: UInt8) {
        if cursor.map({ $0.row != row || $0.column != 0 }) ?? true { cup((row, 0)) }
        appendCSI()
        if count != 1 { appendDecimal(count) }
        output.append(final)
        cursor = (row, 0)
    }

    /// Appends the bytes for every row of `new` that differs from `previous`; stops, returning false,
    /// once the output is longer than `limit` bytes.
    @discardableResult
    private mutating func encodeRows(from previous: Frame, to new: Frame, givingUpPast limit: Int = .max) -> Bool {
        let columns = new.size.columns
        return new.packed.withUnsafeBufferPointer { cells in
            for row in 0..<new.size.rows where !new.row(row, matches: previous) {
                if output.count > limit { return false }
                let base = row * columns
                // Past the row's last change every cell would be passed over: the walk ends there.
                var end = columns
                while end > 0, new.cell(at: base + end - 1, matches: previous) { end -= 1 }
                var column = 0
                while column < end {
                    let index = base + column
                    let cell = cells[index]
                    if cell.isContinuation || new.cell(at: index, matches: previous) {
                        column += 1
                        continue
                    }
                    let target = Self.penIndex(cell)
                    if cell.code == 0x20, !cell.isCluster, target < Self.picturePens, erasable[target] {
                        var run = 1
                        var changed = 1
                        while column + run < columns, cells[index + run] == cell {
                            if !new.cell(at: index + run, matches: previous) { changed += 1 }
                            run += 1
                        }
                        // Blanks to the end of the row: EL, once the pen is set.
                        if column + run == columns, run > 3 {
                            moveCursor(to: (row, column), in: cells, columns: columns)
                            setPen(target)
                            output.append(contentsOf: [0x1B, 0x5B, 0x4B])
                            break
                        }
                        // A run inside the row with more changed blanks than ECH's bytes: ECH, and the next change
                        // moves past it.
                        if dialect.erasesCharacters, changed > 3 + Self.digits(run) {
                            moveCursor(to: (row, column), in: cells, columns: columns)
                            setPen(target)
                            appendCSI()
                            appendDecimal(run)
                            output.append(0x58)
                            column += run
                            continue
                        }
                    }
                    moveCursor(to: (row, column), in: cells, columns: columns)
                    // A blank shows only its background: any pen with the same draws it.
                    let blankAlike = pen.flatMap(look).map { current in look(target).map(current.drawsBlanksAs) ?? false } ?? false
                    if !(cell.code == 0x20 && !cell.isCluster && blankAlike) {
                        setPen(target)
                    }
                    let span = cell.isWide ? 2 : 1
                    appendText(of: cell, in: new, span: span)
                    column += span
                    // Past the last column the terminal waits to wrap (or, without auto margins, stays on it): only
                    // CR or an address is sure to land where meant, so the cursor is kept as "the row's end".
                    cursor = (row, min(column, columns))
                }
            }
            return output.count <= limit
        }
    }

    // MARK: - Cursor

    /// Moves the cursor the shortest way: CUP, CUF, CR LF, or reprinting unchanged cells in the pen.
    private mutating func moveCursor(to target: (row: Int, column: Int), in cells: UnsafeBufferPointer<PackedCell>, columns: Int) {
        let cupCost = target == (0, 0) ? 3 : 2 + Self.digits(target.row + 1) + (target.column == 0 ? 0 : 1 + Self.digits(target.column + 1)) + 1
        guard let from = cursor else { return cup(target) }
        if from.row == target.row && from.column == target.column { return }
        // CR LF works from the row's end too: CR cancels a pending wrap.
        if target.row == from.row + 1, target.column == 0 {
            output.append(contentsOf: [0x0D, 0x0A])
            cursor = target
            return
        }
        guard from.row == target.row, target.column > from.column, from.column < columns else { return cup(target) }
        let gap = target.column - from.column
        let forwardCost = dialect.movesForward ? 2 + (gap == 1 ? 0 : Self.digits(gap)) + 1 : Int.max
        if gap < min(cupCost, forwardCost), let pen {
            let base = target.row * columns
            if (from.column..<target.column).allSatisfy({ Self.reprints(cells[base + $0], in: pen, looks: looks) }) {
                for column in from.column..<target.column { output.append(UInt8(truncatingIfNeeded: cells[base + column].code)) }
                cursor = target
                return
            }
        }
        guard forwardCost < cupCost else { return cup(target) }
        appendCSI()
        if gap != 1 { appendDecimal(gap) }
        output.append(0x43)
        cursor = target
    }

    /// True when writing `cell` again in `pen` leaves the screen as it is.
    private static func reprints(_ cell: PackedCell, in pen: Int, looks: [RoleLook]) -> Bool {
        guard cell.isASCII else { return false }
        let own = penIndex(cell)
        if own == pen { return true }
        guard pen < picturePens, own < picturePens else { return false }
        return cell.code == 0x20 && looks[pen].drawsBlanksAs(looks[own])
    }

    private mutating func cup(_ target: (row: Int, column: Int)) {
        appendCSI()
        // Row and column default to 1: "\e[H" is home, "\e[5H" the fifth row's start.
        if target != (0, 0) { appendDecimal(target.row + 1) }
        if target.column != 0 {
            output.append(0x3B)
            appendDecimal(target.column + 1)
        }
        output.append(0x48)
        cursor = target
    }

    // MARK: - Pen

    private mutating func setPen(_ target: Int) {
        if pen == target { return }
        defer { pen = target }
        guard target >= Self.picturePens else {
            // From a picture's colours, as from an unknown pen: the role's look in full.
            output.append(contentsOf: transitions.sequence(from: pen.flatMap { $0 < Self.picturePens ? $0 : nil }, to: target))
            return
        }
        appendPictureSGR(target - Self.picturePens, from: pen.flatMap { $0 >= Self.picturePens ? $0 - Self.picturePens : nil })
    }
}
