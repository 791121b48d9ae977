import ShopLanguages
import ShopModels
import StorefrontCore

/// The cart: its lines and totals.
extension Layout {
    static func drawCart(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let cart = state.cart
        if cart.lines.isEmpty {
            p.put(p.tr("Your cart is empty."), column: 2, row: body.top + 1, style: Style(.title, bold: true))
            p.put(p.tr("Press s to browse the shop."), column: 2, row: body.top + 2, style: Style(.dim))
            return
        }
        // On a wide terminal the selected line's picture stands beside the lines, whenever some line has one (so the
        // lines keep their width as the selection moves).
        let pane = p.pictures.showsPictures && body.width >= 100 && !cart.pictures.isEmpty ? min(40, body.width / 3) : 0
        let width = min(body.width - 2 - (pane > 0 ? pane + 3 : 0), 96)
        let left = 1
        let showsUnit = width >= 60
        let totalColumn = left + width
        let quantityEnd = totalColumn - 12
        let unitEnd = quantityEnd - 6
        let nameWidth = (showsUnit ? unitEnd - 12 : quantityEnd - 6) - left - 2
        p.put(p.tr("Item"), column: left + 2, row: body.top, style: Style(.dim))
        if showsUnit { p.putRight(p.tr("Price"), end: unitEnd, row: body.top, style: Style(.dim)) }
        p.putRight(p.tr("Qty"), end: quantityEnd, row: body.top, style: Style(.dim))
        p.putRight(p.tr("Total"), end: totalColumn, row: body.top, style: Style(.dim))

        let totalsRows = 4
        let lineRows = max(1, body.height - 1 - totalsRows - 1)
        let start = ListSelection.windowStart(selected: cart.selectedIndex, capacity: lineRows, total: cart.lines.count)
        for (offset, line) in cart.lines.dropFirst(start).prefix(lineRows).enumerated() {
            let row = body.top + 1 + offset
            let isSelected = start + offset == cart.selectedIndex
            // Enter on the cart means checkout, not this line: a click only selects it.
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: start + offset - cart.selectedIndex, opens: false)
            if cart.withdrawn.contains(line.stockKey) {
                // Still in the cart, no longer sold: said on its row, so Pay's refusal is no surprise.
                p.put(
                    p.tr("\(line.name) \(p.glyphs.separator) no longer sold"), column: left + 2, row: row, style: isSelected ? style : Style(.dim),
                    width: nameWidth)
            } else {
                p.put(line.name, column: left + 2, row: row, style: style, width: nameWidth)
            }
            if showsUnit { p.putRight(p.money(line.unitPrice), end: unitEnd, row: row, style: style) }
            p.putRight("\(line.quantity)", end: quantityEnd, row: row, style: style)
            p.putRight(p.money(line.total), end: totalColumn, row: row, style: isSelected ? style : Style(.price))
        }
        if pane > 0 {
            drawLinePicture(cart, column: left + width + 3, top: body.top + 1, columns: pane, rows: lineRows, &p)
        }
        let totals = cart.totals
        let labelColumn = max(left + 2, totalColumn - 34)
        let top = body.bottom - totalsRows
        let shipping = totals.shipping.isZero ? p.tr("Free") : p.money(totals.shipping)
        let rows: [(String, String, Style)] = [
            (p.tr("Subtotal"), p.money(totals.subtotal), .normal),
            (p.tr("Shipping (\(cart.shippingLabel))"), shipping, .normal),
            (p.tr(cart.taxLabel), p.money(totals.tax), .normal),
            (p.tr("Total"), p.money(totals.total), Style(.price, bold: true)),
        ]
        for (offset, row) in rows.enumerated() {
            p.putSpread(row.0, row.1, column: labelColumn, row: top + offset, width: totalColumn - labelColumn, leftStyle: row.2, rightStyle: row.2)
        }
    }

    /// The selected line's picture at `column`, in at most `columns` × `rows` cells, a border before it; the pictures of
    /// the lines a key away are asked for at the same box, so a move finds them drawn.
    private static func drawLinePicture(_ cart: CartScreenState, column: Int, top: Int, columns: Int, rows: Int, _ p: inout Painter) {
        p.verticalLine(column: column - 2, rows: top..<(top + rows), style: Style(.border))
        func slot(_ index: Int) -> PictureSlot? {
            guard cart.lines.indices.contains(index), let picture = cart.pictures[cart.lines[index].stockKey],
                let box = PictureSlot.fitting(picture, columns: columns, rows: rows)
            else { return nil }
            return PictureSlot(digest: picture.digest, column: column, row: top, columns: box.columns, rows: box.rows)
        }
        if let shown = slot(cart.selectedIndex) {
            p.reservePicture(shown.digest, column: shown.column, row: shown.row, columns: shown.columns, rows: shown.rows)
        }
        for offset in [1, -1] {
            if let hint = slot(cart.selectedIndex + offset) { p.frame.pictureHints.append(hint) }
        }
    }
}
