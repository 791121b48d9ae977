import ShopLanguages
import ShopModels
import StorefrontCore

/// The shopper's subscriptions: each in three lines (what, and each delivery's price; where it stands; card and
/// address), or the changes Enter opened for one.
extension Layout {
    static func drawSubscriptions(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let list = state.subscriptions
        let width = min(body.width - 2, 96)
        let left = 1
        if let menu = list.menu, let row = list.selected {
            p.put(p.tr("Change \(row.name)"), column: left + 1, row: body.top, style: Style(.title, bold: true), width: width - 1)
            let room = body.height - 1
            let start = ListSelection.windowStart(selected: menu.selectedIndex, capacity: room, total: menu.options.count)
            for (offset, option) in menu.options.dropFirst(start).prefix(room).enumerated() {
                let line = body.top + 1 + offset
                let style = p.selectableRow(row: line, band: left, width: width, fromSelected: start + offset - menu.selectedIndex)
                p.put(p.tr(option.title), column: left + 2, row: line, style: style, width: width - 2)
            }
            return
        }
        guard !list.rows.isEmpty else {
            p.put(
                list.isLoading ? p.tr("Reading your subscriptions…") : p.tr("No subscriptions yet."), column: 2, row: body.top + 1,
                style: Style(.title, bold: true))
            p.put(
                p.tr("Subscribe on a product's page (r) to have it sent every few weeks."), column: 2, row: body.top + 2, style: Style(.dim),
                width: body.width - 4)
            return
        }
        // Three lines each and a gap; on a short screen, without the gap.
        let block = body.height >= 8 ? 4 : 3
        let capacity = max(1, body.height / block)
        let start = ListSelection.windowStart(selected: list.selectedIndex, capacity: capacity, total: list.rows.count)
        for (offset, row) in list.rows.dropFirst(start).prefix(capacity).enumerated() {
            let top = body.top + offset * block
            let fromSelected = start + offset - list.selectedIndex
            let style = p.selectableRow(row: top, band: left, width: width, fromSelected: fromSelected)
            let s = row.subscription
            let weeks = s.intervalWeeks
            let price =
                row.goods.map { p.tr(.plural("\($0) every week", "\($0) every \(weeks) weeks", count: weeks)) }
                ?? p.tr("no longer sold")
            p.putSpread(
                "\(s.quantity > 1 ? "\(s.quantity) × " : "")\(row.name)", price, column: left + 2, row: top, width: width - 2, leftStyle: style,
                rightStyle: fromSelected == 0 ? style : Style(.price))
            guard top + 1 < body.bottom else { continue }
            p.put(p.tr(row.standing), column: left + 2, row: top + 1, style: Style(s.status == .pastDue ? .error : .normal), width: width - 2)
            guard top + 2 < body.bottom else { continue }
            p.put(
                "\(s.cardDescription) \(p.glyphs.separator) \(s.shipTo.shipToLine)", column: left + 2, row: top + 2, style: Style(.dim),
                width: width - 2)
        }
    }
}
