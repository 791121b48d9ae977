import ShopLanguages
import ShopModels
import StorefrontCore

/// One product's page.
extension Layout {
    static func drawProductDetail(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let detail = state.productDetail else { return }
        let product = detail.product
        if drawProductPicture(detail, body, &p) { return }
        let artWidth = product.art.map { p.width($0) }.max() ?? 0
        let sideBySide = artWidth > 0 && body.width >= artWidth + 44
        if sideBySide {
            let artTop = body.top + 1
            for (offset, line) in product.art.prefix(body.height - 1).enumerated() {
                p.put(line, column: 2, row: artTop + offset, style: Style(.art))
            }
            let column = artWidth + 6
            drawProductSummaryWithoutArt(detail, column: column, top: body.top + 1, width: body.width - column - 2, height: body.height - 1, &p)
        } else {
            drawProductSummary(
                product, quantityInCart: detail.quantityInCart, choosing: detail, column: 2, top: body.top, width: body.width - 4,
                height: body.height, &p)
        }
    }

    /// The chosen variant's picture, else the product's, large on the left with the summary beside it; false when the
    /// terminal shows art, or the page is too narrow for both.
    private static func drawProductPicture(_ detail: ProductDetailState, _ body: BodyRect, _ p: inout Painter) -> Bool {
        guard p.pictures.showsPictures, body.width >= 76, let picture = detail.product.pictures(for: detail.chosenVariant).first, picture.isStored,
            let box = PictureSlot.fitting(picture, columns: min(48, body.width * 2 / 5), rows: body.height - 2)
        else { return false }
        p.reservePicture(picture.digest, column: 2, row: body.top + 1, columns: box.columns, rows: box.rows)
        let column = box.columns + 5
        drawProductSummaryWithoutArt(detail, column: column, top: body.top + 1, width: body.width - column - 2, height: body.height - 1, &p)
        return true
    }

    static func drawProductSummaryWithoutArt(_ detail: ProductDetailState, column: Int, top: Int, width: Int, height: Int, _ p: inout Painter) {
        var product = detail.product
        product.art = []
        drawProductSummary(
            product, quantityInCart: detail.quantityInCart, choosing: detail, column: column, top: top, width: width, height: height, &p)
    }

    /// One row per option: its name, then its values, the chosen one marked and those that cannot be picked dimmed and
    /// said to be sold out. A click on a value picks it (the keys that would).
    static func drawOptions(_ detail: ProductDetailState, column: Int, top: Int, width: Int, _ p: inout Painter) {
        let options = detail.product.options
        let nameWidth = (options.map { p.width($0.name) }.max() ?? 0) + 2
        for (index, option) in options.enumerated() {
            let row = top + index
            let isFocused = index == detail.focusedOption
            p.put(
                (isFocused && options.count > 1 ? p.glyphs.marker : " ") + " " + option.name, column: column, row: row,
                style: Style(isFocused ? .accent : .dim, bold: isFocused), width: min(width, nameWidth + 2))
            var at = column + nameWidth + 2
            let end = column + width
            let chosen = detail.choice.indices.contains(index) ? detail.choice[index] : nil
            let pickable = option.values.filter { detail.canPick($0, of: index) }
            for value in option.values {
                let isChosen = value == chosen
                let canPick = pickable.contains(value)
                let text = isChosen ? "[\(value)]" : (canPick ? " \(value) " : " " + p.tr("\(value) (sold out)") + " ")
                let textWidth = p.width(text)
                guard at + textWidth <= end else { break }
                p.put(text, column: at, row: row, style: isChosen ? Style(.selection, bold: true) : Style(canPick ? .normal : .dim))
                if canPick, !isChosen, let chosen {
                    // The keys that pick it: focus this option, then step over the pickable values between.
                    let focus = Array(repeating: index > detail.focusedOption ? Key.down : Key.up, count: abs(index - detail.focusedOption))
                    let from = pickable.firstIndex(of: chosen) ?? 0
                    let to = pickable.firstIndex(of: value) ?? 0
                    let steps = Array(repeating: to > from ? Key.right : Key.left, count: abs(to - from))
                    p.target(.keys(focus + steps), row: row, columns: at..<(at + textWidth))
                }
                at += textWidth + 1
            }
        }
    }
}
