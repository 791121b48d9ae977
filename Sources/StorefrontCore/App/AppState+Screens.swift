import ShopLanguages
import ShopModels

extension AppState {
    /// What the screens show, made from each feature's state: the one value a host sees, compared and published once
    /// a step. Only read: a feature changes its own property, and the screens follow.
    public var screens: StorefrontState {
        var screens = StorefrontState(shopName: shopName, currency: cart.badge.subtotal.currency)
        show(on: &screens)
        return screens
    }

    /// Brings `screens` up to what each feature's state shows, field by field; true when a field changed. A step changes
    /// a field or two: made whole again, the screens retained every string and array in them, and the value they
    /// replaced released them all, at every key.
    @discardableResult
    func show(on screens: inout StorefrontState) -> Bool {
        var changed = false
        func show<Value: Equatable>(_ value: Value, in field: inout Value) {
            guard field != value else { return }
            field = value
            changed = true
        }
        show(shopName, in: &screens.shopName)
        show(shell.route, in: &screens.route)
        show(shell.form, in: &screens.form)
        show(shell.notice, in: &screens.notice)
        show(shell.language, in: &screens.language)
        show(shell.formats, in: &screens.formats)
        show(shell.isWaitingForStorage, in: &screens.isWaitingForStorage)
        show(cart.badge, in: &screens.cartBadge)
        show(cart.screen, in: &screens.cart)
        show(productList.list, in: &screens.productList)
        show(productDetail.page, in: &screens.productDetail)
        show(checkout.sheet, in: &screens.paymentSheet)
        show(checkout.confirmation, in: &screens.confirmation)
        show(orders.list, in: &screens.orders)
        show(subscriptions.list, in: &screens.subscriptions)
        show(orders.detail, in: &screens.orderDetail)
        show(orders.events, in: &screens.orderDetailEvents)
        show(orders.messages, in: &screens.orderDetailMessages)
        show(orders.cancel, in: &screens.orderCancel)
        show(canCancelOrders, in: &screens.canCancelOrders)
        show(merchant?.console, in: &screens.merchant)
        show(account.screen, in: &screens.account)
        show(cardLink.link, in: &screens.cardLink)
        show(isHelpShown, in: &screens.isHelpShown)
        show(spinnerPhase, in: &screens.spinnerPhase)
        show(isQuitting, in: &screens.isQuitting)
        show(account.shopperLabel, in: &screens.shopperLabel)
        show(paymentMode, in: &screens.paymentMode)
        return changed
    }

    /// `StorefrontState.isTakingText`, asked of the features' states: a key asks it, and making every screen to answer
    /// it copied the whole state (a quarter of a list move's step, docs/BENCHMARKS.md).
    var isTakingText: Bool { StorefrontState.isTakingText(on: screen, editingQuery: productList.list.isEditingQuery) }
}
