import StoreClients
import StoreModels

/// Everything a reducer handles: the shopper's actions and the answers of effects and delegates.
public enum AppAction: Equatable, Sendable {
    /// A key's action, decoded by the UI's key bindings.
    case key(Action)
    /// One-Tap asked its navigator for a destination.
    case navigate(Destination)
    case checkout(CheckoutAction)
    case form(FormAction)
    case signIn(SignInAction)
    /// The frame showing a cart change is out: now the fresh stock of what was added is checked,
    /// and the change written to the cart store.
    case cartFollowUpDue
}
