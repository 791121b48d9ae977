import Foundation
import ShopLanguages
import ShopModels
import ShopPorts
import StorefrontCore

/// The merchant console's customers: a search's list (name, email, orders, what matched), and one customer's page:
/// who they are and their ways in, spend and refunds, the latest orders (Enter opens one), subscriptions, addresses
/// and the merchant's notes. A key's fingerprint shows on the page alone.
extension Layout {
    static func drawMerchantCustomers(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        let screen = console.customers
        let width = min(body.width - 2, 110)
        let (left, end) = (1, 1 + width)
        guard !screen.matches.isEmpty else {
            let line =
                screen.isLoading
                ? "Searching…"
                : screen.query.isEmpty
                    ? "/ finds a customer by email, name, order number or key." : "Nobody matches \"\(screen.query)\": / searches again."
            p.put(line, column: 2, row: body.top + 1, style: Style(.dim), width: width - 2)
            return
        }
        let wide = width >= 80
        p.put("Name", column: left + 2, row: body.top, style: Style(.dim))
        p.put("Email", column: left + 30, row: body.top, style: Style(.dim))
        if wide { p.putRight("Orders", end: end - 12, row: body.top, style: Style(.dim)) }
        p.putRight("Found by", end: end - 1, row: body.top, style: Style(.dim))
        let capacity = max(1, body.bottom - body.top - 1)
        let start = ListSelection.windowStart(selected: screen.selectedIndex, capacity: capacity, total: screen.matches.count)
        for (offset, match) in screen.matches[start...].prefix(capacity).enumerated() {
            let row = body.top + 1 + offset
            let index = start + offset
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: index - screen.selectedIndex)
            p.put(match.name ?? "(no name)", column: left + 2, row: row, style: style, width: 27)
            p.put(match.email ?? "", column: left + 30, row: row, style: style, width: max(1, end - (wide ? 22 : 12) - left - 30))
            if wide { p.putRight("\(match.orders)", end: end - 12, row: row, style: style) }
            p.putRight(match.matchedBy.rawValue, end: end - 1, row: row, style: index == screen.selectedIndex ? style : Style(.dim))
        }
    }

    static func drawMerchantCustomer(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        guard let page = console.customers.page else {
            p.put("Reading the customer…", column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        let column = 2
        let wide = body.width >= 100
        let leftWidth = wide ? min(52, body.width / 2 - 2) : min(body.width - 4, 100)
        var row = body.top
        func line(_ text: String, _ style: Style = .normal, at column: Int = column, width: Int = leftWidth) {
            guard row < body.bottom else { return }
            p.put(text, column: column, row: row, style: style, width: width)
            row += 1
        }
        line(page.name ?? "(no name)", Style(.title, bold: true))
        let verified = page.account.map { $0.email != nil && $0.emailVerifiedAt == nil ? " (unverified)" : "" } ?? ""
        line((page.email ?? "no email") + verified)
        line(page.customerID, Style(.dim))
        for way in page.account?.waysIn ?? [] { line("\(way.wayIn.kind) \(way.wayIn.key)", Style(.dim)) }
        row += 1
        if page.spend.isEmpty { line("Nothing spent yet", Style(.dim)) }
        for spend in page.spend {
            line(
                "\(spend.orders) order\(spend.orders == 1 ? "" : "s") \(p.glyphs.separator) \(p.money(spend.charged)) paid "
                    + "\(p.glyphs.separator) \(p.money(spend.refunded)) refunded")
        }
        row += 1
        // The orders: at the right when wide, else here; the chosen one opens with Enter.
        var right = wide ? body.top : row
        let rightColumn = wide ? column + leftWidth + 4 : column
        let rightWidth = wide ? body.width - rightColumn - 2 : leftWidth
        let ordersTitle = "Orders (\(page.orderCount)\(page.orderCount > page.orders.count ? ", the latest \(page.orders.count)" : ""))"
        p.put(ordersTitle, column: rightColumn, row: right, style: Style(.title, bold: true))
        right += 1
        let orderRows = max(0, min(page.orders.count, (wide ? body.bottom - 8 : body.bottom - 6) - right))
        let start = ListSelection.windowStart(selected: console.customers.orderIndex, capacity: max(1, orderRows), total: page.orders.count)
        for (offset, order) in page.orders.dropFirst(start).prefix(orderRows).enumerated() {
            let index = start + offset
            let style = p.selectableRow(row: right, band: rightColumn - 2, width: rightWidth + 2, fromSelected: index - console.customers.orderIndex)
            p.putSpread(
                "\(order.number)  \(timestamp(order.placedAt))  \(order.status.displayName)", p.money(order.totals.total), column: rightColumn,
                row: right, width: rightWidth, leftStyle: style, rightStyle: style)
            right += 1
        }
        right += 1
        if !page.subscriptions.isEmpty, right < body.bottom {
            p.put("Subscriptions (\(page.subscriptions.count))", column: rightColumn, row: right, style: Style(.title, bold: true))
            right += 1
            for s in page.subscriptions.prefix(max(0, body.bottom - right - (wide ? 0 : 4))) {
                p.put(
                    "\(s.quantity) × \((s.variantSKU ?? s.productID).rawValue), every \(RenewalSchedule.every(s.intervalWeeks)), "
                        + "\(s.status.rawValue.replacingOccurrences(of: "_", with: " "))", column: rightColumn, row: right, width: rightWidth)
                right += 1
            }
            right += 1
        }
        if !wide { row = right }
        // Notes and addresses: under the spend when wide, under the orders when narrow.
        line("Notes (\(page.notes.count))", Style(.title, bold: true))
        // The newest that fit, each its words and then who wrote it when.
        for note in page.notes.suffix(max(0, (body.bottom - row - 3) / 2)) {
            line(note.text)
            line(
                "  \(UTCTime(note.at).calendarDate) \(p.glyphs.separator) \(note.author.replacingOccurrences(of: "merchant:", with: ""))", Style(.dim)
            )
        }
        if row < body.bottom - 1 {
            row += 1
            line("Addresses (\(page.addresses.count))", Style(.title, bold: true))
            for address in page.addresses { line(address.shipToLine, Style(.dim)) }
        }
    }
}
