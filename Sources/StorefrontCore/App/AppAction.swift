import ShopModels
import ShopPorts

/// Everything a reducer handles: the shopper's actions and the answers of effects and delegates.
public enum AppAction: Equatable, Sendable {
    /// The shop opened: the saved cart, the wallet and the first products are read.
    case opened
    /// A key's action, decoded by the UI's key bindings.
    case key(Action)
    /// One-Tap asked its navigator for a destination.
    case navigate(Destination)
    case checkout(CheckoutAction)
    case form(FormAction)
    case signIn(SignInAction)
    case productList(ProductListAnswer)
    case cart(CartAnswer)
    case wallet(WalletRead)
    case orders(OrdersAnswer)
}
