import ShopLanguages
import ShopModels
import StorefrontCore

/// The merchant console's subscriptions in one state: each one's id, customer, what it delivers and how often, when it
/// is next due, and where it stands.
extension Layout {
    static func drawMerchantSubscriptions(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        let screen = console.subscriptions
        let width = min(body.width - 2, 120)
        let (left, end) = (1, 1 + width)
        guard !screen.rows.isEmpty else {
            let state = screen.filter.map { " " + MerchantSubscriptionsState.title($0) } ?? ""
            p.put(
                screen.isLoading ? "Reading the subscriptions…" : "No\(state) subscriptions: Tab shows another state.", column: 2, row: body.top + 1,
                style: Style(.dim))
            return
        }
        let wide = width >= 90
        p.put("Subscription", column: left + 2, row: body.top, style: Style(.dim))
        if wide { p.put("Customer", column: left + 24, row: body.top, style: Style(.dim)) }
        p.put("Delivers", column: left + (wide ? 44 : 24), row: body.top, style: Style(.dim))
        p.putRight("Next (UTC)", end: end - 1, row: body.top, style: Style(.dim))
        let capacity = max(1, body.bottom - body.top - 1)
        let start = ListSelection.windowStart(selected: screen.selectedIndex, capacity: capacity, total: screen.rows.count)
        for (offset, s) in screen.rows[start...].prefix(capacity).enumerated() {
            let row = body.top + 1 + offset
            let index = start + offset
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: index - screen.selectedIndex)
            let isSelected = index == screen.selectedIndex
            p.put(s.id, column: left + 2, row: row, style: style, width: 21)
            if wide {
                p.put(
                    s.shipTo.name.isEmpty ? s.customerID : s.shipTo.name, column: left + 24, row: row, style: isSelected ? style : Style(.dim),
                    width: 19)
            }
            let delivers = "\(s.quantity) × \((s.variantSKU ?? s.productID).rawValue), every \(RenewalSchedule.every(s.intervalWeeks))"
            let column = left + (wide ? 44 : 24)
            p.put(delivers, column: column, row: row, style: style, width: max(1, end - 14 - column))
            let next =
                s.status == .canceled ? "canceled" : s.endsAtPeriodEnd ? "ends \(UTCTime(s.renewsAt).calendarDate)" : UTCTime(s.dueAt).calendarDate
            p.putRight(next, end: end - 1, row: row, style: isSelected ? style : Style(s.status == .pastDue ? .error : .normal))
        }
    }
}
