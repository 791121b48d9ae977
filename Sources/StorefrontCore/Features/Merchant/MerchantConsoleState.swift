import ShopModels
import ShopPorts

/// Which side of the shop a session is: a shopper's, or the merchant's console (`storefront admin`).
public enum Console: Equatable, Sendable {
    case shop
    /// The merchant console; changes are recorded as made by `name` (a local user name or an SSH key's fingerprint).
    case merchant(name: String)
}

/// What the merchant console shows: the order queue, one order whole, a refund being chosen, the stock and the
/// sales summary, and the change waiting for its confirmation.
public struct MerchantConsoleState: Equatable, Sendable {
    /// Who the changes are recorded as made by.
    public var merchantName: String
    public var filter: OrderQueueFilter = .paid
    public var queue = OrderListState()
    /// The order opened from the queue, with its history and refunds.
    public var dossier: OrderDossier?
    /// The lines and quantities a refund is being chosen from.
    public var refund: RefundDraft?
    /// A change asked for and not yet confirmed, or being made.
    public var prompt: MerchantPrompt?
    public var stock = MerchantStockState()
    public var sales: SalesSummary?
    public var catalog = MerchantCatalogState()
    public var discounts = MerchantDiscountsState()
    public var subscriptions = MerchantSubscriptionsState()
    public var customers = MerchantCustomersState()
    /// The latest queue read; answers to older ones are dropped.
    public var request = 0

    public init(merchantName: String) {
        self.merchantName = merchantName
    }

    /// Whether the opened order may be shipped, marked delivered, refunded or canceled now.
    public var canShip: Bool { lifecycle.map { ($0.status == .paid || $0.status == .partiallyRefunded) && $0.shipment == nil } ?? false }
    public var canMarkDelivered: Bool { lifecycle.map { $0.shipment != nil && !$0.isDelivered && $0.status != .refunded } ?? false }
    public var canRefund: Bool { lifecycle.map { $0.status.wasCharged && $0.status != .canceled && $0.refundable.minorUnits > 0 } ?? false }
    public var canCancel: Bool { canShip }

    private var lifecycle: OrderLifecycle? { dossier?.lifecycle }
}

/// A refund being chosen: how many of each line go back, and whether they go back in stock.
public struct RefundDraft: Equatable, Sendable {
    public var order: Order
    /// How many of each product may still be put back (bought, less earlier restocks).
    public var restockable: [ProductID: Int]
    /// What is left of the payment to refund.
    public var refundable: Money
    /// How many of each line are refunded, by the line's position.
    public var quantities: [Int]
    public var selectedIndex = 0
    public var restock = true

    public init(dossier: OrderDossier, refundable: Money) {
        order = dossier.order
        restockable = dossier.restockable
        self.refundable = refundable
        quantities = Array(repeating: 0, count: dossier.order.lines.count)
    }

    /// What the chosen lines come to with their tax, never more than is left to refund.
    public var amount: Money {
        let chosen = Dictionary(zip(order.lines.map(\.stockKey), quantities), uniquingKeysWith: +)
        let amount = order.refundAmount(for: chosen)
        return amount.minorUnits > refundable.minorUnits ? refundable : amount
    }

    /// The stock the refund puts back: the chosen quantities, as far as they may still go back.
    public var restockItems: [Restock] {
        guard restock else { return [] }
        return zip(order.lines, quantities).compactMap { line, quantity in
            let count = min(quantity, restockable[line.stockKey] ?? 0)
            return count > 0 ? Restock(productID: line.stockKey, quantity: count) : nil
        }
    }
}

/// A change to an order or the stock, as the console asks for it.
public enum MerchantChange: Equatable, Sendable {
    case ship(Shipment)
    case deliver
    case cancel
    case refund(RefundAsk)
}

/// A change waiting for the merchant's Enter, with the words that say what it will do.
public struct MerchantPrompt: Equatable, Sendable {
    public var change: MerchantChange
    public var lines: [String]
    /// Confirmed, and being made.
    public var isWorking = false

    public init(change: MerchantChange, lines: [String]) {
        self.change = change
        self.lines = lines
    }
}

/// The stock screen: every product's counts, fewest on hand first.
public struct MerchantStockState: Equatable, Sendable {
    public var levels: [StockLevel] = []
    public var selectedIndex = 0
    /// Only products at or under `lowThreshold` on hand.
    public var isLowOnly = false
    public var lowThreshold = 5
    public var isLoading = false

    public init() {}

    /// The rows shown: all, or the low ones.
    public var shown: [StockLevel] { isLowOnly ? levels.filter { $0.onHand <= lowThreshold } : levels }
}

/// The merchant console's actions: its opening, its keys, its forms' submissions, and what the back office answered.
public enum MerchantAction: KeyedFeatureAction {
    case opened
    case key(Action)
    /// A console form was submitted.
    case submitForm(FormState)
    case queue(request: Int, Result<OrderQueuePage, BackOfficeError>)
    case dossier(Result<OrderDossier, BackOfficeError>)
    case changed(MerchantChange, Result<Order, BackOfficeError>)
    case stock(Result<[StockLevel], BackOfficeError>)
    case stockChanged(Result<StockLevel, BackOfficeError>)
    case sales(Result<SalesSummary, BackOfficeError>)
    /// The catalog's products, whatever their status, and its latest changes.
    case catalog(Result<CatalogListing, CatalogEditError>)
    case catalogEdited(Result<EditableProduct, CatalogEditError>)
    /// The discount codes with their uses held, or why they could not be read.
    case discounts(Result<[DiscountListing], DiscountCodeError>)
    /// A code made, paused, resumed or deleted: what to tell the merchant, or why not.
    case discountChanged(Result<String, DiscountCodeError>)
    /// The subscriptions in the screen's state and the renewals to come, or why not.
    case subscriptions(Result<SubscriptionsRead, SubscriptionRepositoryError>)
    /// A subscription canceled at the end of its period, or why not.
    case subscriptionCanceled(Result<Subscription, SubscriptionChangeRefusal>)
    /// The customers a search found, or why not.
    case customersFound(Result<[CustomerMatch], CustomerDirectoryError>)
    /// A customer's page (nil: gone), or why it could not be read.
    case customerPage(Result<CustomerPage?, CustomerDirectoryError>)

    public init?(_ action: AppAction) {
        guard case .merchant(let action) = action else { return nil }
        self = action
    }
}

/// The catalog screen: every product with its status and version, the one chosen, and the latest changes.
public struct MerchantCatalogState: Equatable, Sendable {
    public var products: [EditableProduct] = []
    public var history: [CatalogHistoryEntry] = []
    public var selectedIndex = 0
    public var isLoading = false
    /// The product the form edits; nil while it makes a new one.
    public var editing: EditableProduct?

    public init() {}

    public var selected: EditableProduct? { products[safe: selectedIndex] }
}

/// What the catalog screen reads: its products and its latest changes.
public struct CatalogListing: Equatable, Sendable {
    public var products: [EditableProduct]
    public var history: [CatalogHistoryEntry]

    public init(products: [EditableProduct], history: [CatalogHistoryEntry]) {
        self.products = products
        self.history = history
    }
}
