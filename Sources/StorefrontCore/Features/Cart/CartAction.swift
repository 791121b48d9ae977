import ShopApplication
import ShopModels
import ShopPorts

/// The cart's actions: its keys, what its repository and the catalog answered, what the others ask of it, and what it
/// asks of them.
public enum CartAction: KeyedFeatureAction {
    case key(Action)
    /// The saved cart of `customer`, or why it could not be read.
    case restored(customer: String, Result<[CartLine], StorageError>)
    case saved(customer: String, lines: [CartLine])
    case saveFailed(customer: String, lines: [CartLine], StorageError)
    /// The fresh stock of products added on the stock last read.
    case stockChecked([StockCheck])
    /// The fresh stock of a product whose stock as read refused an add (nil: not tracked or unreadable).
    case stockReadForAdd(Product, stock: Int?)
    /// What the catalog says of `customer`'s cart now: the lines it no longer sells, and those at another price.
    case catalogChecked(customer: String, CatalogCheck.CartReview)
    /// Add one of `product`.
    case add(Product)
    /// The cart was bought: empty it.
    case empty
    /// These lines were bought in an earlier order that went unanswered: take them out.
    case removeBought([CartLine])
    /// The catalog sells these lines at other prices now: the cart's lines take them.
    case reprice([CartLine])
    /// The shopper is becoming another customer: write the cart for `leaving`, whose lines go into the next
    /// customer's cart when `mergingIntoNext`.
    case handOver(leaving: String, mergingIntoNext: Bool)
    /// The shop opened, or the shopper became another customer: that customer's saved cart is read.
    case restore
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        /// Pay: put `order` on the payment sheet.
        case beginCheckout(CheckoutOrder)
    }

    public init?(_ action: AppAction) {
        guard case .cart(let action) = action else { return nil }
        self = action
    }
}
