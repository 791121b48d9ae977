import ShopApplication
import ShopLanguages
import ShopModels
import ShopPorts

/// The cart screen, with totals estimated on the default shipping method.
public struct CartScreenState: Equatable, Sendable {
    public var lines: [CartLine] = []
    public var selectedIndex = 0
    public var totals: CartTotals
    public var shippingLabel = ""
    /// "Sales tax", or "incl. VAT 19%" where the home region's prices include it.
    public var taxLabel: Localized = "Tax"
    public var canBuyNow = false
    /// The stock keys of lines the catalog no longer sells: marked on the screen, refused at Pay.
    public var withdrawn: Set<ProductID> = []
    /// The lines' pictures by stock key, as last checked: the selected line's is shown beside the lines on a wide
    /// terminal.
    public var pictures: [ProductID: PictureReference] = [:]
    public init(totals: CartTotals) { self.totals = totals }
}

/// A product's fresh stock after adds made on the stock read before, and the quantity before those adds.
public struct StockCheck: Equatable, Sendable {
    /// The line's stock key: the product's id, or the variant's SKU.
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
public enum CartFeature {
    /// What the cart owns: the cart itself, its screen and badge, and its writes and stock checks.
    public struct Owned: Equatable, Sendable {
        /// The shopper's cart; the screen and the badge show it.
        public var cart: Cart
        public var screen: CartScreenState
        public var badge: CartBadge
        /// The cart as last saved or read, so only real changes are written; nil until the saved cart is read.
        public var savedCart: [CartLine]?
        /// The lines being written now: one write at a time, so an older cart never lands after a newer one.
        public var saveInFlight: [CartLine]?
        /// Lines whose write just failed: not asked for again until the cart changes, or the database is back.
        public var saveFailed: [CartLine]?
        /// Products added on the stock last read, each with the quantity the cart had before the first such add.
        public var stockChecksDue: [ProductID: Int] = [:]
        /// A read of fresh stock is pending; checks due meanwhile wait for the next one.
        public var isStockCheckInFlight = false
        /// The lines the catalog no longer sells, as last checked (on restoring the cart, and on showing it).
        public var withdrawn: Set<ProductID> = []
        /// The lines' pictures by stock key, as last checked.
        public var pictures: [ProductID: PictureReference] = [:]

        public init(currency: Currency) {
            cart = Cart(currency: currency)
            screen = CartScreenState(totals: CartTotals(subtotal: .zero(currency), shipping: .zero(currency), tax: .zero(currency)))
            badge = CartBadge(itemCount: 0, subtotal: .zero(currency))
        }
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, CartAction> { FeatureReducer(body: reduce) }

    /// The keys the cart takes.
    enum Action: FeatureKeys {
        case move(ListMove)
        case increaseQuantity, decreaseQuantity, removeLine
        /// Enter or p: to the payment sheet with the whole cart.
        case checkout
        case buyNow, back

        static let keys: [StorefrontCore.Action: Self] = ListMove.keys.mapValues(Self.move).merging([
            .increaseQuantity: .increaseQuantity, .decreaseQuantity: .decreaseQuantity, .removeLine: .removeLine, .confirm: .checkout,
            .pay: .checkout, .buyNow: .buyNow, .back: .back,
        ]) { $1 }
    }

    static func reduce(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        let index = state.screen.selectedIndex
        var effect = Effect.none
        switch action {
        case .move(let move):
            state.screen.selectedIndex = ListSelection.moved(index, by: move, count: state.cart.lines.count)
        case .increaseQuantity:
            guard let line = state.cart.lines[safe: index] else { break }
            if let refusal = amountRefusal(state, env, after: { $0.setQuantity(at: index, to: line.quantity + 1) }) {
                state.shell.notice = Notice(.error, .lookup(refusal))
            } else if state.cart.setQuantity(at: index, to: line.quantity + 1) == .atMaximum {
                state.shell.notice = Notice(.error, "At most \(CartLine.quantityRange.upperBound) per product.")
            } else if state.stockChecksDue[line.stockKey] == nil {
                // The fresh stock is read after the frame: the key does not wait on the database.
                state.stockChecksDue[line.stockKey] = line.quantity
            }
        case .decreaseQuantity:
            if state.cart.setQuantity(at: index, to: (state.cart.lines[safe: index]?.quantity ?? 0) - 1) == .atMinimum {
                state.shell.notice = Notice(.info, "Press x to remove the line.")
            }
        case .removeLine:
            if let line = state.cart.lines[safe: index] {
                state.cart.removeLine(at: index)
                state.shell.notice = Notice(.info, "Removed \(line.name).")
            }
        case .checkout:
            effect = .send(.cart(.delegate(.beginCheckout(CheckoutOrder(lines: state.cart.lines, clearsCartOnSuccess: true)))))
        case .buyNow: return env.oneTap(.cart).buyNow
        case .back: state.shell.popScreen()
        }
        return effect
    }

    /// What the cart repository or the catalog answered.
    static func reduce(_ state: inout State, _ action: CartAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): return Action(key).map { reduce(&state, $0, env) } ?? .none
        case .add(let product): return add(&state, product, env)
        case .empty: empty(&state)
        case .removeBought(let lines): removeBought(lines, &state)
        case .reprice(let lines): reprice(lines, &state)
        case .handOver(let leaving, let merging): return handOver(&state, leaving: leaving, mergingIntoNext: merging, env)
        case .restore: return restore(&state, env)
        case .delegate: return .none
        case .restored(let customer, let read):
            guard customer == state.customerID else { return .none }
            restored(&state, read, env)
            return checkCatalog(state, env)
        case .catalogChecked(let customer, let review):
            guard customer == state.customerID else { return .none }
            state.withdrawn = review.withdrawn
            state.pictures = review.pictures
            // Today's prices go into the cart (and are saved with it), where the line still has the price checked; the
            // shopper is told each change here, before the sheet, as the sheet would tell it at Pay.
            var told: [String] = []
            for change in review.changes {
                guard let index = state.cart.lines.firstIndex(where: { $0.stockKey == change.stockKey && $0.unitPrice == change.was })
                else { continue }
                state.cart.setUnitPrice(at: index, to: change.now)
                told.append(change.line)
            }
            let names = state.cart.lines.filter { review.withdrawn.contains($0.stockKey) }.map(\.name)
            if !names.isEmpty {
                state.shell.notice = Notice(
                    .error,
                    "\(names.joined(separator: ", ")) \(names.count == 1 ? "is" : "are") no longer sold: x removes a line; Pay takes the rest once it is gone."
                )
            } else if !told.isEmpty {
                state.shell.notice = Notice(.info, "The price changed since you put it in your cart: \(told.joined(separator: "; ")).")
            }
            showCart(&state, env)
        case .saved(let customer, let lines):
            state.saveInFlight = nil
            state.saveFailed = nil
            if customer == state.customerID { state.savedCart = lines }
        case .saveFailed(let customer, let lines, let error):
            state.saveInFlight = nil
            guard customer == state.customerID else { return .none }
            state.saveFailed = lines
            state.shell.reportStorageFailure(error) { "Your cart could not be saved: \($0)" }
        case .stockChecked(let checks):
            state.isStockCheckInFlight = false
            takeBack(&state, checks, env)
        case .stockReadForAdd(let product, let stock):
            let inCart = state.cart.lines.first { $0.stockKey == product.stockKey }?.quantity ?? 0
            if let stock, inCart + 1 > stock {
                state.shell.notice = Notice(.error, shortage(stock: stock, name: product.name, inCart: inCart))
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
    static func add(_ state: inout State, _ product: Product, _ env: ShopEnvironment) -> Effect {
        let product = product.purchasable
        let inCart = state.cart.lines.first { $0.stockKey == product.stockKey }?.quantity ?? 0
        if let stock = product.stock, inCart + 1 > stock {
            let catalog = env.dependencies.catalog
            return .run { send in
                let fresh = ((try? await catalog.product(id: product.id)) ?? nil)?.stock(of: product.stockKey)
                send(.cart(.stockReadForAdd(product, stock: fresh)))
            }
        }
        if let refusal = amountRefusal(state, env, after: { $0.add(product) }) {
            state.shell.notice = Notice(.error, .lookup(refusal))
            return .none
        }
        if state.stockChecksDue[product.stockKey] == nil { state.stockChecksDue[product.stockKey] = inCart }
        switch state.cart.add(product) {
        case .atMaximum: state.shell.notice = Notice(.error, "You can buy at most \(CartLine.quantityRange.upperBound) of \(product.name).")
        // The line's name: a variant's values too ("Pipe Socks — L"), so the shopper sees which one went in.
        case .changed, .atMinimum, .noSuchLine:
            state.shell.notice = Notice(
                .info, "Added \(state.cart.lines.first { $0.stockKey == product.stockKey }?.name ?? product.name) to your cart.")
        }
        return .none
    }

    private static func shortage(stock: Int, name: String, inCart: Int) -> Localized {
        stock == 0 ? Localized("\(name) is sold out.") : Localized("Only \(stock) of \(name) left, and your cart has \(inCart).")
    }

    /// Takes back the adds the fresh stock no longer covers, never below what the cart had before them.
    private static func takeBack(_ state: inout State, _ checks: [StockCheck], _ env: ShopEnvironment) {
        for check in checks {
            guard let index = state.cart.lines.firstIndex(where: { $0.stockKey == check.productID }),
                let stock = check.stock, state.cart.lines[index].quantity > stock
            else { continue }
            let name = state.cart.lines[index].name
            let kept = max(stock, check.quantityBefore)
            if kept == 0 { state.cart.removeLine(at: index) } else { state.cart.setQuantity(at: index, to: kept) }
            state.shell.notice = Notice(.error, shortage(stock: stock, name: name, inCart: kept))
        }
    }

    /// Why `change` would take the cart over the largest amount the shop handles, or nil.
    private static func amountRefusal(_ state: State, _ env: ShopEnvironment, after change: (inout Cart) -> Void) -> String? {
        let profile = env.shopProfile
        var trial = state.cart
        change(&trial)
        let ceiling = profile.ceiling
        guard !trial.isWithinMaximum(shippingMethods: ceiling.methods, tax: ceiling.tax) else { return nil }
        return "This would take the cart over \(Money.maximum(profile.currency).formatted)."
    }

    /// Asks the catalog which of the cart's lines it no longer sells and which it sells at another price, so the cart
    /// marks and reprices them before Pay would refuse them: as the cart is restored, and each time it is shown.
    static func checkCatalog(_ state: State, _ env: ShopEnvironment) -> Effect {
        let (lines, customer, catalog) = (state.cart.lines, state.customerID, env.dependencies.catalog)
        guard !lines.isEmpty else { return .none }
        return .run { send in
            guard let review = try? await CatalogCheck.review(lines, in: catalog) else { return }
            send(.cart(.catalogChecked(customer: customer, review)))
        }
    }

    /// Puts the cart, its totals (estimated at home, before an address is chosen) and the badge on screen.
    static func showCart(_ state: inout State, _ env: ShopEnvironment) {
        let cart = state.cart
        let estimate = env.shopProfile.estimate(for: cart)
        let shipping = estimate.methods.first
        state.screen.lines = cart.lines
        state.screen.withdrawn = state.withdrawn.intersection(cart.lines.map(\.stockKey))
        let keys = Set(cart.lines.map(\.stockKey))
        state.screen.pictures = state.pictures.filter { keys.contains($0.key) }
        let totals = cart.totals(shipping: shipping, tax: estimate.tax)
        state.screen.totals = totals
        state.screen.taxLabel = estimate.tax.summaryWords
        state.screen.shippingLabel = shipping?.label ?? ""
        state.screen.selectedIndex = ListSelection.clamped(state.screen.selectedIndex, count: cart.lines.count)
        state.screen.canBuyNow = env.oneTap(.cart).isEnabled && state.isOneTapReady && !cart.isEmpty
        state.badge = CartBadge(itemCount: cart.itemCount, subtotal: totals.subtotal)
    }
}
