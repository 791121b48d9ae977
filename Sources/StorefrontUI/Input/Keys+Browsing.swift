import ShopLanguages
import StorefrontCore

/// The keys every browsing screen shares to reach the others: the shop, the cart, the orders and the account.
extension KeyBindings {
    static let browsingTable: [KeyBinding] = [
        KeyBinding(
            keys: [.character("c")], label: "c", action: .showCart, summary: Localized("cart"), contexts: browsing.subtracting([.cart]),
            inFooter: true),
        KeyBinding(
            keys: [.character("s")], label: "s", action: .showShop, summary: Localized("shop"), contexts: browsing.subtracting([.productList]),
            inFooter: true),
        KeyBinding(
            keys: [.character("o")], label: "o", action: .showOrders, summary: Localized("orders"), contexts: browsing.subtracting([.orders]),
            inFooter: true),
        KeyBinding(
            keys: [.character("u")], label: "u", action: .showAccount, summary: Localized("account"), contexts: browsing.subtracting([.account]),
            inFooter: true),
    ]
}
