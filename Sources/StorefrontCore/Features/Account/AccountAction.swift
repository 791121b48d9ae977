import ShopModels
import ShopPorts

/// The account screen's actions: its keys, the wallet's reads, the reads and tokens others ask for, and what it asks of
/// the others.
public enum AccountAction: KeyedFeatureAction {
    case key(Action)
    case loaded(WalletRead)
    /// Read the wallet again.
    case reloadWallet
    /// A new API token was made: its secret is shown once on the screen.
    case showNewAPIToken(secret: String, name: String)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        /// Take a new card: the provider's page, or the card form.
        case addCard
        case beginSignIn, signOut
        case openSubscriptions
    }

    public init?(_ action: AppAction) {
        guard case .account(let action) = action else { return nil }
        self = action
    }
}
