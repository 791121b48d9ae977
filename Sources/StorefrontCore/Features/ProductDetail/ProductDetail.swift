import ShopModels

/// One product's page.
public struct ProductDetailState: Equatable, Sendable {
    public var product: Product
    public var quantityInCart: Int
    public var canBuyNow: Bool
    /// The value chosen for each of the product's options, in their order; empty for a product without options.
    public var choice: [String]
    /// The option ←/→ change.
    public var focusedOption: Int

    public init(product: Product, quantityInCart: Int, canBuyNow: Bool) {
        self.product = product
        self.quantityInCart = quantityInCart
        self.canBuyNow = canBuyNow
        self.choice = product.defaultVariant?.values ?? []
        self.focusedOption = 0
    }

    /// The variant the choice names; nil for a product without options.
    public var chosenVariant: ProductVariant? { product.variant(values: choice) }

    /// The product is sold as a subscription: Subscribe is offered beside Add.
    public var canSubscribe: Bool { !product.subscriptionWeeks.isEmpty }

    /// What Add and Buy now take: the product as the chosen variant, or the product itself.
    public var purchase: Product { chosenVariant.map(product.narrowed(to:)) ?? product }

    /// Whether `value` of option `option` can be picked: the variant it makes with the other choices is for sale.
    public func canPick(_ value: String, of option: Int) -> Bool {
        guard choice.indices.contains(option) else { return false }
        var values = choice
        values[option] = value
        return product.variant(values: values).map { !$0.isSoldOut } ?? false
    }

    /// The choice with the focused option moved `step` values along, past the ones that cannot be picked.
    mutating func stepChoice(by step: Int) -> Bool {
        guard product.options.indices.contains(focusedOption), choice.indices.contains(focusedOption) else { return false }
        let values = product.options[focusedOption].values
        guard var index = values.firstIndex(of: choice[focusedOption]) else { return false }
        for _ in 1..<max(values.count, 1) {
            index += step
            guard values.indices.contains(index) else { return false }
            if canPick(values[index], of: focusedOption) {
                choice[focusedOption] = values[index]
                return true
            }
        }
        return false
    }
}

/// The product page's actions: its keys, the product to open and as read afresh, and what it asks of the others.
public enum ProductDetailAction: KeyedFeatureAction {
    case key(Action)
    case open(Product)
    case fresh(Product)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        case addToCart(Product)
        /// Buy now: put `order` on the payment sheet.
        case beginCheckout(CheckoutOrder)
    }

    public init?(_ action: AppAction) {
        guard case .productDetail(let action) = action else { return nil }
        self = action
    }
}

/// One product's page: add it, or buy it now with One-Tap.
@MainActor
public enum ProductDetailFeature {
    /// What the product page owns: the product on it.
    public struct Owned: Equatable, Sendable {
        public var page: ProductDetailState?
        public init(page: ProductDetailState? = nil) { self.page = page }
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, ProductDetailAction> { FeatureReducer(body: reduce) }

    static func open(_ state: inout State, _ product: Product, _ env: ShopEnvironment) -> Effect {
        // Its quantity in the cart and Buy now are filled in at the step's end (`DerivedScreens`).
        state.page = ProductDetailState(product: product, quantityInCart: 0, canBuyNow: false)
        state.shell.push(.productDetail)
        // Which values can be picked depends on each variant's stock, which the list's page may have read long ago.
        guard product.hasVariants else { return .none }
        let catalog = env.dependencies.catalog
        return .run { send in
            if let fresh = (try? await catalog.product(id: product.id)) ?? nil { send(.productDetail(.fresh(fresh))) }
        }
    }

    /// The product as the catalog has it now: the choice is kept where it can still be bought, else the default.
    static func fresh(_ state: inout State, _ product: Product) {
        guard var page = state.page, page.product.id == product.id else { return }
        page.product = product
        if page.chosenVariant.map({ $0.isSoldOut }) ?? true { page.choice = product.defaultVariant?.values ?? [] }
        state.page = page
    }

    /// Puts the quantity in the cart and whether Buy now is offered on the page.
    static func refresh(_ page: inout ProductDetailState?, cart: [CartLine], isOneTapReady: Bool, _ env: ShopEnvironment) {
        guard let product = page?.product else { return }
        // Computed first: an optional-chained assignment holds `page` while its right side runs.
        let key = page?.purchase.stockKey ?? product.id
        let quantity = cart.first { $0.stockKey == key }?.quantity ?? 0
        page?.quantityInCart = quantity
        let canBuyNow = env.oneTap(.product(id: product.id)).isEnabled && isOneTapReady
        page?.canBuyNow = canBuyNow
    }

    /// The keys the product page takes.
    enum Action: FeatureKeys {
        case addToCart, buyNow, subscribe, back
        /// ↑/↓ between a product's options; ←/→ through the focused option's values.
        case previousOption, nextOption, previousValue, nextValue

        static let keys: [StorefrontCore.Action: Self] = [
            .addToCart: .addToCart, .buyNow: .buyNow, .subscribe: .subscribe, .back: .back, .moveUp: .previousOption, .moveDown: .nextOption,
            .previousChoice: .previousValue, .nextChoice: .nextValue,
        ]
    }

    /// Subscribe: the payment sheet for one of the chosen product, with its schedule on a row of its own. A
    /// subscription is kept on an account, so a guest is asked to sign in first.
    private static func subscribe(_ state: inout State, _ page: ProductDetailState, _ env: ShopEnvironment) -> Effect {
        guard let first = page.product.subscriptionWeeks.first else { return .none }
        guard env.dependencies.subscriptions != nil else {
            state.shell.notice = Notice(.error, "This shop takes no subscriptions: press a to add it to your cart.")
            return .none
        }
        guard state.customer.signedIn != nil else {
            state.shell.notice = Notice(.error, "A subscription is kept on your account: sign in first (u, then i).")
            return .none
        }
        let purchase = page.purchase
        let line = CartLine(product: purchase, variant: purchase.variants.first, quantity: 1)
        let plan = SubscriptionPlan(everyWeeks: first, offered: page.product.subscriptionWeeks)
        return .send(.productDetail(.delegate(.beginCheckout(CheckoutOrder(lines: [line], clearsCartOnSuccess: false, subscription: plan)))))
    }

    static func reduce(_ state: inout State, _ action: ProductDetailAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): return Action(key).map { reduce(&state, $0, env) } ?? .none
        case .open(let product): return open(&state, product, env)
        case .fresh(let product): fresh(&state, product)
        case .delegate: break
        }
        return .none
    }

    static func reduce(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard var page = state.page else { return .none }
        let product = page.product
        switch action {
        case .addToCart, .buyNow, .subscribe:
            if let variant = page.chosenVariant, variant.isSoldOut {
                state.shell.notice = Notice(.error, "\(CartLine.name(product.name, variant.title)) is sold out.")
                return .none
            }
            if action == .buyNow { return env.oneTap(.product(id: product.id, sku: page.chosenVariant?.sku)).buyNow }
            if action == .subscribe { return subscribe(&state, page, env) }
            return .send(.productDetail(.delegate(.addToCart(page.purchase))))
        case .back: state.shell.popScreen()
        case .previousOption, .nextOption:
            let count = product.options.count
            guard count > 0 else { return .none }
            page.focusedOption = min(max(page.focusedOption + (action == .nextOption ? 1 : -1), 0), count - 1)
            state.page = page
        case .previousValue, .nextValue:
            if page.stepChoice(by: action == .nextValue ? 1 : -1) { state.page = page }
        }
        return .none
    }
}
