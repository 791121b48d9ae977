import ShopLanguages
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
        let intro = p.tr(
            "Open this link with your phone's camera or in a browser, and add your card there. The card number goes to the payment service only; this shop never sees it."
        )
        for line in p.wrapped(intro, width: width) where row < statusRow - 1 {
            p.put(line, column: column, row: row, style: Style(.dim))
            row += 1
        }
        row += 1
        if let url = link.url, link.phase == .waiting || link.phase == .saving {
            p.link(url, qrCode: link.qrCode, column: column, from: row, above: statusRow, width: width)
        }
        drawCardLinkStatus(link, phase: state.spinnerPhase, column: column, row: statusRow, width: width, &p)
    }

    private static func drawCardLinkStatus(_ link: CardLinkState, phase: Int, column: Int, row: Int, width: Int, _ p: inout Painter) {
        var column = column
        let text: String
        var style = Style(.dim)
        switch link.phase {
        case .opening: text = p.tr("Opening the card page\(p.glyphs.ellipsis)")
        case .waiting: text = p.tr("Waiting for you to finish on the card page\(p.glyphs.ellipsis)")
        case .saving: text = p.tr("Saving your card\(p.glyphs.ellipsis)")
        case .expired:
            text = p.tr("This link expired. Enter makes a new one.")
            style = Style(.error, bold: true)
        case .failed(let why):
            text = p.tr("\(why) Enter tries again.")
            style = Style(.error, bold: true)
        }
        if link.isBusy {
            column += p.spinner(phase: phase, column: column, row: row)
        }
        p.put(text, column: column, row: row, style: style, width: max(1, width - (column - 2)))
    }
}
