import ShopModels
import ShopPorts
import StorefrontCore

/// The payment service's card page: what to do, the link as text, its QR code where it fits, and how it stands.
extension Layout {
    static func drawCardLink(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let link = state.cardLink else { return }
        let column = 2
        let width = max(1, body.width - 4)
        var row = body.top
        let statusRow = body.bottom - 1
        let intro = "Open this link with your phone's camera or in a browser, and add your card there. The card number goes to the payment service only; this shop never sees it."
        for line in p.wrapped(intro, width: width) where row < statusRow - 1 {
            p.put(line, column: column, row: row, style: Style(.dim))
            row += 1
        }
        row += 1
        if let url = link.url, link.phase == .waiting || link.phase == .saving {
            // Cut at the width, not at spaces: a link has none, and every character of it is needed.
            for piece in chunks(of: url, width: width) where row < statusRow - 1 {
                p.put(piece, column: column, row: row, style: Style(.accent, underline: true))
                row += 1
            }
            row += 1
            if let code = link.qrCode {
                row = drawQRCode(code, column: column, from: row, above: statusRow, &p)
            }
        }
        drawCardLinkStatus(link, phase: state.spinnerPhase, column: column, row: statusRow, width: width, &p)
    }

    private static func drawCardLinkStatus(_ link: CardLinkState, phase: Int, column: Int, row: Int, width: Int, _ p: inout Painter) {
        var column = column
        let text: String
        var style = Style(.dim)
        switch link.phase {
        case .opening: text = "Opening the card page\(p.glyphs.ellipsis)"
        case .waiting: text = "Waiting for you to finish on the card page\(p.glyphs.ellipsis)"
        case .saving: text = "Saving your card\(p.glyphs.ellipsis)"
        case .expired:
            text = "This link expired. Enter makes a new one."
            style = Style(.error, bold: true)
        case .failed(let why):
            text = "\(why) Enter tries again."
            style = Style(.error, bold: true)
        }
        if link.phase == .opening || link.phase == .waiting || link.phase == .saving {
            column += p.spinner(phase: phase, column: column, row: row)
        }
        p.put(text, column: column, row: row, style: style, width: max(1, width - (column - 2)))
    }

    /// Draws `code` with a quiet zone, two modules a row in half blocks, where it fits between `row` and `limit`;
    /// returns the row after it. A terminal without Unicode, or too small, gets a line saying so.
    private static func drawQRCode(_ code: QRCode, column: Int, from row: Int, above limit: Int, _ p: inout Painter) -> Int {
        let quiet = 2
        let side = code.size + 2 * quiet
        let rows = (side + 1) / 2
        guard p.glyphs.spinner.count > 4, side <= p.size.columns - column, row + rows < limit else {
            if row < limit - 1 {
                let why = p.glyphs.spinner.count > 4 ? "a larger window" : "a Unicode terminal"
                p.put("The QR code needs \(why); the link above works as it is.", column: column, row: row, style: Style(.dim))
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
                let glyph = switch (top, bottom) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
                text += glyph
            }
            p.put(text, column: column, row: row + line, style: style, width: side)
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
