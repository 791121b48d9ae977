import StorefrontUI

/// The bytes a careful xterm-256color encoder writes to turn one frame into the next: the yardstick
/// curses' output is measured against (`storefront-bench --stages`, the "reference B" column).
///
/// Only changed cells are written. Per changed run it picks the shortest cursor move (CUP, CUF, CR LF,
/// or reprinting the few cells between when they keep the pen), the shortest SGR from the pen it has
/// (a delta, or a reset and the full set), and erases a run of blanks that ends the row with EL and a
/// long run inside it with ECH and CUF, as back-colour erase allows.
enum ReferenceUpdate {
    /// The pen an SGR sets: a role's look, with the cell's own bold and underline added.
    typealias Pen = RoleLook

    static func digits(_ n: Int) -> Int { String(n).utf8.count }

    /// Bytes from `old` to `new`, same size, colours as `mode` draws them.
    static func bytes(from old: Frame, to new: Frame, mode: ColorMode) -> Int {
        let columns = new.size.columns
        var total = 0
        var pen: Pen? = nil
        var cursor: (row: Int, column: Int)? = nil
        for row in 0..<new.size.rows where !new.row(row, matches: old) {
            let base = row * columns
            var column = 0
            while column < columns {
                let index = base + column
                if new.cell(at: index, matches: old) || new.packed[index].isContinuation { column += 1; continue }
                let cell = new.packed[index]
                let target = Pen(cell, mode)
                // Blanks to the end of the row, all in one pen: EL, once the pen is set.
                if cell.code == 0x20, !cell.isCluster, (column..<columns).allSatisfy({ new.packed[base + $0] == cell }), columns - column > 3 {
                    total += move(from: cursor, to: (row, column), new: new, old: old, pen: pen, mode: mode)
                    total += target.sgr(from: pen) + 3
                    pen = target
                    cursor = (row, column)
                    break
                }
                total += move(from: cursor, to: (row, column), new: new, old: old, pen: pen, mode: mode)
                total += target.sgr(from: pen)
                pen = target
                // A long run of blanks inside the row: ECH then CUF past it.
                var blanks = 0
                while column + blanks < columns, new.packed[index + blanks] == cell, cell.code == 0x20, !cell.isCluster { blanks += 1 }
                let eraseCost = 3 + digits(blanks) + 3 + digits(blanks)
                if blanks > eraseCost {
                    total += eraseCost
                    column += blanks
                } else {
                    total += new.text(of: cell).utf8.count
                    column += cell.isWide ? 2 : 1
                }
                cursor = (row, column)
            }
        }
        return total
    }

    /// The shortest way from `from` to `to`: CUP, CUF, CR LF, or reprinting up to a few cells in the pen.
    static func move(from: (row: Int, column: Int)?, to: (row: Int, column: Int), new: Frame, old: Frame, pen: Pen?, mode: ColorMode) -> Int {
        let cup = 2 + digits(to.row + 1) + (to.column == 0 ? 0 : 1 + digits(to.column + 1)) + 1
        guard let from else { return cup }
        if from.row == to.row && from.column == to.column { return 0 }
        var best = cup
        if from.row == to.row, to.column > from.column {
            let gap = to.column - from.column
            best = min(best, 2 + (gap == 1 ? 0 : digits(gap)) + 1)
            // Reprinting the cells between costs their bytes when they need no SGR.
            let base = to.row * new.size.columns
            let between = (from.column..<to.column).map { new.packed[base + $0] }
            if between.allSatisfy({ $0.isASCII && Pen($0, mode) == pen }) { best = min(best, gap) }
        }
        if to.row == from.row + 1, to.column == 0 { best = min(best, 2) }
        return best
    }
}

extension RoleLook {
    /// The look of `cell`: its role's in `mode`, with the cell's own bold and underline added.
    init(_ cell: PackedCell, _ mode: ColorMode) {
        self = Theme.look(for: cell.role, in: mode)
        bold = bold || cell.isBold
        underline = underline || cell.isUnderlined
    }

    /// An SGR colour parameter: the default, one of the 8 basic colours, or one of 256.
    func colorParameter(_ value: Int16, base: Int) -> String {
        if value < 0 { return "\(base + 9)" }
        if value < 8 { return "\(base + Int(value))" }
        return "\(base + 8);5;\(value)"
    }

    /// Every parameter that sets this pen after a reset.
    var full: [String] {
        var out: [String] = []
        if bold { out.append("1") }
        if dim { out.append("2") }
        if underline { out.append("4") }
        if reverse { out.append("7") }
        if foreground >= 0 { out.append(colorParameter(foreground, base: 30)) }
        if background >= 0 { out.append(colorParameter(background, base: 40)) }
        return out
    }

    /// The shortest SGR from `old` (nil: unknown) to this pen.
    func sgr(from old: RoleLook?) -> Int {
        let reset = 2 + (["0"] + full).joined(separator: ";").utf8.count + 1
        guard let old else { return reset }
        if old == self { return 0 }
        var delta: [String] = []
        // Bold and dim share one "off" (22): turning either off turns both off.
        if (old.bold && !bold) || (old.dim && !dim) {
            delta.append("22")
            if bold { delta.append("1") }
            if dim { delta.append("2") }
        } else {
            if bold && !old.bold { delta.append("1") }
            if dim && !old.dim { delta.append("2") }
        }
        if underline != old.underline { delta.append(underline ? "4" : "24") }
        if reverse != old.reverse { delta.append(reverse ? "7" : "27") }
        if foreground != old.foreground { delta.append(colorParameter(foreground, base: 30)) }
        if background != old.background { delta.append(colorParameter(background, base: 40)) }
        return min(reset, 2 + delta.joined(separator: ";").utf8.count + 1)
    }
}
