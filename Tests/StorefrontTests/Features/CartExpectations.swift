import StoreModels
import StorefrontCore

extension AppState {
    /// What adding `line` to an empty cart changes, in `shop`: the cart, its screen and badge, the
    /// notice, and a stock check and a save due once the frame is out.
    mutating func expectAdded(_ line: CartLine, in shop: StoreProfile = .standard()) {
        cart = Cart(currency: shop.currency, lines: [line])
        screens.cart.lines = [line]
        screens.cart.totals = cart.totals(shipping: shop.shippingMethods.first, tax: shop.tax)
        screens.cartBadge = CartBadge(itemCount: line.quantity, subtotal: line.unitPrice * line.quantity)
        screens.cart.canBuyNow = true
        screens.notice = Notice(.info, "Added \(line.name) to your cart.")
        if stockChecksDue[line.productID] == nil { stockChecksDue[line.productID] = line.quantity - 1 }
        isCartFollowUpDue = true
    }
}
