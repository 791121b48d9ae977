import ShopLanguages
import ShopModels

extension AppState {
    /// What the screens show, made from each feature's state: the one value a host sees, compared and published once
    /// a step. Only read: a feature changes its own property, and the screens follow.
    public var screens: StorefrontState {
        var screens = StorefrontState(shopName: shopName, currency: cart.badge.subtotal.currency)
        screens.route = shell.route
        screens.form = shell.form
        screens.notice = shell.notice
        screens.language = shell.language
        screens.formats = shell.formats
        screens.isWaitingForStorage = shell.isWaitingForStorage
        screens.cartBadge = cart.badge
        screens.cart = cart.screen
        screens.productList = productList.list
        screens.productDetail = productDetail.page
        screens.paymentSheet = checkout.sheet
        screens.confirmation = checkout.confirmation
        screens.orders = orders.list
        screens.subscriptions = subscriptions.list
        screens.orderDetail = orders.detail
        screens.orderDetailEvents = orders.events
        screens.orderDetailMessages = orders.messages
        screens.orderCancel = orders.cancel
        screens.canCancelOrders = canCancelOrders
        screens.merchant = merchant?.console
        screens.account = account.screen
        screens.cardLink = cardLink.link
        screens.isHelpShown = isHelpShown
        screens.spinnerPhase = spinnerPhase
        screens.isQuitting = isQuitting
        screens.shopperLabel = account.shopperLabel
        screens.paymentMode = paymentMode
        return screens
    }

    /// `StorefrontState.isTakingText`, asked of the features' states: a key asks it, and making every screen to answer
    /// it copied the whole state (a quarter of a list move's step, docs/BENCHMARKS.md).
    var isTakingText: Bool { StorefrontState.isTakingText(on: screen, editingQuery: productList.list.isEditingQuery) }
}
