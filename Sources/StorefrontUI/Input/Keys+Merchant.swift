import ShopLanguages
import StorefrontCore

/// The merchant console's keys: its tabs, the queue's filter, an order's changes, a refund's lines, the stock.
extension KeyBindings {
    private static let console: Set<KeyContext> = [
        .merchantQueue, .merchantOrder, .merchantRefund, .merchantStock, .merchantSales, .merchantCatalog, .merchantDiscounts,
        .merchantSubscriptions, .merchantCustomers, .merchantCustomer,
    ]

    static let merchantTable: [KeyBinding] = [
        KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: "open", contexts: [.merchantQueue], inFooter: true),
        KeyBinding(keys: [.tab, .right], label: "Tab/→", action: .nextFilter, summary: "next status", contexts: [.merchantQueue], inFooter: true),
        KeyBinding(keys: [.left], label: "←", action: .previousFilter, summary: "previous status", contexts: [.merchantQueue], inFooter: false),
        KeyBinding(
            keys: [.character("s")], label: "s", action: .ship, summary: "ship", contexts: [.merchantOrder], inFooter: true,
            appliesWhen: { $0.merchant?.canShip ?? false }),
        KeyBinding(
            keys: [.character("d")], label: "d", action: .markDelivered, summary: "delivered", contexts: [.merchantOrder], inFooter: true,
            appliesWhen: { $0.merchant?.canMarkDelivered ?? false }),
        KeyBinding(
            keys: [.character("r")], label: "r", action: .refund, summary: "refund", contexts: [.merchantOrder], inFooter: true,
            appliesWhen: { $0.merchant?.canRefund ?? false }),
        KeyBinding(
            keys: [.character("x")], label: "x", action: .cancelOrder, summary: "cancel order", contexts: [.merchantOrder], inFooter: true,
            appliesWhen: { $0.merchant?.canCancel ?? false }),
        KeyBinding(
            keys: [.character("+"), .character("=")], label: "+/-", action: .increaseQuantity, summary: "quantity", contexts: [.merchantRefund],
            inFooter: true),
        KeyBinding(
            keys: [.character("+"), .character("=")], label: "+/-", action: .increaseQuantity, summary: "adjust", contexts: [.merchantStock],
            inFooter: true),
        KeyBinding(
            keys: [.character("-")], label: "-", action: .decreaseQuantity, summary: "less", contexts: [.merchantRefund, .merchantStock],
            inFooter: false),
        KeyBinding(
            keys: [.character("r"), .character(" ")], label: "r", action: .toggleRestock, summary: "restock", contexts: [.merchantRefund],
            inFooter: true),
        KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: "amount", contexts: [.merchantRefund], inFooter: true),
        KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: "set count", contexts: [.merchantStock], inFooter: true),
        KeyBinding(keys: [.character("l")], label: "l", action: .toggleLowStock, summary: "low stock", contexts: [.merchantStock], inFooter: true),
        KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: "edit", contexts: [.merchantCatalog], inFooter: true),
        KeyBinding(keys: [.character("n")], label: "n", action: .newProduct, summary: "new product", contexts: [.merchantCatalog], inFooter: true),
        KeyBinding(
            keys: [.character("p")], label: "p", action: .togglePublished, summary: "publish/unpublish", contexts: [.merchantCatalog],
            inFooter: true),
        KeyBinding(keys: [.character("x")], label: "x", action: .archiveProduct, summary: "archive", contexts: [.merchantCatalog], inFooter: true),
        KeyBinding(keys: [.character("n")], label: "n", action: .newDiscount, summary: "new code", contexts: [.merchantDiscounts], inFooter: true),
        KeyBinding(
            keys: [.character("p")], label: "p", action: .toggleDiscountPaused, summary: "pause/resume", contexts: [.merchantDiscounts],
            inFooter: true),
        KeyBinding(keys: [.character("x")], label: "x", action: .deleteDiscount, summary: "delete", contexts: [.merchantDiscounts], inFooter: true),
        // The customers' own keys come before the tabs, so a narrow footer keeps them.
        KeyBinding(
            keys: [.character("/")], label: "/", action: .beginSearch, summary: "find", contexts: [.merchantCustomers, .merchantCustomer],
            inFooter: true),
        KeyBinding(
            keys: [.enter], label: "Enter", action: .confirm, summary: "open", contexts: [.merchantCustomers], inFooter: true,
            appliesWhen: { !($0.merchant?.customers.matches.isEmpty ?? true) }),
        KeyBinding(
            keys: [.enter], label: "Enter", action: .confirm, summary: "order", contexts: [.merchantCustomer], inFooter: true,
            appliesWhen: { !($0.merchant?.customers.page?.orders.isEmpty ?? true) }),
        KeyBinding(keys: [.character("n")], label: "n", action: .newNote, summary: "note", contexts: [.merchantCustomer], inFooter: true),
        KeyBinding(
            keys: [.enter], label: "Enter", action: .confirm, summary: "confirm", contexts: [.merchantPrompt], inFooter: true,
            appliesWhen: { !($0.merchant?.prompt?.isWorking ?? true) }),
        KeyBinding(
            keys: [.escape], label: "Esc", action: .back, summary: "don't", contexts: [.merchantPrompt], inFooter: true,
            appliesWhen: { !($0.merchant?.prompt?.isWorking ?? true) }),
        KeyBinding(keys: [.escape], label: "Esc", action: .back, summary: "back", contexts: console.subtracting([.merchantQueue]), inFooter: true),
        KeyBinding(
            keys: [.character("1")], label: "1", action: .showOrders, summary: "orders", contexts: console.subtracting([.merchantQueue]),
            inFooter: true),
        KeyBinding(
            keys: [.character("2")], label: "2", action: .showStock, summary: "stock", contexts: console.subtracting([.merchantStock]), inFooter: true
        ),
        KeyBinding(
            keys: [.character("3")], label: "3", action: .showSales, summary: "sales", contexts: console.subtracting([.merchantSales]), inFooter: true
        ),
        KeyBinding(
            keys: [.character("4")], label: "4", action: .showCatalog, summary: "catalog", contexts: console.subtracting([.merchantCatalog]),
            inFooter: true),
        KeyBinding(
            keys: [.character("5")], label: "5", action: .showDiscounts, summary: "codes", contexts: console.subtracting([.merchantDiscounts]),
            inFooter: true),
        KeyBinding(
            keys: [.character("6")], label: "6", action: .showSubscriptions, summary: "subscriptions",
            contexts: console.subtracting([.merchantSubscriptions]), inFooter: true),
        KeyBinding(
            keys: [.character("7")], label: "7", action: .showCustomers, summary: "customers", contexts: console.subtracting([.merchantCustomers]),
            inFooter: true),
        KeyBinding(
            keys: [.tab, .right], label: "Tab/→", action: .nextFilter, summary: "next state", contexts: [.merchantSubscriptions], inFooter: true),
        KeyBinding(
            keys: [.left], label: "←", action: .previousFilter, summary: "previous state", contexts: [.merchantSubscriptions], inFooter: false),
        KeyBinding(
            keys: [.character("x")], label: "x", action: .cancelOrder, summary: "cancel at period end", contexts: [.merchantSubscriptions],
            inFooter: true, appliesWhen: { ($0.merchant?.subscriptions.selected).map { $0.status != .canceled && !$0.endsAtPeriodEnd } ?? false }),
    ]
}
