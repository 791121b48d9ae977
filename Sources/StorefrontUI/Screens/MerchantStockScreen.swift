import Foundation
import ShopLanguages
import ShopModels
import ShopPorts
import StorefrontCore

/// The merchant console's refund choice, stock list and sales summary.
extension Layout {
    static func drawMerchantRefund(_ state: StorefrontState, _ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        guard let draft = console.refund else { return }
        let width = min(body.width - 4, 90)
        let column = 2
        p.put(
            "Choose how many of each line to refund; up to \(draft.refundable.formatted) is left.", column: column, row: body.top, style: Style(.dim),
            width: width)
        var row = body.top + 2
        for (index, line) in draft.order.lines.enumerated() where row < body.bottom - 3 {
            let style = p.selectableRow(row: row, band: 1, width: width + 1, fromSelected: index - draft.selectedIndex, opens: false)
            let chosen = draft.quantities[index]
            let back = min(chosen, draft.restockable[line.stockKey] ?? 0)
            p.put("\(chosen) of \(line.quantity) \(p.glyphs.separator) \(line.name)", column: column + 1, row: row, style: style, width: width - 24)
            let note = draft.restock && back > 0 ? "\(back) back in stock" : ""
            p.putRight(note, end: column + width - 12, row: row, style: index == draft.selectedIndex ? style : Style(.dim))
            p.putRight(line.unitPrice.formatted, end: column + width, row: row, style: index == draft.selectedIndex ? style : Style(.price))
            row += 1
        }
        row += 1
        p.putSpread("The lines with their tax", draft.amount.formatted, column: column, row: row, width: width, rightStyle: Style(.price, bold: true))
        p.putSpread(
            "Put back in stock", draft.restock ? "yes" : "no", column: column, row: row + 1, width: width,
            rightStyle: draft.restock ? Style(.success) : Style(.dim))
        if let prompt = console.prompt {
            p.promptBox(
                prompt.lines, title: "Confirm", isWorking: prompt.isWorking, spinnerPhase: state.spinnerPhase, bottom: body.bottom, width: body.width)
        }
    }

    static func drawMerchantStock(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        let stock = console.stock
        let rows = stock.shown
        // Wide enough for a variant's whole name ("Compile-Time Coffee — Espresso · 1 kg (withdrawn)") from 100 columns.
        let width = min(body.width - 2, 130)
        let (left, end) = (1, 1 + width)
        guard !rows.isEmpty else {
            let empty =
                stock.isLoading ? "Reading the stock…" : stock.isLowOnly ? "Nothing is at or under \(stock.lowThreshold) on hand." : "No products."
            p.put(empty, column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        p.put("Product", column: left + 2, row: body.top, style: Style(.dim))
        p.putRight("On hand", end: end - 22, row: body.top, style: Style(.dim))
        p.putRight("Reserved", end: end - 11, row: body.top, style: Style(.dim))
        p.putRight("Sold", end: end, row: body.top, style: Style(.dim))
        let capacity = max(1, body.height - 1)
        let start = ListSelection.windowStart(selected: stock.selectedIndex, capacity: capacity, total: rows.count)
        for (offset, level) in rows[start...].prefix(capacity).enumerated() {
            let row = body.top + 1 + offset
            let index = start + offset
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: index - stock.selectedIndex, opens: false)
            let isSelected = index == stock.selectedIndex
            p.put(level.name, column: left + 2, row: row, style: style, width: max(0, width - 36))
            let low = level.onHand <= stock.lowThreshold
            p.putRight(String(level.onHand), end: end - 22, row: row, style: isSelected ? style : low ? Style(.error, bold: true) : .normal)
            p.putRight(String(level.reserved), end: end - 11, row: row, style: isSelected ? style : Style(.dim))
            p.putRight(String(level.sold), end: end, row: row, style: isSelected ? style : Style(.dim))
        }
    }

    static func drawMerchantSales(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        guard let sales = console.sales else {
            p.put("Reading the sales…", column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        let width = min(body.width - 4, 60)
        let column = 2
        p.put(
            "Days in UTC: revenue by the day paid, refunds by the day made.", column: column, row: body.top, style: Style(.dim), width: body.width - 4
        )
        let top = body.top + 2
        p.put("", column: column, row: top)
        p.putRight("Today", end: column + width - 18, row: top, style: Style(.title, bold: true))
        p.putRight("Last 7 days", end: column + width, row: top, style: Style(.title, bold: true))
        let figures: [(String, (SalesFigures) -> String, Style)] = [
            ("Orders", { String($0.orders) }, .normal),
            ("Revenue", { $0.revenue.formatted }, Style(.price)),
            ("Refunds", { Money(minorUnits: -$0.refunds.minorUnits, currency: $0.refunds.currency).formatted }, .normal),
            ("Net", { $0.net.formatted }, Style(.price, bold: true)),
        ]
        for (offset, (label, value, style)) in figures.enumerated() where top + 1 + offset < body.bottom {
            let row = top + 1 + offset
            p.put(label, column: column, row: row, style: style)
            p.putRight(value(sales.today), end: column + width - 18, row: row, style: style)
            p.putRight(value(sales.lastSevenDays), end: column + width, row: row, style: style)
        }
        let taxesTop = top + figures.count + 2
        drawTaxes(sales, column: column, width: width, top: taxesTop, body, &p)
        var next = taxesTop + (sales.lastSevenDays.taxes.isEmpty ? 0 : sales.lastSevenDays.taxes.count + 2)
        for other in sales.inOtherCurrencies where next < body.bottom {
            next = drawOtherCurrency(other, column: column, width: width, top: next, body, &p)
        }
    }

    /// A market currency's orders, revenue (and what it came to in the shop's own currency at the rates each order was
    /// sold at), refunds and net, today's beside the week's; returns the row after it.
    static func drawOtherCurrency(
        _ sales: SalesSummary.CurrencySales, column: Int, width: Int, top: Int, _ body: BodyRect, _ p: inout Painter
    ) -> Int {
        let code = sales.lastSevenDays.revenue.currency.code
        let base = sales.lastSevenDays.baseRevenue?.currency.code ?? ""
        p.put("In \(code)", column: column, row: top, style: Style(.title, bold: true))
        let figures: [(String, (SalesFigures) -> String, Style)] = [
            ("Orders", { String($0.orders) }, .normal),
            ("Revenue", { $0.revenue.formatted }, Style(.price)),
            ("  in \(base) at the rates sold", { $0.baseRevenue?.formatted ?? "—" }, Style(.dim)),
            ("Refunds", { Money(minorUnits: -$0.refunds.minorUnits, currency: $0.refunds.currency).formatted }, .normal),
            ("Net", { $0.net.formatted }, Style(.price, bold: true)),
        ]
        for (offset, (label, value, style)) in figures.enumerated() where top + 1 + offset < body.bottom {
            let row = top + 1 + offset
            p.put(label, column: column, row: row, style: style, width: width - 36)
            p.putRight(value(sales.today), end: column + width - 18, row: row, style: style)
            p.putRight(value(sales.lastSevenDays), end: column + width, row: row, style: style)
        }
        return top + figures.count + 2
    }

    /// The tax charged by jurisdiction, as the week's orders name them, today's beside the week's.
    static func drawTaxes(_ sales: SalesSummary, column: Int, width: Int, top: Int, _ body: BodyRect, _ p: inout Painter) {
        guard !sales.lastSevenDays.taxes.isEmpty, top < body.bottom else { return }
        p.put("Tax by jurisdiction", column: column, row: top, style: Style(.title, bold: true))
        for (offset, tax) in sales.lastSevenDays.taxes.enumerated() where top + 1 + offset < body.bottom {
            let row = top + 1 + offset
            let today = sales.today.taxes.first { $0.jurisdiction == tax.jurisdiction && $0.label == tax.label }
            p.put("\(tax.jurisdiction.isEmpty ? "(not kept)" : tax.jurisdiction)  \(tax.label)", column: column, row: row, width: width - 36)
            p.putRight(today?.amount.formatted ?? "—", end: column + width - 18, row: row, style: Style(.dim))
            p.putRight(tax.amount.formatted, end: column + width, row: row)
        }
    }
}
