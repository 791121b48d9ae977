import ShopModels

/// One product's page.
public struct ProductDetailState: Equatable, Sendable {
    public var product: Product
    public var quantityInCart: Int
    public var canBuyNow: Bool

    public init(product: Product, quantityInCart: Int, canBuyNow: Bool) {
        self.product = product
        self.quantityInCart = quantityInCart
        self.canBuyNow = canBuyNow
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

    static func open(_ state: inout State, _ product: Product, _ env: ShopEnvironment) {
        // Its quantity in the cart and Buy now are filled in at the step's end (`DerivedScreens`).
        state.page = ProductDetailState(product: product, quantityInCart: 0, canBuyNow: false)
        state.shell.push(.productDetail)
    }

    /// Puts the quantity in the cart and whether Buy now is offered on the page.
    static func refresh(_ page: inout ProductDetailState?, cart: [CartLine], isOneTapReady: Bool, _ env: ShopEnvironment) {
        guard let product = page?.product else { return }
        // Computed first: an optional-chained assignment holds `page` while its right side runs.
        let quantity = cart.first { $0.productID == product.id }?.quantity ?? 0
        page?.quantityInCart = quantity
        let canBuyNow = env.oneTap(.product(id: product.id)).isEnabled && isOneTapReady
        page?.canBuyNow = canBuyNow
    }

    /// The keys the product page takes.
    enum Action: Equatable {
        case addToCart, buyNow, back

        init?(_ key: StorefrontCore.Action) {
            switch key {
            case .addToCart: self = .addToCart
            case .buyNow: self = .buyNow
            case .back: self = .back
            default: return nil
            }
        }
    }

    static func reduce(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard let product = state.page?.product else { return .none }
        switch action {
        case .addToCart: return .send(.request(.addToCart(product)))
        case .buyNow: return env.oneTap(.product(id: product.id)).buyNow
        case .back: state.shell.popScreen()
        }
        return .none
    }
}
