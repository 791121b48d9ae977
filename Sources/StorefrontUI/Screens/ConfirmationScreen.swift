import ShopModels
import StorefrontCore

/// The thank-you screen after a payment.
extension Layout {
    static func drawConfirmation(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let confirmation = state.confirmation else { return }
        let column = 2
        let width = body.width - 4
        var row = body.top + (body.height >= 12 ? 1 : 0)
        p.put("\(p.glyphs.check) Thank you!", column: column, row: row, style: Style(.success, bold: true))
        row += 1
        p.put("Order \(confirmation.orderNumber) is paid.", column: column, row: row, style: Style(.title, bold: true), width: width)
        row += body.height >= 10 ? 2 : 1
        let details: [(String, String)] =
            [
                ("Total", "\(confirmation.total.formatted) for \(confirmation.itemCount) item\(confirmation.itemCount == 1 ? "" : "s")"),
                ("Paid with", confirmation.paymentDescription),
                ("Shipping", confirmation.shippingMethodLabel),
                ("Ship to", confirmation.shipTo),
            ] + (confirmation.subscription.map { [("Repeats", $0)] } ?? [])
        for (label, value) in details where row < body.bottom {
            p.put(label, column: column, row: row, style: Style(.dim), width: 11)
            p.put(value, column: column + 11, row: row, width: width - 11)
            row += 1
        }
    }
}
