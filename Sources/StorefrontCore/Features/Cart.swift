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
    ///
    /// The stock judged is the one read with the product (its page or its screen): when that is
    /// short, the fresh stock is read now, as stock may have come back; when it allows the add, the
    /// fresh read waits until the frame is out (`followUp`), so the key does not wait on the store.
    static func add(_ state: inout AppState, _ product: Product, _ env: ShopEnvironment) {
        let inCart = state.cart.lines.first { $0.productID == product.id }?.quantity ?? 0
        let isShortOnWhatWasRead = product.stock.map { inCart + 1 > $0 } ?? false
        if let refusal = (isShortOnWhatWasRead ? stockRefusal(state, for: product.id, name: product.name, env) : nil)
            ?? amountRefusal(state, env, after: { $0.add(product) }) {
            state.notice = Notice(.error, refusal)
            return
        }
        if !isShortOnWhatWasRead, state.stockChecksDue[product.id] == nil { state.stockChecksDue[product.id] = inCart }
        switch state.cart.add(product) {
        case .atMaximum: state.notice = Notice(.error, "You can buy at most \(CartLine.quantityRange.upperBound) of \(product.name).")
        default: state.notice = Notice(.info, "Added \(product.name) to your cart.")
        }
        saveCartAndShowIt(&state, env)
        ProductDetailFeature.refresh(&state, env)
    }

    /// Why one more unit of `productID` cannot go in the cart, or nil when it can. Reads fresh stock.
    private static func stockRefusal(_ state: AppState, for productID: ProductID, name: String, _ env: ShopEnvironment) -> String? {
        guard let stock = freshStock(of: productID, env) else { return nil }
        let inCart = state.cart.lines.first { $0.productID == productID }?.quantity ?? 0
        guard inCart + 1 > stock else { return nil }
        return shortage(stock: stock, name: name, inCart: inCart)
    }

    /// The stock the store has now; nil where it is not tracked or cannot be read (checkout checks again).
    private static func freshStock(of productID: ProductID, _ env: ShopEnvironment) -> Int? {
        ((try? env.dependencies.catalog.product(id: productID)) ?? nil)?.stock
    }

    private static func shortage(stock: Int, name: String, inCart: Int) -> String {
        stock == 0 ? "\(name) is sold out." : "Only \(stock) of \(name) left, and your cart has \(inCart)."
    }

    /// After the frame of a cart change: the fresh stock check of what was added, then the save,
    /// which waits while the store is out of reach (the outage's retry saves the cart, and only it).
    static func followUp(_ state: inout AppState, _ env: ShopEnvironment) {
        checkStock(&state, env)
        if state.screens.isWaitingForStore { state.isCartFollowUpDue = false } else { saveNow(&state, env) }
    }

    /// Reads the fresh stock of what was added on the stock last read, and takes back the adds it
    /// no longer covers, never below what the cart had before them.
    static func checkStock(_ state: inout AppState, _ env: ShopEnvironment) {
        guard !state.stockChecksDue.isEmpty else { return }
        let checks = state.stockChecksDue.sorted { $0.key.rawValue < $1.key.rawValue }
        // Emptied keeping its storage: the next add records its check without allocating a dictionary.
        state.stockChecksDue.removeAll(keepingCapacity: true)
        var tookBack = false
        for (productID, before) in checks {
            guard let index = state.cart.lines.firstIndex(where: { $0.productID == productID }),
                  let stock = freshStock(of: productID, env), state.cart.lines[index].quantity > stock else { continue }
            let name = state.cart.lines[index].name
            let kept = max(stock, before)
            if kept == 0 { state.cart.removeLine(at: index) } else { state.cart.setQuantity(at: index, to: kept) }
            state.notice = Notice(.error, shortage(stock: stock, name: name, inCart: kept))
            tookBack = true
        }
        guard tookBack else { return }
        saveCartAndShowIt(&state, env)
        ProductDetailFeature.refresh(&state, env)
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
    /// (`followUpAfterTheFrame`), or at once with `now` (a retry, which must know whether the store answered).
    static func saveCartAndShowIt(_ state: inout AppState, _ env: ShopEnvironment, now: Bool = false) {
        if state.savedCart == nil { state.savedCart = state.cart.lines } else if now { saveNow(&state, env) }
        let profile = env.storeProfile
        let shipping = profile.shippingMethods.first
        let cart = state.cart
        state.screens.cart.lines = cart.lines
        let totals = cart.totals(shipping: shipping, tax: profile.tax)
        state.screens.cart.totals = totals
        state.screens.cart.shippingLabel = shipping?.label ?? ""
        state.screens.cart.selectedIndex = ListSelection.clamped(state.screens.cart.selectedIndex, count: cart.lines.count)
        state.screens.cart.canBuyNow = env.oneTap(.cart).isEnabled && state.account.isOneTapReady && !cart.isEmpty
        state.cartBadge = CartBadge(itemCount: cart.itemCount, subtotal: totals.subtotal)
    }

    /// At the end of a step that changed the cart: an effect that asks for the follow-up, so the
    /// stock read and the write (a database transaction) run after the frame that shows the change.
    static func followUpAfterTheFrame(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        guard !state.isCartFollowUpDue else { return .none }
        // While the store is waited for, the outage's retry saves the cart, and only it.
        let isSaveDue = env.dependencies.carts != nil && !state.screens.isWaitingForStore && state.savedCart.map { $0 != state.cart.lines } ?? false
        guard isSaveDue || !state.stockChecksDue.isEmpty else { return .none }
        state.isCartFollowUpDue = true
        return .run { send in send(.cartFollowUpDue) }
    }

    /// Writes the cart to the cart store when it changed; a failure is shown, the cart kept in memory.
    static func saveNow(_ state: inout AppState, _ env: ShopEnvironment) {
        state.isCartFollowUpDue = false
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
            // Another customer's cart: the adds waiting for a stock check were to the one before.
            state.stockChecksDue = [:]
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
