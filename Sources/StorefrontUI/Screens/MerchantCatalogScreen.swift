import Foundation
import ShopLanguages
import ShopModels
import ShopPorts
import StorefrontCore

/// The merchant console's catalog: every product with its status and version, and the latest changes below.
extension Layout {
    static func drawMerchantCatalog(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        let catalog = console.catalog
        let width = min(body.width - 2, 110)
        let (left, end) = (1, 1 + width)
        guard !catalog.products.isEmpty else {
            p.put(catalog.isLoading ? "Reading the catalog…" : "No products: n makes one.", column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        // The changes take the bottom rows when there is room for the list above them.
        let changes = body.height >= 14 ? Array(catalog.history.prefix(min(5, body.height / 4))) : []
        let listBottom = body.bottom - (changes.isEmpty ? 0 : changes.count + 2)
        p.put("Product", column: left + 2, row: body.top, style: Style(.dim))
        p.putRight("Status", end: end - 30, row: body.top, style: Style(.dim))
        p.putRight("Version", end: end - 20, row: body.top, style: Style(.dim))
        p.put("Last changed by", column: end - 18, row: body.top, style: Style(.dim), width: 18)
        let capacity = max(1, listBottom - body.top - 1)
        let start = ListSelection.windowStart(selected: catalog.selectedIndex, capacity: capacity, total: catalog.products.count)
        for (offset, product) in catalog.products[start...].prefix(capacity).enumerated() {
            let row = body.top + 1 + offset
            let index = start + offset
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: index - catalog.selectedIndex)
            let isSelected = index == catalog.selectedIndex
            p.put("\(product.name) \(p.glyphs.separator) \(product.id)", column: left + 2, row: row, style: style, width: width - 52)
            let statusStyle = isSelected ? style : product.status == .published ? Style(.success) : Style(.dim)
            p.putRight(product.status.rawValue, end: end - 30, row: row, style: statusStyle)
            p.putRight(String(product.version), end: end - 20, row: row, style: isSelected ? style : Style(.dim))
            p.put(product.updatedBy, column: end - 18, row: row, style: isSelected ? style : Style(.dim), width: 18)
        }
        guard !changes.isEmpty else { return }
        p.put("Latest changes", column: left + 1, row: listBottom + 1, style: Style(.title, bold: true))
        for (offset, change) in changes.enumerated() {
            let when = UTCTime(change.at).iso8601.replacingOccurrences(of: "T", with: " ").prefix(16)
            p.put(
                "\(when)  \(change.productID) v\(change.version) \(change.action) by \(change.actor)", column: left + 1, row: listBottom + 2 + offset,
                style: Style(.dim), width: width - 1)
        }
    }
}
