import ShopLanguages
import ShopModels
import StorefrontCore

/// The card's bank checking a payment (3-D Secure), in place of the sheet: the amount, what to do, the bank's page
/// as a link and a QR code, and the wait.
extension Layout {
    static func drawBankCheck(_ sheet: PaymentSheetState, _ check: BankCheck, spinnerPhase: Int, _ body: BodyRect, _ p: inout Painter) {
        let column = 2
        let width = max(1, body.width - 4)
        var row = body.top
        let statusRow = body.bottom - 1
        let title = sheet.summaryItems.last.map { p.tr("Your bank wants to check the payment of \($0.amount) to \($0.label).") }
        p.put(title ?? p.tr("Your bank wants to check this payment."), column: column, row: row, style: Style(.title, bold: true), width: width)
        row += 1
        let intro = p.tr(
            "Open this link with your phone's camera or in a browser and follow your bank's steps; the shop goes on by itself when they are done. Esc cancels the payment."
        )
        for line in p.wrapped(intro, width: width) where row < statusRow - 1 {
            p.put(line, column: column, row: row, style: Style(.dim))
            row += 1
        }
        row += 1
        if !check.isCanceling {
            p.link(check.url, qrCode: check.qrCode, column: column, from: row, above: statusRow, width: width)
        }
        let spun = p.spinner(phase: spinnerPhase, column: column, row: statusRow)
        p.put(sheet.status.map { p.tr($0) } ?? "", column: column + spun, row: statusRow, style: Style(.dim), width: max(1, width - spun))
    }
}
