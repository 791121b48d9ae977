import ShopLanguages
import ShopModels
import StorefrontCore

/// The product list, with a preview pane on wide terminals.
extension Layout {
    static func drawProductList(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let list = state.productList
        let hasPreview = body.width >= previewThreshold
        let listWidth = hasPreview ? min(90, body.width * 11 / 20) : body.width
        if list.totalCount == 0 {
            let message =
                list.isLoading && list.rows.isEmpty
                ? p.tr("Loading the catalog\(p.glyphs.ellipsis)")
                : list.query.isEmpty ? p.tr("The catalog is empty.") : p.tr("No products match \u{201C}\(list.query)\u{201D}. Esc clears the search.")
            p.put(message, column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        let visible = min(list.rows.count, body.height)
        // Rows are read in place: copying each Product would retain and release every one of its strings per frame.
        // The price column is as wide as the widest price shown, sold out or not.
        var look = ListLook(listWidth: listWidth, priceWidth: 0, hasPreview: hasPreview)
        p.listWindow(
            Self.productRows, items: list.rows, count: visible, firstIndex: list.windowStart, selectedIndex: list.selectedIndex,
            top: body.top, band: 0, width: listWidth,
            measure: { [charset = p.frame.charset, translation = p.translation] offset in
                Painter.width(priceText(list.rows[offset], translation), charset: charset)
            },
            look: { widest in
                look.priceWidth = widest
                return look
            }
        ) { p, offset, row, fromSelected, look in
            let priceWidth = look.priceWidth
            let isSelected = fromSelected == 0
            let style = p.selectableRow(row: row, band: 0, width: listWidth, marker: 1, fromSelected: fromSelected)
            let nameSpace = listWidth - 4 - priceWidth - 2
            let showsSummary = !hasPreview && nameSpace >= 56
            let nameWidth = showsSummary ? 30 : nameSpace
            p.put(list.rows[offset].name, column: 3, row: row, style: style, width: nameWidth)
            if showsSummary {
                p.put(
                    list.rows[offset].summary, column: 3 + nameWidth + 2, row: row, style: isSelected ? style : Style(.dim),
                    width: nameSpace - nameWidth - 2)
            }
            if list.rows[offset].isSoldOut {
                p.putRight(p.tr("Sold out"), end: listWidth - 1, row: row, style: isSelected ? style : Style(.error))
            } else {
                p.putRight(priceText(list.rows[offset], p.translation), end: listWidth - 1, row: row, style: isSelected ? style : Style(.price))
            }
        }
        if hasPreview, let product = list.selectedProduct {
            let pane = PreviewPane(product: product, look: look, top: body.top, height: body.height)
            p.region(Self.productPreview, rows: body.top..<body.bottom, columns: listWidth..<body.width, content: pane) { p in
                let column = listWidth + 1
                p.verticalLine(column: listWidth, rows: body.top..<body.bottom, style: Style(.border))
                // The picture above the summary, in at most half the pane's height; the art then gives way to it.
                var top = body.top
                var shown = product
                if p.pictures.showsPictures, let slot = previewPicture(product, body, paneColumn: column + 1) {
                    p.reservePicture(slot.digest, column: slot.column, row: slot.row, columns: slot.columns, rows: slot.rows)
                    top += slot.rows + 1
                    shown.art = []
                }
                drawProductSummary(
                    shown, quantityInCart: nil, column: column + 1, top: top, width: body.width - column - 2, height: body.bottom - top, &p)
            }
            hintNeighbourPictures(list, body, paneColumn: listWidth + 2, &p)
        }
    }

    /// Where the preview pane at `column` shows `product`'s picture: at most 40 columns and half the pane's height.
    private static func previewPicture(_ product: Product, _ body: BodyRect, paneColumn column: Int) -> PictureSlot? {
        guard let picture = product.pictures.first, picture.isStored,
            let box = PictureSlot.fitting(picture, columns: min(40, body.width - column - 1), rows: (body.height - 1) / 2)
        else { return nil }
        return PictureSlot(digest: picture.digest, column: column, row: body.top, columns: box.columns, rows: box.rows)
    }

    /// The pictures of the products a key or two away, at the preview's box, so they are drawn before a move shows them.
    private static func hintNeighbourPictures(_ list: ProductListState, _ body: BodyRect, paneColumn column: Int, _ p: inout Painter) {
        guard p.pictures.showsPictures else { return }
        let selected = list.selectedIndex - list.windowStart
        for offset in [1, -1, 2, 3] where list.rows.indices.contains(selected + offset) {
            if let slot = previewPicture(list.rows[selected + offset], body, paneColumn: column) { p.frame.pictureHints.append(slot) }
        }
    }

    static let productRows = RegionID("product list rows")
    static let productPreview = RegionID("product list preview")

    /// Name, price, art, description and tags, stacked in a column.
    /// A product's name, price and stock, (on its page) its options, then its art, description and tags.
    static func drawProductSummary(
        _ product: Product, quantityInCart: Int?, choosing: ProductDetailState? = nil, column: Int, top: Int, width: Int, height: Int,
        _ p: inout Painter
    ) {
        // On the page the price and stock are the chosen variant's; in the list's preview, the product's ("from").
        let shown = choosing?.purchase ?? product
        var lines: [(String, Style)] = [
            (product.name, Style(.title, bold: true)),
            (
                priceText(shown, p.translation) + stockNote(shown, p)
                    + (quantityInCart.map { $0 > 0 ? "  \(p.glyphs.separator) " + p.tr("\($0) in your cart") : "" } ?? ""),
                Style(.price, bold: true)
            ),
        ]
        if let every = subscriptionNote(product, p) { lines.append((every, Style(.accent))) }
        lines.append(("", .normal))
        if let choosing, product.hasVariants, height >= lines.count + product.options.count + 2 {
            drawOptions(choosing, column: column, top: top + lines.count, width: width, &p)
            lines += product.options.map { _ in ("", .normal) } + [("", .normal)]
        }
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

    /// "Also by subscription: every 1, 2 or 4 weeks"; nil for a product not sold by subscription.
    static func subscriptionNote(_ product: Product, _ p: Painter) -> String? {
        let weeks = product.subscriptionWeeks
        guard let last = weeks.last else { return nil }
        if weeks == [1] { return p.tr("Also by subscription: every week") }
        let list = weeks.count == 1 ? String(last) : p.tr("\(weeks.dropLast().map(String.init).joined(separator: ", ")) or \(last)")
        return p.tr(.plural("Also by subscription: every \(list) week", "Also by subscription: every \(list) weeks", count: last))
    }

    /// "$17.00", or "from $17.00" for a product whose variants differ in price.
    static func priceText(_ product: Product, _ translation: Translation) -> String {
        let price = translation.money(product.price)
        return product.highestPrice == nil ? price : translation.string(Localized("from \(price)"))
    }

    /// "  · Sold out" or "  · Only 3 left"; empty when stock is plentiful or not tracked.
    static func stockNote(_ product: Product, _ p: Painter) -> String {
        if product.isSoldOut { return "  \(p.glyphs.separator) " + p.tr("Sold out") }
        if let few = product.fewLeft { return "  \(p.glyphs.separator) " + p.tr(.plural("Only \(few) left", "Only \(few) left", count: few)) }
        return ""
    }
}

/// Everything a product row's drawing depends on besides its product and whether it is selected.
private struct ListLook: Equatable, Sendable {
    var listWidth: Int
    var priceWidth: Int
    var hasPreview: Bool
}

/// Everything the preview pane's drawing depends on.
private struct PreviewPane: Equatable, Sendable {
    var product: Product
    var look: ListLook
    var top: Int
    var height: Int
}
