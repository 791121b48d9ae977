import ShopModels
import ShopPorts

/// The cart screen, with totals estimated on the default shipping method.
public struct CartScreenState: Equatable, Sendable {
    public var lines: [CartLine] = []
    public var selectedIndex = 0
    public var totals: CartTotals
    public var shippingLabel = ""
    public var canBuyNow = false
    public init(totals: CartTotals) { self.totals = totals }
}

/// What the cart repository and the catalog answered the cart with.
public enum CartAnswer: Equatable, Sendable {
    /// The saved cart of `customer`, or why it could not be read.
    case restored(customer: String, Result<[CartLine], StorageError>)
    case saved(customer: String, lines: [CartLine])
    case saveFailed(customer: String, lines: [CartLine], StorageError)
    /// The fresh stock of products added on the stock last read.
    case stockChecked([StockCheck])
    /// The fresh stock of a product whose stock as read refused an add (nil: not tracked or unreadable).
    case stockReadForAdd(Product, stock: Int?)
}

/// A product's fresh stock after adds made on the stock read before, and the quantity before those adds.
public struct StockCheck: Equatable, Sendable {
    public var productID: ProductID
    public var quantityBefore: Int
    /// Nil where stock is not tracked or could not be read (checkout checks again).
    public var stock: Int?
    public init(productID: ProductID, quantityBefore: Int, stock: Int?) {
        self.productID = productID
        self.quantityBefore = quantityBefore
        self.stock = stock
    }
}

/// The cart: quantities within stock and the shop's largest amount, saved as it changes.
///
/// Order of calls for a change: the key changes the cart in memory and the frame shows it → the step's
/// `followUp` reads the fresh stock of what was added and writes the cart, each as an effect →
/// `.stockChecked` takes back adds the stock no longer covers → `.saved` records what the database holds.
@MainActor
enum CartFeature {
    static func reduce(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        let index = state.screens.cart.selectedIndex
        if let moved = ListSelection.moved(index, by: action, count: state.cart.lines.count) {
            state.screens.cart.selectedIndex = moved
            return .none
        }
        var effect = Effect.none
        switch action {
        case .increaseQuantity:
            guard let line = state.cart.lines[safe: index] else { break }
            if let refusal = amountRefusal(state, env, after: { $0.setQuantity(at: index, to: line.quantity + 1) }) {
                state.notice = Notice(.error, refusal)
            } else if state.cart.setQuantity(at: index, to: line.quantity + 1) == .atMaximum {
                state.notice = Notice(.error, "At most \(CartLine.quantityRange.upperBound) per product.")
            } else if state.stockChecksDue[line.productID] == nil {
                // The fresh stock is read after the frame: the key does not wait on the database.
                state.stockChecksDue[line.productID] = line.quantity
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
            effect = .send(.request(.beginCheckout(CheckoutOrder(lines: state.cart.lines, clearsCartOnSuccess: true))))
        case .buyNow: env.oneTap(.cart).present()
        case .back: state.popScreen()
        default: break
        }
        return effect
    }

    /// What the cart repository or the catalog answered.
    static func reduce(_ state: inout AppState, _ answer: CartAnswer, _ env: ShopEnvironment) -> Effect {
        switch answer {
        case .restored(let customer, let read):
            guard customer == state.customerID else { return .none }
            restored(&state, read, env)
        case .saved(let customer, let lines):
            state.cartSaveInFlight = nil
            state.cartSaveFailed = nil
            if customer == state.customerID { state.savedCart = lines }
        case .saveFailed(let customer, let lines, let error):
            state.cartSaveInFlight = nil
            guard customer == state.customerID else { return .none }
            state.cartSaveFailed = lines
            state.reportStorageFailure(error) { "Your cart could not be saved: \($0)" }
        case .stockChecked(let checks):
            state.isStockCheckInFlight = false
            takeBack(&state, checks, env)
        case .stockReadForAdd(let product, let stock):
            let inCart = state.cart.lines.first { $0.productID == product.id }?.quantity ?? 0
            if let stock, inCart + 1 > stock {
                state.notice = Notice(.error, shortage(stock: stock, name: product.name, inCart: inCart))
                return .none
            }
            var fresh = product
            fresh.stock = stock
            return add(&state, fresh, env)
        }
        return .none
    }

    /// Adds one of `product`, unless stock or the largest amount refuses it.
    ///
    /// The stock judged is the one read with the product (its page or its screen): when that is
    /// short, the fresh stock is read first, as stock may have come back; when it allows the add,
    /// the fresh read follows the frame (`followUp`), so the key does not wait on the database.
    static func add(_ state: inout AppState, _ product: Product, _ env: ShopEnvironment) -> Effect {
        let inCart = state.cart.lines.first { $0.productID == product.id }?.quantity ?? 0
        if let stock = product.stock, inCart + 1 > stock {
            let catalog = env.dependencies.catalog
            return .run { send in
                let fresh = ((try? await catalog.product(id: product.id)) ?? nil)?.stock
                send(.cart(.stockReadForAdd(product, stock: fresh)))
            }
        }
        if let refusal = amountRefusal(state, env, after: { $0.add(product) }) {
            state.notice = Notice(.error, refusal)
            return .none
        }
        if state.stockChecksDue[product.id] == nil { state.stockChecksDue[product.id] = inCart }
        switch state.cart.add(product) {
        case .atMaximum: state.notice = Notice(.error, "You can buy at most \(CartLine.quantityRange.upperBound) of \(product.name).")
        default: state.notice = Notice(.info, "Added \(product.name) to your cart.")
        }
        return .none
    }

    private static func shortage(stock: Int, name: String, inCart: Int) -> String {
        stock == 0 ? "\(name) is sold out." : "Only \(stock) of \(name) left, and your cart has \(inCart)."
    }

    /// At the end of every step: reads the fresh stock of what was added, then writes a changed cart,
    /// each as an effect after the frame that shows the change. A write waits for the stock check (so
    /// an add taken back is never written), for the write in flight, while the database is out of reach
    /// (the outage's retry brings it back) and after a failure of these very lines.
    static func followUp(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        if !state.stockChecksDue.isEmpty, !state.isStockCheckInFlight {
            let due = state.stockChecksDue.sorted { $0.key.rawValue < $1.key.rawValue }
            // Emptied keeping its storage: the next add records its check without allocating a dictionary.
            state.stockChecksDue.removeAll(keepingCapacity: true)
            state.isStockCheckInFlight = true
            let catalog = env.dependencies.catalog
            return .run(id: .stockCheck) { send in
                var checks: [StockCheck] = []
                for (productID, before) in due {
                    let stock = ((try? await catalog.product(id: productID)) ?? nil)?.stock
                    checks.append(StockCheck(productID: productID, quantityBefore: before, stock: stock))
                }
                send(.cart(.stockChecked(checks)))
            }
        }
        // Every step ends here, every key among them: the flags are read first, and the lines compared only when a write may go.
        guard let carts = env.dependencies.carts, state.cartSaveInFlight == nil, !state.isStockCheckInFlight,
              !state.screens.isWaitingForStorage, let saved = state.savedCart
        else { return .none }
        let lines = state.cart.lines
        guard saved != lines, state.cartSaveFailed != lines else { return .none }
        state.cartSaveInFlight = lines
        let customer = state.customerID
        // A write is never replaced halfway: the next one waits for its answer instead.
        return .run(id: .cartSave) { send in
            do {
                try await carts.save(lines, forCustomer: customer)
                send(.cart(.saved(customer: customer, lines: lines)))
            } catch {
                send(.cart(.saveFailed(customer: customer, lines: lines, StorageError(describing: error))))
            }
        }
    }

    /// Takes back the adds the fresh stock no longer covers, never below what the cart had before them.
    private static func takeBack(_ state: inout AppState, _ checks: [StockCheck], _ env: ShopEnvironment) {
        for check in checks {
            guard let index = state.cart.lines.firstIndex(where: { $0.productID == check.productID }),
                  let stock = check.stock, state.cart.lines[index].quantity > stock else { continue }
            let name = state.cart.lines[index].name
            let kept = max(stock, check.quantityBefore)
            if kept == 0 { state.cart.removeLine(at: index) } else { state.cart.setQuantity(at: index, to: kept) }
            state.notice = Notice(.error, shortage(stock: stock, name: name, inCart: kept))
        }
    }

    /// Why `change` would take the cart over the largest amount the shop handles, or nil.
    private static func amountRefusal(_ state: AppState, _ env: ShopEnvironment, after change: (inout Cart) -> Void) -> String? {
        let profile = env.shopProfile
        var trial = state.cart
        change(&trial)
        guard !trial.isWithinMaximum(shippingMethods: profile.shippingMethods, tax: profile.tax) else { return nil }
        return "This would take the cart over \(Money.maximum(profile.currency).formatted)."
    }

    /// Puts the cart, its totals and the badge on screen.
    static func showCart(_ state: inout AppState, _ env: ShopEnvironment) {
        let profile = env.shopProfile
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

    /// Reads the current customer's saved cart; lines added before it answers are kept on top of it.
    static func restore(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        guard let carts = env.dependencies.carts else { return .none }
        state.savedCart = nil
        let customer = state.customerID
        return .run(id: .cartRestore) { send in
            do {
                send(.cart(.restored(customer: customer, .success(try await carts.lines(forCustomer: customer)))))
            } catch {
                send(.cart(.restored(customer: customer, .failure(StorageError(describing: error)))))
            }
        }
    }

    /// The saved cart arrived: it becomes the cart, with whatever was added meanwhile merged in.
    private static func restored(_ state: inout AppState, _ read: Result<[CartLine], StorageError>, _ env: ShopEnvironment) {
        let profile = env.shopProfile
        let addedMeanwhile = state.cart.lines
        switch read {
        case .success(let lines):
            state.cart = Cart(currency: profile.currency, lines: lines.filter { $0.unitPrice.currency == profile.currency })
            if let left = leaveOutLinesOverMaximum(&state, from: "Your saved cart", env) { state.notice = Notice(.error, left) }
            // The saved cart stays as it was until the shopper changes this one.
            state.savedCart = state.cart.lines
        case .failure(let error):
            state.cart = Cart(currency: profile.currency)
            state.savedCart = []
            state.notice = Notice(.error, "Your saved cart could not be read: \(error)")
        }
        if !addedMeanwhile.isEmpty {
            state.cart.merge(addedMeanwhile)
            if let left = leaveOutLinesOverMaximum(&state, from: "Your cart with the lines just added", env) { state.notice = Notice(.error, left) }
        }
    }

    /// Keeps the cart within `Money.maximumMinorUnits`; says which lines were left out, or nil.
    static func leaveOutLinesOverMaximum(_ state: inout AppState, from source: String, _ env: ShopEnvironment) -> String? {
        let profile = env.shopProfile
        let left = state.cart.removeLinesOverMaximum(shippingMethods: profile.shippingMethods, tax: profile.tax)
        guard !left.isEmpty else { return nil }
        let names = left.map(\.name).joined(separator: ", ")
        return "\(source) would cost over \(Money.maximum(profile.currency).formatted); left out: \(names)."
    }
}
