import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// One feature at a time, in a store of its own with only the dependencies it uses: every other one fails the test
/// when called (`StorefrontDependencies.unimplemented`), and what it asks of other features is received, not done.
@MainActor
@Suite("Features alone")
struct FeatureAloneTests {
    private static let shop = ShopProfile.standard()
    private static let mug = Product(
        id: ProductID("mug"), name: "stdout Mug", summary: "A mug.", description: "A mug.", price: Money(minorUnits: 1_800, currency: .usd),
        stock: 5)

    private static func scope<Owned>(_ owned: Owned, route: [Screen], cartLines: [CartLine] = []) -> Scoped<Owned> {
        Scoped(
            owned: owned, shell: Shell(route: route, form: nil, notice: nil, isWaitingForStorage: false),
            customer: Customer(customerID: "guest", signedIn: nil), context: FeatureContext(cartLines: cartLines))
    }

    @Test func theCartAloneCountsAKeyAndAsksCheckoutToTakeTheLines() async {
        let line = CartLine(productID: Self.mug.id, name: Self.mug.name, unitPrice: Self.mug.price, quantity: 1)
        var cart = CartFeature.Owned(currency: .usd)
        cart.cart = Cart(currency: .usd, lines: [line])
        cart.savedCart = [line]
        let store = FeatureTestStore(Self.scope(cart, route: [.productList, .cart]), reducer: CartFeature.reducer)
        store.send(.increaseQuantity) {
            $0.cart.setQuantity(at: 0, to: 2)
            // The fresh stock is read after the frame, by the app: the feature only notes it is due.
            $0.stockChecksDue[line.productID] = 1
        }
        let bought = Cart(currency: .usd, lines: [CartLine(productID: line.productID, name: line.name, unitPrice: line.unitPrice, quantity: 2)])
        store.send(.pay)
        await store.receive(.request(.beginCheckout(CheckoutOrder(lines: bought.lines, clearsCartOnSuccess: true))))
        // What checkout asks of the cart once the order is paid, handed in as the app would.
        store.send(.request(.emptyCart)) { $0.cart.removeAll() }
        await store.finish()
    }

    @Test func theProductPageAloneAsksTheCartToAdd() async {
        let page = ProductDetailFeature.Owned(page: ProductDetailState(product: Self.mug, quantityInCart: 0, canBuyNow: false))
        let store = FeatureTestStore(Self.scope(page, route: [.productList, .productDetail]), reducer: ProductDetailFeature.reducer)
        store.send(.addToCart)
        await store.receive(.request(.addToCart(Self.mug)))
        store.send(.back) { $0.shell.route = [.productList] }
        // A key the page does not take changes nothing and asks nothing.
        store.send(.increaseQuantity)
        await store.finish()
    }

    @Test func theProductListAloneSearchesItsCatalogAndNothingElse() async throws {
        var dependencies = StorefrontDependencies.unimplemented()
        dependencies.catalog = Fixtures.bundledCatalog
        let store = FeatureTestStore(
            Self.scope(ProductListFeature.Owned(), route: [.productList]), reducer: ProductListFeature.reducer, dependencies: dependencies)
        store.send(.beginSearch) { $0.list.isEditingQuery = true }
        store.send(.textInput("mug")) {
            $0.list.query = "mug"
            $0.list.isLoading = true
            $0.request = 1
            $0.pending = .count(keepSelection: false)
        }
        let total = try Fixtures.bundledCatalog.count(matching: "mug")
        let rows = try Fixtures.bundledCatalog.page(matching: "mug", offset: 0, limit: 50)
        await store.receive(.productList(.counted(request: 1, total: total, from: 0, rows: rows))) {
            $0.list.isLoading = false
            $0.pending = nil
            $0.list.totalCount = total
            $0.list.rows = Array(rows.prefix(10))
            // The first products to arrive end the shop's opening, whichever read brought them.
            $0.isOpening = false
        }
        #expect(total >= 1 && total < 24, "the search narrowed the catalog")
        await store.finish()
    }
}
