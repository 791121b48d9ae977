import Foundation

/// A session's first screen written into its page as HTML, from the cells its shop wrote with its word that the screen
/// is whole (TerminalNCurses' `FirstScreenCells`): the browser paints the shop as it parses the page, before any
/// script runs. connect.js's preview takes over at the first byte the socket brings, xterm.js after it.
///
/// The payload is checked whole, every number bounded before it is used: a payload not as written gives no HTML, and
/// the page's scripts draw the screen from its bytes as before. Colours are classes of `style` (the page's policy allows
/// no inline style), the palette xterm.js and preview.js draw with.
enum WebFirstScreen {
    private static let rowSeparator: UInt8 = 0x1E, runSeparator: UInt8 = 0x1F

    /// The screen's rows as HTML, for a page at `size`; nil for a payload of another size, or one not as written.
    static func html(_ payload: [UInt8], size: (columns: Int, rows: Int)) -> String? {
        guard payload.count <= FrameMarks.cellsLimit, let text = String(validating: payload, as: UTF8.self) else { return nil }
        let parts = text.utf8.split(separator: rowSeparator, omittingEmptySubsequences: false)
        guard parts.count == size.rows + 2, let head = String(parts[0]), head == "\(size.columns)x\(size.rows)" else { return nil }
        let penTexts = parts[1].split(separator: runSeparator, omittingEmptySubsequences: false)
        guard penTexts.count <= size.columns * size.rows + 1 else { return nil }
        var pens: [String] = []
        pens.reserveCapacity(penTexts.count)
        for pen in penTexts {
            guard let classes = String(pen).flatMap(classes(ofPen:)) else { return nil }
            pens.append(classes)
        }
        var html = #"<div id="first-screen" aria-hidden="true">"#
        html.reserveCapacity(payload.count * 2)
        for row in parts[2...] {
            html += "<div>"
            var end = 0
            if !row.isEmpty {
                for run in row.split(separator: runSeparator, omittingEmptySubsequences: false) {
                    guard let placed = Run(run, columns: size.columns, pens: pens.count), placed.column >= end else { return nil }
                    html += String(repeating: " ", count: placed.column - end)
                    let classes = pens[placed.pen] + (placed.isWide ? " w2" : "")
                    let shown = WebPage.escaped(placed.text)
                    html += classes.isEmpty ? shown : #"<span class=""# + classes.trimmingCharacters(in: .whitespaces) + #"">"# + shown + "</span>"
                    end = placed.column + placed.cells
                }
            }
            html += "</div>"
        }
        return html + "</div>\n"
    }

    /// One run of a row: `pen,column,cells,text`, within the row and the pens, its text as many characters as its cells
    /// (or one character two cells wide) with no control character.
    private struct Run {
        let pen: Int, column: Int, cells: Int
        let text: String
        let isWide: Bool

        init?(_ bytes: Substring.UTF8View.SubSequence, columns: Int, pens: Int) {
            let fields = bytes.split(separator: UInt8(ascii: ","), maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let pen = Self.number(fields[0], below: pens), let column = Self.number(fields[1], below: columns),
                let cells = Self.number(fields[2], below: columns - column + 1), cells > 0, let text = String(fields[3]),
                !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            else { return nil }
            let count = text.count
            guard count == cells || (count == 1 && cells == 2) else { return nil }
            (self.pen, self.column, self.cells, self.text, isWide) = (pen, column, cells, text, count != cells)
        }

        /// A decimal of at most six digits below `bound`.
        static func number(_ digits: Substring.UTF8View.SubSequence, below bound: Int) -> Int? {
            guard (1...6).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = String(digits).flatMap({ Int($0) }), value < bound
            else { return nil }
            return value
        }
    }

    /// A pen's classes, as preview.js styles a span: `foreground,background,flags` (colours -1 or 0–255, flags below
    /// 16); a bold basic colour shows bright, and reverse swaps the two (the terminal's own becoming the other's).
    static func classes(ofPen pen: String) -> String? {
        let fields = pen.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 3, let foreground = Int(fields[0]), let background = Int(fields[1]), let flags = Int(fields[2]),
            (-1...255).contains(foreground), (-1...255).contains(background), (0..<16).contains(flags)
        else { return nil }
        let bold = flags & 1 != 0
        let underline = flags & 2 != 0
        let reverse = flags & 4 != 0
        let dim = flags & 8 != 0
        let shownForeground = foreground >= 0 && foreground < 8 && bold ? foreground + 8 : foreground
        var classes: [String] = []
        if reverse {
            classes.append(background < 0 ? "fx" : "f\(background)")
            classes.append(shownForeground < 0 ? "bx" : "b\(shownForeground)")
        } else {
            if shownForeground >= 0 { classes.append("f\(shownForeground)") }
            if background >= 0 { classes.append("b\(background)") }
        }
        if bold { classes.append("B") }
        if underline { classes.append("U") }
        if dim { classes.append("D") }
        return classes.joined(separator: " ")
    }

    /// The terminal's own colours, as storefront.css and preview.js have them.
    static let foreground = "#e6e6e6", background = "#101010"

    /// xterm.js 4's 256 colours, as preview.js makes them.
    static let palette: [String] = {
        let base = [
            "#2e3436", "#cc0000", "#4e9a06", "#c4a000", "#3465a4", "#75507b", "#06989a", "#d3d7cf",
            "#555753", "#ef2929", "#8ae234", "#fce94f", "#729fcf", "#ad7fa8", "#34e2e2", "#eeeeec",
        ]
        let levels = [0, 95, 135, 175, 215, 255]
        func hex(_ red: Int, _ green: Int, _ blue: Int) -> String { "#" + [red, green, blue].map { String(format: "%02x", $0) }.joined() }
        let cube = (16..<232).map { hex(levels[($0 - 16) / 36], levels[(($0 - 16) / 6) % 6], levels[($0 - 16) % 6]) }
        let greys = (0..<24).map { hex(8 + $0 * 10, 8 + $0 * 10, 8 + $0 * 10) }
        return base + cube + greys
    }()

    /// The first screen's style: its layer where preview.js puts its own (over the terminal's box, inside its 4-pixel
    /// padding), rows a whole number of pixels high as connect.js measures a cell, and a class for each colour.
    static let style: String = {
        var style =
            "#first-screen{position:absolute;left:4px;top:4px;right:4px;z-index:5;overflow:hidden;white-space:pre;"
            + "font-family:\(WebPage.terminalFontFamily);font-size:15px;line-height:normal;color:\(foreground);background:\(background)}"
            + "#first-screen>div{line-height:round(up,1lh,1px);height:1lh;overflow:hidden}"
            + "#first-screen .w2{display:inline-block;width:2ch}"
            + "#first-screen .B{font-weight:bold}#first-screen .U{text-decoration:underline}#first-screen .D{opacity:.5}"
            + ".fx{color:\(background)}.bx{background:\(foreground)}"
        for (index, colour) in palette.enumerated() { style += ".f\(index){color:\(colour)}.b\(index){background:\(colour)}" }
        return style
    }()
}
