import ShopModels
import ShopPorts

/// Everything the app's root reduces: the opening, a key, and each feature's own actions.
///
/// Each feature's action enum holds its keys (`.key`, decoded by the feature), its effects' answers, what the app hands
/// it, and a `.delegate` case for what it asks of the others, which `AppReducer` hands on (as SyncUps' `AppFeature`
/// does).
public enum AppAction: Equatable, Sendable {
    /// The shop opened: the saved cart, the wallet and the first products are read.
    case opened
    /// A key's action, decoded by the UI's key bindings; the root hands it to the screen on top.
    case key(Action)
    case productList(ProductListAction)
    case productDetail(ProductDetailAction)
    case cart(CartAction)
    case checkout(CheckoutAction)
    case orders(OrdersAction)
    case subscriptions(SubscriptionsAction)
    case account(AccountAction)
    case signIn(SignInAction)
    case cardLink(CardLinkAction)
    case form(FormAction)
    case merchant(MerchantAction)
}

/// A feature's whole vocabulary, and its place among the app's actions.
public protocol FeatureAction: Equatable, Sendable {
    /// The feature's action within `action`; nil where `action` is another feature's.
    init?(_ action: AppAction)
}

/// A feature action that carries a key, which the feature decodes into its own keys.
public protocol KeyedFeatureAction: FeatureAction {
    static func key(_ key: Action) -> Self
}

/// A card or an address just saved to the wallet.
public enum WalletEntry: Equatable, Sendable {
    case card(PaymentMethod)
    case address(Contact)
}
