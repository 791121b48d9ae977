import ShopLanguages
import ShopModels
import StorefrontCore

/// The thank-you screen after a payment.
extension Layout {
    static func drawConfirmation(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let confirmation = state.confirmation else { return }
        let column = 2
        let width = body.width - 4
        var row = body.top + (body.height >= 12 ? 1 : 0)
        p.put("\(p.glyphs.check) " + p.tr("Thank you!"), column: column, row: row, style: Style(.success, bold: true))
        row += 1
        p.put(p.tr("Order \(confirmation.orderNumber) is paid."), column: column, row: row, style: Style(.title, bold: true), width: width)
        row += body.height >= 10 ? 2 : 1
        let count = confirmation.itemCount
        let details: [(String, String)] =
            [
                (
                    p.tr("Total"),
                    p.tr(
                        .plural(
                            "\(confirmation.total) for \(count) item", "\(confirmation.total) for \(count) items", count: count))
                ),
                (p.tr("Paid with"), confirmation.paymentDescription),
                (p.tr("Shipping"), confirmation.shippingMethodLabel),
                (p.tr("Ship to"), confirmation.shipTo),
            ] + (confirmation.subscription.map { [(p.tr("Repeats"), p.tr($0))] } ?? [])
        let labelWidth = min(width / 3, (details.map { p.width($0.0) }.max() ?? 0) + 2)
        for (label, value) in details where row < body.bottom {
            p.put(label, column: column, row: row, style: Style(.dim), width: labelWidth)
            p.put(value, column: column + labelWidth, row: row, width: width - labelWidth)
            row += 1
        }
    }
}
