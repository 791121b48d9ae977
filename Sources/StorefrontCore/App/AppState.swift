import LiveObjects
import ShopModels
import ShopPorts

/// Everything the reducers keep: each feature's state under a property of its own, the shell every feature shares,
/// who the customer is, and what the app reducer itself keeps.
///
/// A feature reduces its property through a scope (`scope(_:_:)`, by key path, in `App/Scoped.swift`), never the whole
/// state. What the screens show is made from these properties (`screens`, in `AppState+Screens`); it is the only part
/// a host sees, and reads of it go through this type too (`state.route`, `state.paymentSheet`).
@dynamicMemberLookup
public struct AppState: Equatable {
    /// Where the shopper is, the form on top, what the shop tells them, and the database's outage.
    public var shell = Shell(route: [.productList], form: nil, notice: nil, isWaitingForStorage: false)
    /// Whose cart, wallet and orders these are, and what the shop keeps of them.
    public var customer: Customer
    public var productList = ProductListFeature.Owned()
    public var productDetail = ProductDetailFeature.Owned()
    public var cart: CartFeature.Owned
    public var checkout = CheckoutFeature.Owned()
    /// The market the cart and the products on screen are priced in: `shell.market` once a step has followed a move.
    public var pricedMarket: String?
    public var orders = OrdersFeature.Owned()
    public var account = AccountFeature.Owned()
    public var subscriptions = SubscriptionsFeature.Owned()
    /// The merchant console; nil in the shop.
    @OutOfLine public var merchant: MerchantFeature.Owned? = nil
    public var cardLink = CardLinkFeature.Owned()
    public var signIn = SignInFeature.Owned()
    public var forms = FormFeature.Owned()

    /// The shop's name, for the header.
    public var shopName: String
    /// Whose money a payment moves, for the checkout header: the sandbox's, a provider's test mode, or real.
    public var paymentMode = PaymentMode.sandbox
    /// The shop can cancel orders for their shopper (it has a back office).
    public var canCancelOrders = false
    public var isHelpShown = false
    /// Advances on timer ticks while something is in progress, to animate a spinner.
    public var spinnerPhase = 0
    public var isQuitting = false
    /// Rows the host's list area fits: the size of a list window and of a page.
    public var listRowCapacity = 10
    /// What the shopper saw before the action being handled; a checkout closed unpaid gives it back.
    public var noticeBeforeAction: Notice?

    public init(shopName: String, currency: Currency, customerID: String, signedIn: SignedInAccount?) {
        self.shopName = shopName
        self.customer = Customer(customerID: customerID, signedIn: signedIn)
        self.cart = CartFeature.Owned(currency: currency)
    }

    /// What the screens show now, read as the host reads it.
    public subscript<Value>(dynamicMember keyPath: KeyPath<StorefrontState, Value>) -> Value {
        screens[keyPath: keyPath]
    }

    /// The screen on top.
    public var screen: Screen { shell.screen }

    /// A checkout has begun and its sheet is not up yet: the controller is presenting it.
    public var isPresentingSheet: Bool { checkout.checkout != nil && checkout.sheet == nil }

    /// False while a screen is on its way (the first products, a customer's saved cart, the payment sheet,
    /// a form being saved): keys typed now wait for it.
    public var isAcceptingInput: Bool {
        !productList.isOpening && cart.savedCart != nil && !isPresentingSheet && !checkout.isCheckingWallet && !(shell.form?.isBusy ?? false)
    }
}

/// Who is shopping: the customer id their cart, wallet and orders are filed under, the account signed in (nil for a
/// guest), and what the shop keeps of them. Sign-in changes who; the account screen reads what is kept.
public struct Customer: Equatable, Sendable {
    public var customerID: String
    /// The signed-in account, or nil for a guest.
    public var signedIn: SignedInAccount?
    /// The customer's name and email as the shop keeps them, read with the wallet.
    public var profile: AccountProfile?
    /// The customer's saved cards and addresses, re-read after every change to them.
    public var wallet = WalletContents()
    /// The account's API tokens that are not revoked, read with the wallet; none for a guest.
    public var apiTokens: [APITokenRecord] = []
    /// The account's keys, providers and sessions, read with the wallet; nil for a guest.
    public var waysIn: AccountWaysIn?

    public init(customerID: String, signedIn: SignedInAccount?) {
        self.customerID = customerID
        self.signedIn = signedIn
    }
}

/// What the reducers work with: the injected dependencies, the shop's profile, the mailbox, and the sign-in sessions their effects use.
@MainActor
public struct ShopEnvironment {
    /// What a market prices, in one object: a step copies its environment several times (`inMarket`), and a copy
    /// retains this once instead of every dependency and every string of the profile.
    private final class Priced: LiveObject {
        let dependencies: StorefrontDependencies
        let shopProfile: ShopProfile
        let market: Market?

        init(dependencies: StorefrontDependencies, shopProfile: ShopProfile, market: Market?) {
            self.dependencies = dependencies
            self.shopProfile = shopProfile
            self.market = market
        }
    }

    private var priced: Priced
    /// The dependencies, with the catalog as the session's market prices it.
    public var dependencies: StorefrontDependencies { _read { yield priced.dependencies } }
    /// The shop: name, currency, shipping, tax and card networks, as the session's market sees it.
    public var shopProfile: ShopProfile { _read { yield priced.shopProfile } }
    /// The market the catalog and profile are priced for; nil for a shop without markets.
    public var market: Market? { priced.market }
    /// The catalog in the shop's own currency, which each market's view prices.
    private let baseCatalog: any CatalogRepository
    /// Where effects, delegates and One-Tap's navigator post their actions.
    public let mailbox: ActionMailbox
    /// The sign-in attempts in progress, which only effects touch.
    public let signIns: LiveSignIns

    public init(dependencies: StorefrontDependencies, mailbox: ActionMailbox = ActionMailbox(), signIns: LiveSignIns = LiveSignIns()) {
        self.priced = Priced(dependencies: dependencies, shopProfile: dependencies.catalog.shop, market: nil)
        self.baseCatalog = dependencies.catalog
        self.mailbox = mailbox
        self.signIns = signIns
        if let markets = dependencies.markets { price(in: markets.home, markets) }
    }

    private mutating func price(in chosen: Market, _ markets: MarketPricing) {
        var dependencies = priced.dependencies
        dependencies.catalog = MarketCatalog(baseCatalog, pricing: markets, market: chosen)
        priced = Priced(dependencies: dependencies, shopProfile: markets.shop(in: chosen), market: chosen)
    }

    /// The environment of the market `id` (the state's `shell.market`): the reducers see its catalog and profile
    /// alone. Itself when that market is already its own, or is none the shop has.
    public func inMarket(_ id: String?) -> ShopEnvironment {
        guard let markets = dependencies.markets, let id, id != market?.id, let chosen = markets.market(id: id) else { return self }
        var copy = self
        copy.price(in: chosen, markets)
        return copy
    }

    /// One-Tap for an entry point, navigating through the mailbox.
    func oneTap(_ entryPoint: OneTapCheckout.EntryPoint) -> OneTapCheckout {
        OneTapCheckout(entryPoint: entryPoint, flags: dependencies.featureFlags, navigator: mailbox)
    }
}

/// A sign-in in progress, as the state keeps it: which attempt, and the nonce its identity token must carry.
public struct SignInProgress: Equatable, Sendable {
    public var signInID: Int
    public var nonce: String?
    /// A prompt is on screen and its answer has not been sent.
    public var isPromptShown = false
    public init(signInID: Int, nonce: String?) {
        self.signInID = signInID
        self.nonce = nonce
    }
}
