import StoreModels

/// The cart screen, with totals estimated on the default shipping method.
public struct CartScreenState: Equatable, Sendable {
    public var lines: [CartLine] = []
    public var selectedIndex = 0
    public var totals: CartTotals
    public var shippingLabel = ""
    public var canBuyNow = false
    public init(totals: CartTotals) { self.totals = totals }
}

/// The cart: quantities within stock and the shop's largest amount, saved as it changes.
@MainActor
enum CartFeature {
    static func reduce(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if let effect = AppReducer.navigation(&state, action, env) { return effect }
        let index = state.screens.cart.selectedIndex
        if let moved = ListSelection.moved(index, by: action, count: state.cart.lines.count) {
            state.screens.cart.selectedIndex = moved
            return .none
        }
        var effect = Effect.none
        switch action {
        case .increaseQuantity:
            let line = state.cart.lines[safe: index]
            if let line, let refusal = stockRefusal(state, for: line.productID, name: line.name, env)
                ?? amountRefusal(state, env, after: { $0.setQuantity(at: index, to: line.quantity + 1) }) {
                state.notice = Notice(.error, refusal)
            } else if state.cart.setQuantity(at: index, to: (line?.quantity ?? 0) + 1) == .atMaximum {
                state.notice = Notice(.error, "At most \(CartLine.quantityRange.upperBound) per product.")
            }
        case .decreaseQuantity:
            if state.cart.setQuantity(at: index, to: (state.cart.lines[safe: index]?.quantity ?? 0) - 1) == .atMinimum {
                state.notice = Notice(.info, "Press x to remove the line.")
            }
        case .removeLine:
            if let line = state.cart.lines[safe: index] {
                state.cart.removeLine(at: index)
                state.notice = Notice(.info, "Removed \(line.name).")
            }
        case .confirm, .pay:
            effect = CheckoutFeature.begin(&state, CheckoutOrder(lines: state.cart.lines, clearsCartOnSuccess: true), oneTap: false, env)
        case .buyNow: env.oneTap(.cart).present()
        case .back: AppReducer.popScreen(&state)
        default: break
        }
        saveCartAndShowIt(&state, env)
        return effect
    }

    /// Adds one of `product`, unless stock or the largest amount refuses it.
    static func add(_ state: inout AppState, _ product: Product, _ env: ShopEnvironment) {
        if let refusal = stockRefusal(state, for: product.id, name: product.name, env) ?? amountRefusal(state, env, after: { $0.add(product) }) {
            state.notice = Notice(.error, refusal)
            return
        }
        switch state.cart.add(product) {
        case .atMaximum: state.notice = Notice(.error, "You can buy at most \(CartLine.quantityRange.upperBound) of \(product.name).")
        default: state.notice = Notice(.info, "Added \(product.name) to your cart.")
        }
        saveCartAndShowIt(&state, env)
        ProductDetailFeature.refresh(&state, env)
    }

    /// Why one more unit of `productID` cannot go in the cart, or nil when it can. Reads fresh stock.
    private static func stockRefusal(_ state: AppState, for productID: ProductID, name: String, _ env: ShopEnvironment) -> String? {
        guard let current = (try? env.dependencies.catalog.product(id: productID)) ?? nil, let stock = current.stock else { return nil }
        let inCart = state.cart.lines.first { $0.productID == productID }?.quantity ?? 0
        guard inCart + 1 > stock else { return nil }
        if stock == 0 { return "\(name) is sold out." }
        return "Only \(stock) of \(name) left, and your cart has \(inCart)."
    }

    /// Why `change` would take the cart over the largest amount the shop handles, or nil.
    private static func amountRefusal(_ state: AppState, _ env: ShopEnvironment, after change: (inout Cart) -> Void) -> String? {
        let profile = env.storeProfile
        var trial = state.cart
        change(&trial)
        guard !trial.isWithinMaximum(shippingMethods: profile.shippingMethods, tax: profile.tax) else { return nil }
        return "This would take the cart over \(Money.maximum(profile.currency).formatted)."
    }

    /// Puts the cart, its totals and the badge on screen; a change is saved after the frame
    /// (`saveAfterTheFrame`), or at once with `now` (a retry, which must know whether the store answered).
    static func saveCartAndShowIt(_ state: inout AppState, _ env: ShopEnvironment, now: Bool = false) {
        if state.savedCart == nil { state.savedCart = state.cart.lines } else if now { saveNow(&state, env) }
        let profile = env.storeProfile
        let shipping = profile.shippingMethods.first
        let cart = state.cart
        state.screens.cart.lines = cart.lines
        state.screens.cart.totals = cart.totals(shipping: shipping, tax: profile.tax)
        state.screens.cart.shippingLabel = shipping?.label ?? ""
        state.screens.cart.selectedIndex = ListSelection.clamped(state.screens.cart.selectedIndex, count: cart.lines.count)
        state.screens.cart.canBuyNow = env.oneTap(.cart).isEnabled && state.account.isOneTapReady && !cart.isEmpty
        state.cartBadge = CartBadge(itemCount: cart.itemCount, subtotal: cart.subtotal)
    }

    /// At the end of a step that changed the cart: an effect that asks for the save, so the write
    /// (a database transaction) runs after the frame that shows the change, not before it.
    static func saveAfterTheFrame(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        // While the store is waited for, the outage's retry saves the cart, and only it.
        guard env.dependencies.carts != nil, !state.isCartSaveDue, !state.screens.isWaitingForStore, let saved = state.savedCart, saved != state.cart.lines else { return .none }
        state.isCartSaveDue = true
        return .run { send in send(.cartSaveDue) }
    }

    /// Writes the cart to the cart store when it changed; a failure is shown, the cart kept in memory.
    static func saveNow(_ state: inout AppState, _ env: ShopEnvironment) {
        state.isCartSaveDue = false
        guard let carts = env.dependencies.carts, let saved = state.savedCart, saved != state.cart.lines else { return }
        do {
            try carts.save(state.cart.lines, forCustomer: state.customerID)
            state.savedCart = state.cart.lines
        } catch {
            StoreOutageFeature.report(&state, error) { "Your cart could not be saved: \($0)" }
        }
    }

    /// Reads the current customer's saved cart; returns what went wrong, if anything.
    static func restoreCart(_ state: inout AppState, _ env: ShopEnvironment) -> String? {
        guard let carts = env.dependencies.carts else { return nil }
        let profile = env.storeProfile
        do {
            state.cart = Cart(currency: profile.currency, lines: try carts.lines(forCustomer: state.customerID).filter { $0.unitPrice.currency == profile.currency })
            let left = leaveOutLinesOverMaximum(&state, from: "Your saved cart", env)
            // The saved cart stays as it was until the shopper changes this one.
            state.savedCart = state.cart.lines
            return left
        } catch {
            return "Your saved cart could not be read: \(error)"
        }
    }

    /// Keeps the cart within `Money.maximumMinorUnits`; says which lines were left out, or nil.
    static func leaveOutLinesOverMaximum(_ state: inout AppState, from source: String, _ env: ShopEnvironment) -> String? {
        let profile = env.storeProfile
        let left = state.cart.removeLinesOverMaximum(shippingMethods: profile.shippingMethods, tax: profile.tax)
        guard !left.isEmpty else { return nil }
        let names = left.map(\.name).joined(separator: ", ")
        return "\(source) would cost over \(Money.maximum(profile.currency).formatted); left out: \(names)."
    }
}
