import ShopModels
import StorefrontCore

/// One product's page.
extension Layout {
    static func drawProductDetail(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let detail = state.productDetail else { return }
        let product = detail.product
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
                product, quantityInCart: detail.quantityInCart, column: 2, top: body.top, width: body.width - 4, height: body.height, &p)
        }
    }

    static func drawProductSummaryWithoutArt(_ detail: ProductDetailState, column: Int, top: Int, width: Int, height: Int, _ p: inout Painter) {
        var product = detail.product
        product.art = []
        drawProductSummary(product, quantityInCart: detail.quantityInCart, column: column, top: top, width: width, height: height, &p)
    }
}
