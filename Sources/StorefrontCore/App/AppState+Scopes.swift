import ShopModels
import ShopPorts

/// Each feature's state, scoped from the app state: read before the feature reduces, written back after.
///
/// A scope holds what its feature owns, the shell every feature shares, and (as `let`) what it reads of
/// others' state; its setter writes back only what the feature may change. This is the one place that knows
/// where each part lives in the app state.
extension AppState {
    var shell: Shell {
        get { Shell(route: screens.route, form: screens.form, notice: screens.notice, isWaitingForStorage: screens.isWaitingForStorage) }
        set {
            screens.route = newValue.route
            screens.form = newValue.form
            screens.notice = newValue.notice
            screens.isWaitingForStorage = newValue.isWaitingForStorage
        }
    }

    var productListScope: ProductListFeature.State {
        get {
            ProductListFeature.State(
                list: screens.productList, request: productListRequest, pending: productListPending, around: productsAround,
                isOpening: isOpening, shell: shell, rowCapacity: listRowCapacity
            )
        }
        set {
            screens.productList = newValue.list
            productListRequest = newValue.request
            productListPending = newValue.pending
            productsAround = newValue.around
            isOpening = newValue.isOpening
            shell = newValue.shell
        }
    }

    var productDetailScope: ProductDetailFeature.State {
        get { ProductDetailFeature.State(page: screens.productDetail, shell: shell) }
        set {
            screens.productDetail = newValue.page
            shell = newValue.shell
        }
    }

    var cartScope: CartFeature.State {
        get {
            CartFeature.State(
                cart: cart, screen: screens.cart, badge: screens.cartBadge, savedCart: savedCart, saveInFlight: cartSaveInFlight,
                saveFailed: cartSaveFailed, stockChecksDue: stockChecksDue, isStockCheckInFlight: isStockCheckInFlight, shell: shell,
                customerID: customerID, isOneTapReady: screens.account.isOneTapReady
            )
        }
        set {
            cart = newValue.cart
            screens.cart = newValue.screen
            screens.cartBadge = newValue.badge
            savedCart = newValue.savedCart
            cartSaveInFlight = newValue.saveInFlight
            cartSaveFailed = newValue.saveFailed
            stockChecksDue = newValue.stockChecksDue
            isStockCheckInFlight = newValue.isStockCheckInFlight
            shell = newValue.shell
        }
    }

    var checkoutScope: CheckoutFeature.State {
        get {
            CheckoutFeature.State(
                sheet: screens.paymentSheet, checkout: checkout, sheetAwaits: sheetAwaits, isCheckingWallet: isCheckingWallet,
                confirmation: screens.confirmation, shell: shell,
                noticeBeforeAction: noticeBeforeAction, cartLines: cart.lines, customerID: customerID, profile: profile
            )
        }
        set {
            screens.paymentSheet = newValue.sheet
            checkout = newValue.checkout
            sheetAwaits = newValue.sheetAwaits
            isCheckingWallet = newValue.isCheckingWallet
            screens.confirmation = newValue.confirmation
            shell = newValue.shell
        }
    }

    var ordersScope: OrdersFeature.State {
        get {
            OrdersFeature.State(
                list: screens.orders, detail: screens.orderDetail, events: screens.orderDetailEvents, messages: screens.orderDetailMessages,
                cancel: screens.orderCancel,
                request: ordersRequest, shell: shell, customerID: customerID, rowCapacity: listRowCapacity
            )
        }
        set {
            screens.orders = newValue.list
            screens.orderDetail = newValue.detail
            screens.orderDetailEvents = newValue.events
            screens.orderDetailMessages = newValue.messages
            screens.orderCancel = newValue.cancel
            ordersRequest = newValue.request
            shell = newValue.shell
        }
    }

    var accountScope: AccountFeature.State {
        get {
            AccountFeature.State(
                screen: screens.account, wallet: wallet, profile: profile, apiTokens: apiTokens, shopperLabel: screens.shopperLabel, shell: shell,
                customerID: customerID, signedIn: signedIn
            )
        }
        set {
            screens.account = newValue.screen
            wallet = newValue.wallet
            profile = newValue.profile
            apiTokens = newValue.apiTokens
            screens.shopperLabel = newValue.shopperLabel
            shell = newValue.shell
        }
    }

    var merchantScope: MerchantFeature.State {
        get { MerchantFeature.State(console: screens.merchant ?? MerchantConsoleState(merchantName: ""), shell: shell, rowCapacity: listRowCapacity) }
        set {
            screens.merchant = newValue.console
            shell = newValue.shell
        }
    }

    var formScope: FormFeature.State {
        get { FormFeature.State(shell: shell, customerID: customerID, wallet: wallet, profile: profile) }
        set { shell = newValue.shell }
    }

    var cardLinkScope: CardLinkFeature.State {
        get { CardLinkFeature.State(link: screens.cardLink, page: cardPage, shell: shell, customerID: customerID, wallet: wallet) }
        set {
            screens.cardLink = newValue.link
            cardPage = newValue.page
            shell = newValue.shell
        }
    }

    var signInScope: SignInFeature.State {
        get {
            SignInFeature.State(
                progress: signIn, nextSessionID: nextSessionID, signedIn: signedIn, customerID: customerID, profile: profile,
                shell: shell, hasCartLines: !cart.isEmpty
            )
        }
        set {
            signIn = newValue.progress
            nextSessionID = newValue.nextSessionID
            signedIn = newValue.signedIn
            customerID = newValue.customerID
            profile = newValue.profile
            shell = newValue.shell
        }
    }
}
