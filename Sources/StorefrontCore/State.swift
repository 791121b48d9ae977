import StoreModels

/// The screens, stacked as the shopper goes deeper; the last one is on top.
public enum Screen: Hashable, Sendable {
    case productList, productDetail, cart, paymentSheet, confirmation, orders, orderDetail
    /// The account: who is signed in, saved cards and addresses.
    case account
    /// A form on top of another screen: sign-in, a new card or a new address.
    case form
}

/// Everything the screens show, and nothing else. Equatable so tests compare whole sequences.
public struct StorefrontState: Equatable, Sendable {
    public var shopName: String
    public var route: [Screen] = [.productList]
    public var cartBadge: CartBadge
    public var productList = ProductListState()
    public var productDetail: ProductDetailState?
    public var cart: CartScreenState
    public var paymentSheet: PaymentSheetState?
    public var confirmation: ConfirmationState?
    public var orders = OrderListState()
    public var orderDetail: Order?
    public var account = AccountState()
    public var form: FormState?
    public var isHelpShown = false
    public var notice: Notice?
    /// Advances on timer ticks while something is in progress, to animate a spinner.
    public var spinnerPhase = 0
    public var isQuitting = false
    /// Who is shopping, for the header: a name, an email, a key fingerprint, or "guest".
    public var shopperLabel = "guest"

    public init(shopName: String, currency: Currency) {
        self.shopName = shopName
        self.cartBadge = CartBadge(itemCount: 0, subtotal: .zero(currency))
        self.cart = CartScreenState(totals: CartTotals(subtotal: .zero(currency), shipping: .zero(currency), tax: .zero(currency)))
    }

    public var screen: Screen { route.last ?? .productList }

    /// True while a payment is being authorized or processed; the host ticks the spinner then.
    public var isBusy: Bool { (paymentSheet?.isBusy ?? false) || (form?.isBusy ?? false) }
}

/// The cart count and subtotal in the header.
public struct CartBadge: Equatable, Sendable {
    public var itemCount: Int
    public var subtotal: Money
}

/// A one-line message for the shopper: what just happened or what went wrong.
public struct Notice: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case info, error }
    public var kind: Kind
    public var text: String
    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }
}

/// The visible window of the product list, plus the total count; never the whole catalog.
public struct ProductListState: Equatable, Sendable {
    public var query = ""
    public var isEditingQuery = false
    public var totalCount = 0
    /// Index of the first visible row within the matches.
    public var windowStart = 0
    public var rows: [Product] = []
    /// Index of the selected product within the matches.
    public var selectedIndex = 0

    public var selectedProduct: Product? {
        let offset = selectedIndex - windowStart
        return rows.indices.contains(offset) ? rows[offset] : nil
    }
}

/// One product's page.
public struct ProductDetailState: Equatable, Sendable {
    public var product: Product
    public var quantityInCart: Int
    public var canBuyNow: Bool
}

/// The cart screen, with totals estimated on the default shipping method.
public struct CartScreenState: Equatable, Sendable {
    public var lines: [CartLine] = []
    public var selectedIndex = 0
    public var totals: CartTotals
    public var shippingLabel = ""
    public var canBuyNow = false
}

/// The rows of the payment sheet, top to bottom.
public enum PaymentSheetRow: Int, CaseIterable, Hashable, Sendable {
    case card, shippingAddress, shippingMethod, contact

    public var title: String {
        switch self {
        case .card: "Card"
        case .shippingAddress: "Ship to"
        case .shippingMethod: "Shipping"
        case .contact: "Contact"
        }
    }
}

/// A list of choices for one sheet row.
public struct ChooserState: Equatable, Sendable {
    public struct Option: Equatable, Sendable {
        public var title: String
        public var detail: String
    }
    public var row: PaymentSheetRow
    public var options: [Option]
    public var selectedIndex: Int
}

/// The payment sheet, modelled on Apple Pay's.
public struct PaymentSheetState: Equatable, Sendable {
    public var merchantName: String
    /// The text of each row's current choice.
    public var rowValues: [PaymentSheetRow: String]
    /// Errors the merchant reported for a row, shown next to it.
    public var rowErrors: [PaymentSheetRow: String] = [:]
    public var selectedRow: PaymentSheetRow = .card
    public var chooser: ChooserState?
    public var summaryItems: [SummaryItem]
    /// "Authorizing…", "Processing…", a failure, or nil.
    public var status: String?
    public var isStatusError = false
    public var isPayEnabled: Bool
    /// The Touch ID stand-in: "Pay <merchant> <total>? Enter to confirm, Esc to cancel".
    public var authorizationPrompt: String?
    /// The wallet has no card on the merchant's networks: the sheet offers "Set up card" instead of Pay.
    public var offersCardSetup = false
    public var isBusy = false
}

/// The "Thank you" screen.
public struct ConfirmationState: Equatable, Sendable {
    public var orderNumber: String
    public var total: Money
    public var itemCount: Int
    public var paymentDescription: String
    public var shipTo: String
    public var shippingMethodLabel: String
}

/// The account screen: who is shopping, and the saved cards and addresses.
public struct AccountState: Equatable, Sendable {
    /// The name, the email or the key fingerprint; "Guest" when signed out.
    public var title = "Guest"
    public var detail = ""
    public var isSignedIn = false
    /// A guest can sign in (where an identity provider is offered).
    public var canSignIn = false
    /// Sandbox ID accounts can sign out; an SSH key identity cannot.
    public var canSignOut = false
    public var rows: [AccountRow] = []
    public var selectedIndex = 0
    /// One-Tap is ready: a default card on the shop's networks and a default address.
    public var isOneTapReady = false

    public init() {}

    public var selectedRow: AccountRow? { rows.indices.contains(selectedIndex) ? rows[selectedIndex] : nil }
}

/// A saved card or address on the account screen.
public struct AccountRow: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case card, address }
    public var kind: Kind
    public var id: String
    public var title: String
    public var detail: String
    public var isDefault: Bool
}

/// A form: sign-in, a new card, or a new address. Each field shows its own error in place.
public struct FormState: Equatable, Sendable {
    public enum Purpose: Equatable, Sendable { case signIn, addCard, addAddress }
    public struct Field: Equatable, Sendable {
        public var id: String
        public var label: String
        public var value: String
        public var hint: String
        public var error: String?
        /// Drawn as dots (the security code).
        public var isMasked: Bool
        public init(id: String, label: String, value: String = "", hint: String = "", error: String? = nil, isMasked: Bool = false) {
            self.id = id
            self.label = label
            self.value = value
            self.hint = hint
            self.error = error
            self.isMasked = isMasked
        }
    }
    public var purpose: Purpose
    public var title: String
    public var message: String
    public var fields: [Field]
    public var focusedIndex = 0
    public var submitLabel: String
    /// "Saving…", or what went wrong with the whole form.
    public var status: String?
    public var isStatusError = false
    public var isBusy = false

    public init(purpose: Purpose, title: String, message: String, fields: [Field], submitLabel: String) {
        self.purpose = purpose
        self.title = title
        self.message = message
        self.fields = fields
        self.submitLabel = submitLabel
    }

    public var isOnLastField: Bool { focusedIndex >= fields.count - 1 }
    public func value(_ id: String) -> String { fields.first { $0.id == id }?.value ?? "" }
}

/// The visible window of past orders, newest first.
public struct OrderListState: Equatable, Sendable {
    public var totalCount = 0
    public var windowStart = 0
    public var rows: [Order] = []
    public var selectedIndex = 0
}
