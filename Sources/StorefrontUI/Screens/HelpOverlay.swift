import ShopLanguages
import ShopModels
import StorefrontCore

/// The key help drawn over any screen.
extension Layout {
    static func drawHelp(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        var underlying = state
        underlying.isHelpShown = false
        let context = KeyContext(underlying)
        let bindings = KeyBindings.table.filter { $0.contexts.contains(context) }
        var seen = Set<String>()
        let entries = bindings.filter { seen.insert($0.label + $0.summary.key).inserted }
        let width = min(body.width - 2, 56)
        let left = (body.width - width) / 2
        // One bordered column when it fits; otherwise two columns, dropping the border if still needed.
        let bordered = entries.count + 2 <= body.height || (entries.count + 1) / 2 + 2 <= body.height
        let rows = bordered ? body.height - 2 : body.height
        let columns = entries.count <= rows ? 1 : 2
        let perColumn = (entries.count + columns - 1) / columns
        let height = min(body.height, perColumn + (bordered ? 2 : 0))
        // Its rows blanked across, and one below: no border of the screen beneath runs into the overlay's own.
        p.fill(row: body.top, column: 0, width: body.width, height: min(body.height, height + 1))
        let inset = bordered ? 2 : 1
        if bordered { p.box(column: left, row: body.top, width: width, height: height, title: p.tr("Keys")) }
        let columnWidth = (width - 2 * inset) / columns
        // Wide enough for the longest key name in the session's language ("Eingabe"), never under the usual column.
        let longestName = (entries.map { p.width(p.keyName($0.label)) }.max() ?? 0) + 1
        let labelWidth = min(columnWidth / 2, max(columns == 1 ? 12 : 6, longestName))
        for (index, binding) in entries.enumerated() {
            let row = body.top + (bordered ? 1 : 0) + index % perColumn
            guard row < body.top + height - (bordered ? 1 : 0) else { continue }
            let column = left + inset + (index / perColumn) * columnWidth
            p.put(p.keyName(binding.label), column: column, row: row, style: Style(.key, bold: true), width: labelWidth)
            p.put(p.tr(binding.summary), column: column + labelWidth + 1, row: row, width: columnWidth - labelWidth - 2)
        }
    }
}
