import Foundation
import ShopLanguages
import ShopModels
import StorefrontCore

/// Lays out a state at a size: a pure function, the same inputs always give the same frame.
///
/// `previous`, the frame drawn last, changes only the work: rows that show the same are copied from it.
public func layout(_ state: StorefrontState, _ size: Size, charset: Charset = .unicode, pictures: PictureSupport = .art, previous: Frame? = nil)
    -> Frame
{
    Layout.frame(for: state, size: size, charset: charset, pictures: pictures, previous: previous)
}

/// The screen layouts. Rows: header, title, body, notice, footer.
public enum Layout {
    /// Rows outside the body: header, title, notice and footer.
    public static let chromeRows = 4

    /// How many list rows fit at `size`; the host sends this to the view model on every resize.
    public static func listRows(for size: Size) -> Int {
        max(1, size.rows - chromeRows)
    }

    /// Terminals wider than this show a preview pane beside the product list.
    static let previewThreshold = 100

    public static func frame(for state: StorefrontState, size: Size, charset: Charset, pictures: PictureSupport = .art, previous: Frame? = nil)
        -> Frame
    {
        var painter = Painter(size: size, charset: charset, pictures: pictures, formats: state.formats, previous: previous)
        guard !size.isBelowMinimum else {
            drawTooSmall(&painter)
            return painter.frame
        }
        let body = BodyRect(top: 2, height: size.rows - chromeRows, width: size.columns)
        drawHeader(state, &painter)
        switch state.screen {
        case .productList: drawProductList(state, body, &painter)
        case .productDetail: drawProductDetail(state, body, &painter)
        case .cart: drawCart(state, body, &painter)
        case .paymentSheet: drawPaymentSheet(state, body, &painter)
        case .confirmation: drawConfirmation(state, body, &painter)
        case .orders: drawOrders(state, body, &painter)
        case .orderDetail: drawOrderDetail(state, body, &painter)
        case .account: drawAccount(state, body, &painter)
        case .subscriptions: drawSubscriptions(state, body, &painter)
        case .form: drawForm(state, body, &painter)
        case .cardLink: drawCardLink(state, body, &painter)
        case .merchantQueue: state.merchant.map { drawMerchantQueue($0, body, &painter) }
        case .merchantOrder: state.merchant.map { drawMerchantOrder(state, $0, body, &painter) }
        case .merchantRefund: state.merchant.map { drawMerchantRefund(state, $0, body, &painter) }
        case .merchantStock: state.merchant.map { drawMerchantStock($0, body, &painter) }
        case .merchantSales: state.merchant.map { drawMerchantSales($0, body, &painter) }
        case .merchantCatalog: state.merchant.map { drawMerchantCatalog($0, body, &painter) }
        case .merchantDiscounts: state.merchant.map { drawMerchantDiscounts($0, body, &painter) }
        case .merchantSubscriptions: state.merchant.map { drawMerchantSubscriptions($0, body, &painter) }
        case .merchantCustomers: state.merchant.map { drawMerchantCustomers($0, body, &painter) }
        case .merchantCustomer: state.merchant.map { drawMerchantCustomer($0, body, &painter) }
        }
        if state.isHelpShown {
            painter.overlay(rows: body.top..<body.bottom) { drawHelp(state, body, &$0) }
        }
        drawNotice(state, &painter)
        drawFooter(state, &painter)
        return painter.frame
    }

    struct BodyRect {
        var top: Int
        var height: Int
        var width: Int
        var bottom: Int { top + height }
    }
}
