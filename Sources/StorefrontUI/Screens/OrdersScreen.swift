import Foundation
import ShopLanguages
import ShopModels
import StorefrontCore

/// The order list and one order's detail.
extension Layout {
    static func drawOrders(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let orders = state.orders
        guard orders.totalCount > 0 else {
            p.put(p.tr("No orders yet."), column: 2, row: body.top + 1, style: Style(.title, bold: true))
            p.put(p.tr("Orders you place appear here, newest first."), column: 2, row: body.top + 2, style: Style(.dim))
            return
        }
        let width = min(body.width - 2, 96)
        let left = 1
        let end = left + width
        let showsDate = width >= 64
        p.put(p.tr("Order"), column: left + 2, row: body.top, style: Style(.dim))
        if showsDate { p.put(p.tr("Placed (UTC)"), column: left + 16, row: body.top, style: Style(.dim)) }
        p.putRight(p.tr("Status"), end: end - 13, row: body.top, style: Style(.dim))
        p.putRight(p.tr("Total"), end: end, row: body.top, style: Style(.dim))
        for (offset, order) in orders.rows.prefix(body.height - 1).enumerated() {
            let row = body.top + 1 + offset
            let isSelected = orders.windowStart + offset == orders.selectedIndex
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: orders.windowStart + offset - orders.selectedIndex)
            p.put(order.number, column: left + 2, row: row, style: style, width: 13)
            if showsDate { p.put(p.minute(order.placedAt), column: left + 16, row: row, style: style) }
            p.putRight(p.tr(order.status.shopperName), end: end - 13, row: row, style: isSelected ? style : statusStyle(order.status))
            p.putRight(p.money(order.totals.total), end: end, row: row, style: isSelected ? style : Style(.price))
        }
    }

    static func drawOrderDetail(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let order = state.orderDetail else { return }
        let column = 2
        let width = min(body.width - 4, 90)
        var row = body.top
        p.putSpread(
            "\(p.tr(order.status.shopperName)) \(p.glyphs.separator) \(p.minute(order.placedAt)) UTC", order.paymentDescription, column: column,
            row: row,
            width: width, leftStyle: statusStyle(order.status))
        row += 1
        p.put(p.tr("\(order.shippingMethodLabel) to \(order.shipTo)"), column: column, row: row, style: Style(.dim), width: width)
        row += 2
        let refunded = (try? OrderLifecycle.rebuilt(from: state.orderDetailEvents))?.refunded
        let totals = totalsRows(order, refunded: refunded, p)
        let totalsRows = totals.count
        let room = max(0, body.bottom - row - totalsRows)
        for line in order.lines.prefix(room) {
            p.putSpread("\(line.quantity) \(p.glyphs.separator) \(line.name)", p.money(line.total), column: column, row: row, width: width)
            row += 1
        }
        // The history fills what the lines leave above the totals, its newest events kept; the receipt's line under it.
        let receipt = state.orderDetailMessages.first { $0.kind == .receipt }
        let historyRoom = body.bottom - totalsRows - row - 2 - (receipt == nil ? 0 : 1)
        if !state.orderDetailEvents.isEmpty, historyRoom >= 1 {
            row += 1
            for event in state.orderDetailEvents.suffix(historyRoom) {
                p.put("\(p.minute(event.at))  \(p.tr(event.change.shopperWords))", column: column, row: row, style: Style(.dim), width: width)
                row += 1
            }
        }
        if let receipt, row < body.bottom - totalsRows - 1 {
            let (text, style): (String, Style) =
                switch receipt.state {
                case .sent: (p.tr("Receipt sent to \(receipt.recipient.address)"), Style(.success))
                case .pending: (p.tr("Receipt waiting to be sent to \(receipt.recipient.address)"), Style(.dim))
                case .failed: (p.tr("The receipt could not be sent to \(receipt.recipient.address)"), Style(.error))
                }
            p.put(text, column: column, row: row, style: style, width: width)
            row += 1
        }
        row = max(row, body.bottom - totalsRows)
        drawTotals(totals, column: column, row: row, width: width, bottom: body.bottom, &p)
        if let step = state.orderCancel {
            let back = refunded.map { order.totals.total - $0 } ?? order.totals.total
            let lines = [
                p.tr("Cancel order \(order.number)?"), p.tr("\(back) goes back to \(order.paymentDescription), and nothing is sent."),
            ]
            p.promptBox(
                lines, title: p.tr("Cancel order"), isWorking: step == .canceling, spinnerPhase: state.spinnerPhase, bottom: body.bottom,
                width: body.width)
        }
    }

    /// An order's totals, then what was refunded and what is left, once anything was.
    static func totalsRows(_ order: Order, refunded: Money?, _ p: Painter) -> [(String, Money, Style)] {
        let totals = order.totals
        let discount = order.discount.map { [(p.tr("Discount \($0.code)"), .zero($0.currency) - $0.total, Style.normal)] } ?? []
        var rows: [(String, Money, Style)] =
            [(p.tr("Subtotal"), totals.subtotal, .normal)] + discount + [
                (p.tr("Shipping"), totals.shipping, .normal), (p.tr(order.taxCharged.summaryWords), totals.tax, .normal),
                (p.tr("Total"), totals.total, Style(.price, bold: true)),
            ]
        if let refunded, refunded.minorUnits > 0 {
            rows += [
                (p.tr("Refunded"), Money(minorUnits: -refunded.minorUnits, currency: refunded.currency), .normal),
                (p.tr("Net"), totals.total - refunded, Style(.price, bold: true)),
            ]
        }
        return rows
    }

    static func drawTotals(_ rows: [(String, Money, Style)], column: Int, row start: Int, width: Int, bottom: Int, _ p: inout Painter) {
        var row = start
        for (label, amount, style) in rows where row < bottom {
            p.putSpread(label, p.money(amount), column: column, row: row, width: width, leftStyle: style, rightStyle: style)
            row += 1
        }
    }

    static func statusStyle(_ status: OrderStatus) -> Style {
        switch status {
        case .paid, .shipped, .delivered: Style(.success)
        case .declined, .voided, .unknown, .charging: Style(.error)
        case .canceled, .refunded, .partiallyRefunded: Style(.dim)
        }
    }

    /// "2026-11-22 14:05", always UTC so frames do not depend on the machine's zone.
    public static func timestamp(_ date: Date) -> String {
        UTCTime(date).minutes
    }
}
