import ShopLanguages
import ShopPorts

/// A link to open elsewhere (a card page, a bank's check): the address whole, to copy, then its QR code for a phone.
extension Painter {
    /// Draws `url` cut to `width`, then `qrCode` below it where it fits above `limit`; returns the row after them.
    @discardableResult
    mutating func link(_ url: String, qrCode: QRCode?, column: Int, from top: Int, above limit: Int, width: Int) -> Int {
        var row = top
        // Cut at the width, not at spaces: a link has none, and every character of it is needed.
        for piece in Self.chunks(of: url, width: width) where row < limit - 1 {
            put(piece, column: column, row: row, style: Style(.accent, underline: true))
            row += 1
        }
        row += 1
        guard let qrCode else { return row }
        return drawQRCode(qrCode, column: column, from: row, above: limit)
    }

    /// Draws `code` with a quiet zone, two modules a row in half blocks, where it fits between `row` and `limit`;
    /// returns the row after it. A terminal without Unicode, or too small, gets a line saying so.
    mutating func drawQRCode(_ code: QRCode, column: Int, from row: Int, above limit: Int) -> Int {
        let quiet = 2
        let side = code.size + 2 * quiet
        let rows = (side + 1) / 2
        let halfBlocks = frame.charset == .unicode
        guard halfBlocks, side <= size.columns - column, row + rows < limit else {
            if row < limit - 1 {
                let why = halfBlocks ? "a larger window" : "a Unicode terminal"
                put("The QR code needs \(why); the link above works as it is.", column: column, row: row, style: Style(.dim))
            }
            return row + 1
        }
        let style = Style(.qrCode)
        for line in 0..<rows {
            var text = ""
            for x in 0..<side {
                let top = code.isDark(row: line * 2 - quiet, column: x - quiet)
                let bottom = code.isDark(row: line * 2 + 1 - quiet, column: x - quiet)
                // The cell's colours are dark on light: the glyph draws the dark modules.
                let glyph =
                    switch (top, bottom) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                text += glyph
            }
            put(text, column: column, row: row + line, style: style, width: side)
        }
        return row + rows
    }

    /// `text` in pieces of `width` characters.
    private static func chunks(of text: String, width: Int) -> [String] {
        var pieces: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            pieces.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        }
        return pieces
    }
}
