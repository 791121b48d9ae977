import ShopModels
import StorefrontCore

extension AppState {
    /// What adding `line` to an empty cart changes, in `shop`: the cart, its screen and badge, the
    /// notice, and the fresh stock check that follows the frame (started now, or due after the one in flight).
    /// `startsCheck`: false for a cart that a check's answer puts back, which asks for no check of its own.
    mutating func expectAdded(_ line: CartLine, in shop: ShopProfile = .standard(), startsCheck: Bool = true) {
        cart.cart = Cart(currency: shop.currency, lines: [line])
        cart.screen.lines = [line]
        cart.screen.totals = shop.estimatedTotals(cart.cart)
        cart.badge = CartBadge(itemCount: line.quantity, subtotal: line.unitPrice * line.quantity)
        cart.screen.canBuyNow = true
        shell.notice = Notice(.info, "Added \(line.name) to your cart.")
        guard startsCheck else { return }
        if cart.isStockCheckInFlight {
            if cart.stockChecksDue[line.productID] == nil { cart.stockChecksDue[line.productID] = line.quantity - 1 }
        } else {
            cart.isStockCheckInFlight = true
        }
    }

    /// What the stock check's answer changes when it takes nothing back: the write may follow.
    mutating func expectStockChecked(writing lines: [CartLine]? = nil) {
        cart.isStockCheckInFlight = false
        cart.saveInFlight = lines
    }

    /// What a write's answer changes: the lines are what the database holds.
    mutating func expectSaved(_ lines: [CartLine]) {
        cart.saveInFlight = nil
        cart.savedCart = lines
    }
}

extension StockCheck {
    /// The check of `line`'s product after one add, at `stock`.
    static func afterAdding(_ line: CartLine, stock: Int?) -> StockCheck {
        StockCheck(productID: line.productID, quantityBefore: line.quantity - 1, stock: stock)
    }
}
