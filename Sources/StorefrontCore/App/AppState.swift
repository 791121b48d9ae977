import ShopModels
import ShopPorts

/// Everything the reducers keep: what the screens show, and what stays behind them.
///
/// Only `screens` is published. Its properties read and write through this type too (`state.route`,
/// `state.notice`), so tests and hosts read one state; `state.cart` is the cart itself, and `state.screens.cart`
/// the cart screen. Features never see it whole: each reduces its scope (`AppState+Scopes`).
@dynamicMemberLookup
public struct AppState: Equatable {
    /// What the screens show; the only part a host sees.
    public var screens: StorefrontState
    /// The shopper's cart; `screens.cart` (the cart screen) and the badge show it.
    public var cart: Cart
    /// The cart as last saved or read, so only real changes are written; nil until the saved cart is read.
    public var savedCart: [CartLine]?
    /// The lines being written now: one write at a time, so an older cart never lands after a newer one.
    public var cartSaveInFlight: [CartLine]?
    /// Lines whose write just failed: not asked for again until the cart changes, or the database is back.
    public var cartSaveFailed: [CartLine]?
    /// Products added on the stock last read, whose fresh stock is read after the frame, each with
    /// the quantity the cart had before the first such add.
    public var stockChecksDue: [ProductID: Int] = [:]
    /// A read of fresh stock is pending; checks due meanwhile wait for the next one.
    public var isStockCheckInFlight = false
    /// The product list's latest read; answers to older ones are dropped.
    public var productListRequest = 0
    /// What the product list waits for, if anything.
    public var productListPending: ProductListPending?
    /// The orders screen's latest read; answers to older ones are dropped.
    public var ordersRequest = 0
    /// The customer's name and email as the shop keeps them, read with the wallet.
    public var profile: AccountProfile?
    /// The wallet is being checked for a card the shop takes, before the payment sheet is made.
    public var isCheckingWallet = false
    /// The first products are on their way: keys typed now are for them, so hosts hold them until they arrive.
    public var isOpening = true
    /// Whose cart, wallet and orders these are: the signed-in account's, or the guest's.
    public var customerID: String
    /// The signed-in account, or nil for a guest.
    public var signedIn: SignedInAccount?
    /// The customer's saved cards and addresses, re-read after every change to them.
    public var wallet = WalletContents()
    /// The account's API tokens that are not revoked, read with the wallet; none for a guest.
    public var apiTokens: [APITokenRecord] = []
    /// Rows the host's list area fits: the size of a list window and of a page.
    public var listRowCapacity = 10
    /// Products read around the visible window, so a scroll by a row seldom asks the catalog.
    public var productsAround = ProductsAround()
    /// The payment sheet's checkout: what it buys, what the sheet offers, the shopper's choices and the charge.
    public var checkout: Checkout?
    /// The payment service's card page being followed, while its link is on screen.
    public var cardPage: CardSetupLink?
    /// What the payment sheet waits for from a form it opened, and what to do with it.
    public var sheetAwaits: SheetAwaits?
    /// The sign-in in progress: its session's id (the session lives in `LiveSessions`) and its nonce.
    public var signIn: SignInProgress?
    /// The id the next sign-in session is filed under.
    public var nextSessionID = 1
    /// What the shopper saw before the action being handled; a checkout closed unpaid gives it back.
    public var noticeBeforeAction: Notice?

    public init(screens: StorefrontState, cart: Cart, customerID: String, signedIn: SignedInAccount?) {
        self.screens = screens
        self.cart = cart
        self.customerID = customerID
        self.signedIn = signedIn
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<StorefrontState, Value>) -> Value {
        get { screens[keyPath: keyPath] }
        set { screens[keyPath: keyPath] = newValue }
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<StorefrontState, Value>) -> Value {
        screens[keyPath: keyPath]
    }

    /// A checkout has begun and its sheet is not up yet: the controller is presenting it.
    public var isPresentingSheet: Bool { checkout != nil && screens.paymentSheet == nil }

    /// False while a screen is on its way (the first products, a customer's saved cart, the payment sheet,
    /// a form being saved): keys typed now wait for it.
    public var isAcceptingInput: Bool {
        !isOpening && savedCart != nil && !isPresentingSheet && !isCheckingWallet && !(screens.form?.isBusy ?? false)
    }
}

/// What the reducers work with: the injected dependencies, the shop's profile, the mailbox, and the sign-in sessions their effects use.
@MainActor
public struct ShopEnvironment {
    public let dependencies: StorefrontDependencies
    /// The shop: name, currency, shipping, tax and card networks.
    public let shopProfile: ShopProfile
    /// Where effects, delegates and One-Tap's navigator post their actions.
    public let mailbox: ActionMailbox
    /// The live sign-in sessions, which only effects touch.
    public let sessions: LiveSessions

    public init(dependencies: StorefrontDependencies, mailbox: ActionMailbox = ActionMailbox(), sessions: LiveSessions = LiveSessions()) {
        self.dependencies = dependencies
        self.shopProfile = dependencies.catalog.shop
        self.mailbox = mailbox
        self.sessions = sessions
    }

    /// One-Tap for an entry point, navigating through the mailbox.
    func oneTap(_ entryPoint: OneTapCheckout.EntryPoint) -> OneTapCheckout {
        OneTapCheckout(entryPoint: entryPoint, flags: dependencies.featureFlags, navigator: mailbox)
    }
}

/// A sign-in in progress, as the state keeps it: which session, and the nonce its identity token must carry.
public struct SignInProgress: Equatable, Sendable {
    public var sessionID: Int
    public var nonce: String?
    /// A prompt is on screen and its answer has not been sent.
    public var isPromptShown = false
    public init(sessionID: Int, nonce: String?) {
        self.sessionID = sessionID
        self.nonce = nonce
    }
}
