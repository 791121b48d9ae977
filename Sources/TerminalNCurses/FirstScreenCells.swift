import StorefrontUI

/// A frame's cells in a private sequence, for the browser front to write its page's first screen as HTML: a page that
/// starts its session shows the shop as soon as it is parsed, before any script runs. Written once, just before the
/// first screen's mark (`SessionMarks`); the web front reads it (`FirstScreenPage` in ShopWebFront), and a test pins
/// the two.
///
/// The payload, UTF-8 with no control character but its separators: `COLUMNSxROWS` RS pens RS row RS row … (one per
/// row). Pens are separated by US, each `foreground,background,flags` (a colour is -1 for the terminal's own or a
/// palette index 0–255; flags: bold 1, underline 2, reverse 4, dim 8). A row is its runs separated by US, each
/// `pen,column,cells,text`: the cells one pen draws from `column`, a wide character in a run of its own. Runs that
/// show nothing (blanks on the terminal's background) are left out.
enum FirstScreenCells {
    static let prefix = "\u{1B}]7766;storefront-first-screen-cells;"
    /// Past this many bytes the sequence is not written: the page's scripts draw the screen instead.
    static let limit = 512 * 1024
    static let rowSeparator: Character = "\u{1E}", runSeparator: Character = "\u{1F}"

    /// The sequence for `frame` as a terminal in `colorMode` shows it; nil when it would pass `limit`.
    static func sequence(of frame: Frame, colorMode: ColorMode) -> String? {
        let looks = FrameEncoder.penLooks(colorMode)
        var pens: [Int: Int] = [:]
        var penList: [String] = []
        func pen(of cell: PackedCell) -> Int {
            let index = FrameEncoder.penIndex(cell)
            if let known = pens[index] { return known }
            let look: RoleLook
            if let colors = cell.pictureColors {
                look = RoleLook(foreground: Int16(colors.foreground), background: Int16(colors.background))
            } else {
                look = looks[index]
            }
            let flags = (look.bold ? 1 : 0) | (look.underline ? 2 : 0) | (look.reverse ? 4 : 0) | (look.dim ? 8 : 0)
            pens[index] = penList.count
            penList.append("\(look.foreground),\(look.background),\(flags)")
            return penList.count - 1
        }
        var rows: [String] = []
        let columns = frame.size.columns
        for row in 0..<frame.size.rows {
            var runs: [String] = []
            var column = 0
            while column < columns {
                let first = frame.packed[row * columns + column]
                if first.isContinuation {
                    column += 1
                    continue
                }
                let runPen = pen(of: first)
                var end = column + (first.isWide ? 2 : 1)
                if !first.isWide {
                    while end < columns {
                        let next = frame.packed[row * columns + end]
                        guard !next.isWide, !next.isContinuation, FrameEncoder.penIndex(next) == FrameEncoder.penIndex(first) else { break }
                        end += 1
                    }
                }
                let look = first.pictureColors == nil ? looks[FrameEncoder.penIndex(first)] : nil
                // Blanks in a pen that shows nothing on them are left out at a run's end: the page's rows are blank.
                var shownEnd = end
                if look.map({ $0.background < 0 && !$0.reverse && !$0.underline }) ?? false {
                    while shownEnd > column, frame.packed[row * columns + shownEnd - 1].code == 0x20,
                        !frame.packed[row * columns + shownEnd - 1].isCluster
                    {
                        shownEnd -= 1
                    }
                }
                if shownEnd > column {
                    let text = frame.packed[(row * columns + column)..<(row * columns + shownEnd)].map(frame.text(of:)).joined()
                    runs.append("\(runPen),\(column),\(shownEnd - column),\(printable(text))")
                }
                column = end
            }
            rows.append(runs.joined(separator: String(runSeparator)))
        }
        let sequence =
            prefix + "\(frame.size.columns)x\(frame.size.rows)" + String(rowSeparator)
            + penList.joined(separator: String(runSeparator)) + String(rowSeparator)
            + rows.joined(separator: String(rowSeparator)) + "\u{07}"
        return sequence.utf8.count <= limit ? sequence : nil
    }

    /// `text` with any control character shown as U+FFFD: a frame holds none, but the sequence must end at its BEL.
    private static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "\u{FFFD}" : $0 }))
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) }
}
