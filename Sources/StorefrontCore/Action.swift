/// What the shopper did, decoded from keys by the UI's key bindings.
public enum Action: Equatable, Sendable {
    case moveUp, moveDown, pageUp, pageDown, moveToTop, moveToBottom
    /// Enter: opens, selects or confirms.
    case confirm
    /// Esc: goes back or cancels.
    case back
    case addToCart, showCart, showShop, showOrders
    case beginSearch
    case searchInput(String)
    case searchDeleteBackward
    case increaseQuantity, decreaseQuantity, removeLine
    case pay, buyNow
    case toggleHelp, quit
    /// The host's list area now fits this many rows.
    case viewportChanged(listRows: Int)
    /// A timer tick from the host while the state is busy.
    case tick
}
