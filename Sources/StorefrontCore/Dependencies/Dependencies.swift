import ShopLanguages
import ShopModels
import ShopPorts

/// Every outside dependency of the view model, injected at construction.
public struct StorefrontDependencies: Sendable {
    public var catalog: any CatalogRepository
    public var orderHistory: any OrderHistory
    public var paymentAuthorization: PaymentAuthorization
    public var paymentProvider: any PaymentProvider
    public var merchantBackend: any MerchantBackend
    public var featureFlags: any FeatureFlags
    public var ids: IDGenerator
    /// Where the cart is kept between runs; nil keeps it only for this run.
    public var carts: (any CartRepository)?
    /// Wallets, profiles, sign-in, and who is signed in.
    public var accounts: AccountDependencies
    /// QR codes of the links the shop shows (a card page), so a phone can open them.
    public var qrCodes: any QRCodeMaking
    /// What effects wait on between tries (following a card page): tests give a clock they move.
    public var clock: any Clock<Duration>
    /// Orders' changes after payment: the shopper's cancel, and the merchant console. Nil where the shop has none.
    public var backOffice: (any BackOffice)?
    /// The shop, or the merchant console.
    public var console: Console
    /// The language the session opens in: the shopper's terminal's or browser's, else the shop's default.
    public var language = Language.english
    /// The shopper's country as their locale names it, for how money and dates are written; nil when it names none.
    public var region: String?
    /// The shop's markets, each in its currency; nil for a shop that sells in its own currency alone. `catalog` is the
    /// catalog as the shop's own currency prices it: the environment gives each market its view.
    public var markets: MarketPricing?
    /// The messages the orders' changes wrote for their shoppers; nil where the shop keeps none.
    public var mail: (any MailOutbox)?
    /// The merchant console's catalog editing; nil in the shop.
    public var catalogDesk: CatalogDesk?
    /// The shop's discount codes, looked up from the payment sheet; nil where the shop takes none (every code is unknown).
    public var discounts: (any DiscountCodes)?
    /// The shopper's subscriptions, on the account screen; nil where the shop keeps none (nothing can be subscribed).
    public var subscriptions: ShopperSubscriptions?
    /// The customers as the merchant console finds and reads them; nil for a shopper's session.
    public var customers: (any CustomerDirectory)?
    /// The products' pictures drawn in cells, shared by the process's sessions; nil where the shop shows art alone.
    public var pictures: (any PictureMosaics)?

    public init(
        catalog: any CatalogRepository, orderHistory: any OrderHistory,
        paymentAuthorization: PaymentAuthorization, paymentProvider: any PaymentProvider,
        merchantBackend: any MerchantBackend, featureFlags: any FeatureFlags, ids: IDGenerator,
        carts: (any CartRepository)? = nil, accounts: AccountDependencies, qrCodes: any QRCodeMaking, clock: any Clock<Duration>,
        backOffice: (any BackOffice)? = nil, console: Console = .shop, mail: (any MailOutbox)? = nil, catalogDesk: CatalogDesk? = nil,
        discounts: (any DiscountCodes)? = nil, subscriptions: ShopperSubscriptions? = nil
    ) {
        self.subscriptions = subscriptions
        self.discounts = discounts
        self.mail = mail
        self.catalogDesk = catalogDesk
        self.backOffice = backOffice
        self.console = console
        self.catalog = catalog
        self.orderHistory = orderHistory
        self.paymentAuthorization = paymentAuthorization
        self.paymentProvider = paymentProvider
        self.merchantBackend = merchantBackend
        self.featureFlags = featureFlags
        self.ids = ids
        self.carts = carts
        self.accounts = accounts
        self.qrCodes = qrCodes
        self.clock = clock
    }
}

/// The catalog's editing as the console uses it: the editor, and the dates its changes are recorded at.
public struct CatalogDesk: Sendable {
    public var editor: any CatalogEditing
    public var dates: DateSource
    /// Where the form's picture files are checked and kept; nil where the console takes none.
    public var pictures: (any PictureIntake)?

    public init(editor: any CatalogEditing, dates: DateSource, pictures: (any PictureIntake)? = nil) {
        self.editor = editor
        self.dates = dates
        self.pictures = pictures
    }
}

/// The subscriptions the account screen shows and changes, and the dates their changes are made at.
public struct ShopperSubscriptions: Sendable {
    public var store: any SubscriptionRepository
    public var dates: DateSource

    public init(store: any SubscriptionRepository, dates: DateSource) {
        self.store = store
        self.dates = dates
    }
}
