import ShopLanguages
import ShopModels
import ShopPorts

/// The screens, stacked as the shopper goes deeper; the last one is on top.
public enum Screen: Hashable, Sendable {
    case productList, productDetail, cart, paymentSheet, confirmation, orders, orderDetail
    /// The account: who is signed in, saved cards and addresses.
    case account
    /// The shopper's subscriptions, from the account screen.
    case subscriptions
    /// A form on top of another screen: sign-in, a new card or a new address.
    case form
    /// The payment service's card page, as a link and a QR code, on top of another screen.
    case cardLink
    /// The merchant console (`storefront admin`): the order queue, one order, a refund being chosen, the stock
    /// and the sales summary.
    case merchantQueue, merchantOrder, merchantRefund, merchantStock, merchantSales, merchantCatalog, merchantDiscounts, merchantSubscriptions
    /// The console's customers found by a search, and one customer's page.
    case merchantCustomers, merchantCustomer

    /// A screen the shared keys (shop, cart, orders, account) work on: not a form, the card page, the payment
    /// sheet or the merchant console, which take keys of their own.
    public var isBrowsing: Bool {
        switch self {
        case .productList, .productDetail, .cart, .confirmation, .orders, .orderDetail, .account, .subscriptions: true
        case .form, .paymentSheet, .cardLink, .merchantQueue, .merchantOrder, .merchantRefund, .merchantStock, .merchantSales, .merchantCatalog,
            .merchantDiscounts, .merchantSubscriptions, .merchantCustomers, .merchantCustomer:
            false
        }
    }

    /// A screen of the merchant console.
    public var isMerchants: Bool {
        switch self {
        case .merchantQueue, .merchantOrder, .merchantRefund, .merchantStock, .merchantSales, .merchantCatalog, .merchantDiscounts,
            .merchantSubscriptions, .merchantCustomers, .merchantCustomer:
            true
        case .productList, .productDetail, .cart, .paymentSheet, .confirmation, .orders, .orderDetail, .account, .subscriptions, .form, .cardLink:
            false
        }
    }
}

/// Everything the screens show, and nothing else. Equatable so tests compare whole sequences.
public struct StorefrontState: Equatable, Sendable {
    public var shopName: String
    /// The language every screen speaks, chosen at the start and changed with a key.
    public var language = Language.english
    /// How money and dates are written: the language, in the shopper's region.
    public var formats = FormatLocale.unitedStates
    public var route: [Screen] = [.productList]
    public var cartBadge: CartBadge
    public var productList = ProductListState()
    public var productDetail: ProductDetailState?
    public var cart: CartScreenState
    public var paymentSheet: PaymentSheetState?
    public var confirmation: ConfirmationState?
    public var orders = OrderListState()
    public var subscriptions = SubscriptionListState()
    @OutOfLine public var orderDetail: Order? = nil
    /// The opened order's history, oldest first; empty until it is read.
    public var orderDetailEvents: [OrderEvent] = []
    /// The opened order's messages to its shopper (the receipt first), as the outbox holds them.
    public var orderDetailMessages: [OutboxEntry] = []
    /// The shopper asked to cancel the opened order: confirming, then canceling.
    public var orderCancel: OrderCancelStep?
    /// The shop can cancel orders for their shopper (it has a back office).
    public var canCancelOrders = false
    /// The merchant console's screens; nil in the shop.
    @OutOfLine public var merchant: MerchantConsoleState? = nil
    public var account = AccountState()
    public var form: FormState?
    public var cardLink: CardLinkState?
    public var isHelpShown = false
    public var notice: Notice?
    /// Advances on timer ticks while something is in progress, to animate a spinner.
    public var spinnerPhase = 0
    public var isQuitting = false
    /// Who is shopping, for the header: a name, an email, a key fingerprint, or "guest".
    public var shopperLabel: Localized = "guest"
    /// Whose money a payment moves, for the checkout header: the sandbox's, a provider's test mode, or real.
    public var paymentMode = PaymentMode.sandbox
    /// The database could not be reached; the shop tries again on every tick until it answers.
    public var isWaitingForStorage = false

    public init(shopName: String, currency: Currency) {
        self.shopName = shopName
        self.cartBadge = CartBadge(itemCount: 0, subtotal: .zero(currency))
        self.cart = CartScreenState(totals: CartTotals(subtotal: .zero(currency), shipping: .zero(currency), tax: .zero(currency)))
    }

    public var screen: Screen { route.last ?? .productList }
    /// What has the keys takes typed text (a form, or the search being typed): keys that mean something
    /// elsewhere, such as help or the cart, are text there.
    public var isTakingText: Bool { Self.isTakingText(on: screen, editingQuery: productList.isEditingQuery) }

    /// Whether `screen` takes typed text, its list's search being typed or not: asked of the screens and of the
    /// features' states alike.
    static func isTakingText(on screen: Screen, editingQuery: Bool) -> Bool { screen == .form || (screen == .productList && editingQuery) }

    /// True while a payment is being authorized or processed; the host ticks the spinner then.
    public var isBusy: Bool {
        (paymentSheet?.isBusy ?? false) || (form?.isInProgress ?? false) || (cardLink?.isBusy ?? false) || orderCancel == .canceling
            || (merchant?.prompt?.isWorking ?? false)
    }

    /// True while the host should send ticks: something is in progress, or the database is being waited for.
    public var wantsTicks: Bool { isBusy || isWaitingForStorage }
}

/// Where the shopper's cancel of an order stands.
public enum OrderCancelStep: Equatable, Sendable {
    /// Asked: Enter cancels, Esc keeps the order.
    case confirming
    /// Confirmed, and being made.
    case canceling
}

extension StorefrontState {
    /// The opened order may be canceled by its shopper now: paid, not shipped, and nothing else under way.
    public var canCancelOpenedOrder: Bool {
        guard canCancelOrders, orderCancel == nil, let order = orderDetail else { return false }
        return Self.isCancelableByItsShopper(order, events: orderDetailEvents)
    }

    /// Paid and not shipped, with something left to give back: what a shopper may cancel.
    static func isCancelableByItsShopper(_ order: Order, events: [OrderEvent]) -> Bool {
        guard let lifecycle = try? OrderLifecycle.rebuilt(from: events) else { return false }
        return (order.status == .paid || order.status == .partiallyRefunded) && lifecycle.shipment == nil && lifecycle.refundable.minorUnits > 0
    }
}

/// The cart count and subtotal in the header.
public struct CartBadge: Equatable, Sendable {
    public var itemCount: Int
    public var subtotal: Money
    public init(itemCount: Int, subtotal: Money) {
        self.itemCount = itemCount
        self.subtotal = subtotal
    }
}

/// A one-line message for the shopper: what just happened or what went wrong.
public struct Notice: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case info, error }
    public var kind: Kind
    public var text: Localized
    public init(_ kind: Kind, _ text: Localized) {
        self.kind = kind
        self.text = text
    }
}
