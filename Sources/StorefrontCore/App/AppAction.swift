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
    case cardLink(CardLinkAction)
    case signIn(SignInAction)
    case productList(ProductListAnswer)
    /// The product page's product, read afresh.
    case productDetail(ProductDetailAnswer)
    case cart(CartAnswer)
    case wallet(WalletRead)
    case orders(OrdersAnswer)
    case subscriptions(SubscriptionsAnswer)
    /// The back office answered the merchant console.
    case merchant(MerchantAnswer)
    /// One feature asking another for something (sent with `Effect.send`, reduced in the same step).
    case request(FeatureRequest)
}

/// What a feature asks of another: features talk to each other through these, and `AppReducer` hands each to the
/// feature that does it.
public enum FeatureRequest: Equatable, Sendable {
    /// Add one of `product` to the cart (Cart).
    case addToCart(Product)
    /// The cart was bought: empty it (Cart).
    case emptyCart
    /// These lines were bought in an earlier order that went unanswered: take them out of the cart (Cart).
    case removeBoughtLines([CartLine])
    /// The catalog sells these lines at other prices now: the cart's lines take them (Cart).
    case repriceCart([CartLine])
    /// The shopper is becoming another customer: write the cart for `leaving`, whose lines go into the next
    /// customer's cart when `mergingIntoNext` (Cart).
    case handOverCart(leaving: String, mergingIntoNext: Bool)
    /// Open `product`'s page (ProductDetail).
    case openProduct(Product)
    /// Take a new card: the provider's card page, or the card form (CardLink, Forms).
    case addCard
    /// Take a new card on the provider's card page, whatever the shop's choice (CardLink).
    case addCardOnProvidersPage
    /// Put `order` on the payment sheet (Checkout).
    case beginCheckout(CheckoutOrder)
    /// The discount code typed on the payment sheet's field; empty takes the code off (Checkout).
    case applyDiscountCode(String)
    /// A form saved this to the wallet; a payment sheet waiting for it takes it (Checkout).
    case addedToWallet(WalletEntry)
    /// A form for a new card or address was left unsaved; a payment sheet waiting for it stops waiting (Checkout).
    case walletEntryCanceled(FormState.Purpose)
    /// Sign in, sign out, or answer or leave the sign-in's prompt (SignIn).
    case beginSignIn, signOut
    case submitSignInPrompt(FormState)
    case cancelSignInPrompt
    /// A merchant console's form was submitted (Merchant).
    case submitMerchantForm(FormState)
    /// Open the account's subscriptions (Subscriptions).
    case openSubscriptions
    /// Read the wallet again (Account).
    case reloadWallet
    /// A new API token was made: its secret is shown once on the account screen (Account).
    case showNewAPIToken(secret: String, name: String)
    /// The shop opened, or the shopper became another customer: that customer's wallet, profile and saved cart
    /// are read (Account, Cart).
    case customerChanged
}

/// A card or an address just saved to the wallet.
public enum WalletEntry: Equatable, Sendable {
    case card(PaymentMethod)
    case address(Contact)
}
