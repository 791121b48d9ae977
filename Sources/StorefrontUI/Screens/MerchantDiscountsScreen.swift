import ShopLanguages
import ShopModels
import StorefrontCore

/// The merchant console's discount codes: each code, its terms, its uses held, and whether it is paused.
extension Layout {
    static func drawMerchantDiscounts(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        let screen = console.discounts
        let width = min(body.width - 2, 110)
        let (left, end) = (1, 1 + width)
        guard !screen.codes.isEmpty else {
            let empty = screen.isLoading ? "Reading the codes…" : "No discount codes: n makes one."
            p.put(empty, column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        p.put("Code", column: left + 2, row: body.top, style: Style(.dim))
        p.put("Terms", column: left + 16, row: body.top, style: Style(.dim))
        p.putRight("Used", end: end - 1, row: body.top, style: Style(.dim))
        let capacity = max(1, body.bottom - body.top)
        let start = ListSelection.windowStart(selected: screen.selectedIndex, capacity: capacity, total: screen.codes.count)
        for (offset, listing) in screen.codes[start...].prefix(capacity).enumerated() {
            let row = body.top + 1 + offset
            let index = start + offset
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: index - screen.selectedIndex)
            let isSelected = index == screen.selectedIndex
            p.put(listing.code.code, column: left + 2, row: row, style: style, width: 13)
            let termsStyle = isSelected ? style : listing.code.isPaused ? Style(.dim) : Style(.normal)
            p.put(listing.summary, column: left + 16, row: row, style: termsStyle, width: max(1, width - 24))
            p.putRight(String(listing.uses), end: end - 1, row: row, style: isSelected ? style : Style(.dim))
        }
    }
}
