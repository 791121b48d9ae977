import ShopModels

/// One product's page.
public struct ProductDetailState: Equatable, Sendable {
    public var product: Product
    public var quantityInCart: Int
    public var canBuyNow: Bool
}

/// One product's page: add it, or buy it now with One-Tap.
@MainActor
enum ProductDetailFeature {
    static func open(_ state: inout AppState, _ product: Product, _ env: ShopEnvironment) {
        // Its quantity in the cart and Buy now are filled in at the step's end (`DerivedScreens`).
        state.productDetail = ProductDetailState(product: product, quantityInCart: 0, canBuyNow: false)
        state.route.append(.productDetail)
    }

    /// Puts the quantity in the cart and whether Buy now is offered on the page.
    static func refresh(_ state: inout AppState, _ env: ShopEnvironment) {
        guard let product = state.productDetail?.product else { return }
        // Computed first: an optional-chained assignment holds `state` while its right side runs.
        let quantity = state.cart.lines.first { $0.productID == product.id }?.quantity ?? 0
        state.productDetail?.quantityInCart = quantity
        let canBuyNow = env.oneTap(.product(id: product.id)).isEnabled && state.account.isOneTapReady
        state.productDetail?.canBuyNow = canBuyNow
    }

    static func reduce(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard let product = state.productDetail?.product else { return .none }
        switch action {
        case .addToCart: return .send(.request(.addToCart(product)))
        case .buyNow: env.oneTap(.product(id: product.id)).present()
        case .back: state.popScreen()
        default: break
        }
        return .none
    }
}
