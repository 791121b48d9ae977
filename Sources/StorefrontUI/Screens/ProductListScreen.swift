import StoreModels
import StorefrontCore

/// The product list, with a preview pane on wide terminals.
extension Layout {
    static func drawProductList(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let list = state.productList
        let hasPreview = body.width >= previewThreshold
        let listWidth = hasPreview ? min(90, body.width * 11 / 20) : body.width
        if list.totalCount == 0 {
            let message = list.isLoading && list.rows.isEmpty
                ? "Loading the catalog\(p.glyphs.ellipsis)"
                : list.query.isEmpty ? "The catalog is empty." : "No products match \u{201C}\(list.query)\u{201D}. Esc clears the search."
            p.put(message, column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        let visible = min(list.rows.count, body.height)
        let earlier = p.previous?.listNotes
        // A row showing the product it showed in the frame before is copied from there, with its price's width.
        // (Arrays of plain Int and String: arrays of optionals would have their type looked up at run time.)
        var sources = [Int](repeating: -1, count: visible)
        var prices = [String](repeating: "", count: visible)
        var priceWidths = [Int](repeating: 0, count: visible)
        for offset in 0..<visible {
            if let earlier, let from = earlier.offset(showing: list.rows, offset, at: list.windowStart + offset) {
                sources[offset] = from
                priceWidths[offset] = earlier.priceWidths[from]
            } else {
                prices[offset] = list.rows[offset].price.formatted
                priceWidths[offset] = p.width(prices[offset])
            }
        }
        let priceWidth = priceWidths.max() ?? 0
        let geometry = ProductListNotes.Geometry(top: body.top, listWidth: listWidth, priceWidth: priceWidth)
        let copies = earlier?.geometry == geometry
        // Rows are read in place: copying each Product would retain and release every one of its strings per frame.
        for offset in 0..<visible {
            let row = body.top + offset
            let fromSelected = list.windowStart + offset - list.selectedIndex
            let from = sources[offset]
            if copies, from >= 0, let earlier, earlier.isSelected(from) == (fromSelected == 0), let previous = p.previous {
                p.frame.copyCells(of: previous, row: geometry.top + from, columns: 0..<listWidth, to: row)
                p.listRowTarget(row: row, band: 0, width: listWidth, fromSelected: fromSelected)
                continue
            }
            let isSelected = fromSelected == 0
            let style = p.selectableRow(row: row, band: 0, width: listWidth, marker: 1, fromSelected: fromSelected)
            let nameSpace = listWidth - 4 - priceWidth - 2
            let showsSummary = !hasPreview && nameSpace >= 56
            let nameWidth = showsSummary ? 30 : nameSpace
            p.put(list.rows[offset].name, column: 3, row: row, style: style, width: nameWidth)
            if showsSummary {
                p.put(list.rows[offset].summary, column: 3 + nameWidth + 2, row: row, style: isSelected ? style : Style(.dim), width: nameSpace - nameWidth - 2)
            }
            if list.rows[offset].isSoldOut {
                p.putRight("Sold out", end: listWidth - 1, row: row, style: isSelected ? style : Style(.error))
            } else {
                p.putRight(from >= 0 ? list.rows[offset].price.formatted : prices[offset], end: listWidth - 1, row: row, style: isSelected ? style : Style(.price))
            }
        }
        if hasPreview, let product = list.selectedProduct {
            // At the same size and geometry the frame before had the pane too, showing its selected product.
            if copies, let earlier, earlier.selectedProductIs(list.rows, list.selectedIndex - list.windowStart) {
                p.copyFromPrevious(rows: body.top..<body.bottom, columns: listWidth..<body.width)
            } else {
                let column = listWidth + 1
                p.verticalLine(column: listWidth, rows: body.top..<body.bottom, style: Style(.border))
                drawProductSummary(product, quantityInCart: nil, column: column + 1, top: body.top, width: body.width - column - 2, height: body.height, &p)
            }
        }
        p.frame.listNotes = ProductListNotes(rows: list.rows, windowStart: list.windowStart, selectedIndex: list.selectedIndex, priceWidths: priceWidths, geometry: geometry)
    }

    /// Name, price, art, description and tags, stacked in a column.
    static func drawProductSummary(_ product: Product, quantityInCart: Int?, column: Int, top: Int, width: Int, height: Int, _ p: inout Painter) {
        var lines: [(String, Style)] = [
            (product.name, Style(.title, bold: true)),
            (product.price.formatted + stockNote(product, p) + (quantityInCart.map { $0 > 0 ? "  \(p.glyphs.separator) \($0) in your cart" : "" } ?? ""), Style(.price, bold: true)),
            ("", .normal),
        ]
        if !product.art.isEmpty, height >= 14 {
            lines += product.art.map { ($0, Style(.art)) }
            lines.append(("", .normal))
        }
        lines += p.wrapped(product.description, width: width).map { ($0, Style.normal) }
        if !product.tags.isEmpty {
            lines.append(("", .normal))
            lines.append((product.tags.map { "#" + $0 }.joined(separator: " "), Style(.dim)))
        }
        for (offset, line) in lines.prefix(height).enumerated() {
            p.put(line.0, column: column, row: top + offset, style: line.1, width: width)
        }
    }

    /// "  · Sold out" or "  · Only 3 left"; empty when stock is plentiful or not tracked.
    static func stockNote(_ product: Product, _ p: Painter) -> String {
        if product.isSoldOut { return "  \(p.glyphs.separator) Sold out" }
        if let few = product.fewLeft { return "  \(p.glyphs.separator) Only \(few) left" }
        return ""
    }
}

/// What the product list drew in a frame: which product each row shows, how it was laid out, and
/// each price's width, so the next frame copies a row that would be drawn the same.
struct ProductListNotes: Sendable {
    /// Everything that places a row's text other than its product and whether it is selected.
    /// The preview's presence and the summary column follow from the width, the size and the price column.
    struct Geometry: Equatable, Sendable {
        var top: Int
        var listWidth: Int
        var priceWidth: Int
    }

    var rows: [Product]
    var windowStart: Int
    var selectedIndex: Int
    /// One per row drawn.
    var priceWidths: [Int]
    var geometry: Geometry

    /// The row offset that showed `rows[row]` as match `index`, or nil when that row showed something else or none.
    func offset(showing rows: [Product], _ row: Int, at index: Int) -> Int? {
        let offset = index - windowStart
        guard offset >= 0, offset < priceWidths.count, Self.same(self.rows, offset, rows, row) else { return nil }
        return offset
    }

    func isSelected(_ offset: Int) -> Bool { windowStart + offset == selectedIndex }

    /// True when the product selected then is `rows[row]`.
    func selectedProductIs(_ rows: [Product], _ row: Int) -> Bool {
        let offset = selectedIndex - windowStart
        return self.rows.indices.contains(offset) && rows.indices.contains(row) && Self.same(self.rows, offset, rows, row)
    }

    /// `old[i] == new[j]`. Most keys change no row's product and leave the rows the very same array, whose element
    /// at the same index is the same product: comparing them would copy both (an array hands out copies), retaining
    /// and releasing every string of both, for every row of every frame.
    private static func same(_ old: [Product], _ i: Int, _ new: [Product], _ j: Int) -> Bool {
        if i == j, old.withUnsafeBufferPointer({ $0.baseAddress }) == new.withUnsafeBufferPointer({ $0.baseAddress }) { return true }
        return old[i] == new[j]
    }
}
