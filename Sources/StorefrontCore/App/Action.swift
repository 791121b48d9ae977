/// What the shopper did, decoded from keys by the UI's key bindings.
public enum Action: Hashable, Sendable {
    case moveUp, moveDown, pageUp, pageDown, moveToTop, moveToBottom
    /// Enter: opens, selects or confirms.
    case confirm
    /// Esc: goes back or cancels.
    case back
    case addToCart, showCart, showShop, showOrders, showAccount
    case beginSearch
    /// Typed text, for the search field or a form field.
    case textInput(String)
    case deleteBackward
    /// Tab in a form.
    case nextField
    case addCard, addAddress, makeDefault
    /// The account screen: make an API token.
    case newAPIToken
    /// The account screen: end every session and token of the account, keeping its keys.
    case signOutEverywhere
    /// Signs in a guest, or signs out an account.
    case signInOrOut
    case increaseQuantity, decreaseQuantity, removeLine
    /// ←/→ on a product's page: the focused option's previous or next value.
    case previousChoice, nextChoice
    case pay, buyNow
    /// A product's page: buy it as a subscription.
    case subscribe
    /// The account screen: the shopper's subscriptions.
    case showSubscriptions
    /// The shopper cancels the opened order; the merchant too, in the console.
    case cancelOrder
    /// The merchant console: an order's changes, its tabs, the queue's filter, a refund's restock, the low-stock list.
    case ship, markDelivered, refund, showStock, showSales, nextFilter, previousFilter, toggleRestock, toggleLowStock
    /// The console's catalog: its screen, a new product, publish or unpublish, archive.
    case showCatalog, newProduct, togglePublished, archiveProduct
    /// The console's discount codes: their screen, a new code, pause or resume, delete.
    case showDiscounts, newDiscount, toggleDiscountPaused, deleteDiscount
    /// The console's customers: their screen, a note on the opened one.
    case showCustomers, newNote
    case toggleHelp, quit
    /// The next language the shop speaks, for the rest of the session.
    case nextLanguage
    /// The next market the shop sells in (its currency), until an address decides.
    case nextMarket
    /// The host's list area now fits this many rows.
    case viewportChanged(listRows: Int)
    /// A timer tick from the host while the state is busy.
    case tick
}
