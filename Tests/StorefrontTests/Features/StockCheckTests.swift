import LiveObjects
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Synchronization
import Testing

/// A catalog whose fresh stock is set by the test, as other shoppers' checkouts would leave it,
/// while its pages keep what they read at first.
final class StockTakenElsewhere: CatalogRepository {
    private let base: any CatalogRepository
    private let fresh = Mutex<[ProductID: Int]>([:])
    init(base: any CatalogRepository) { self.base = base }

    func setStock(of id: ProductID, to stock: Int) { fresh.withLock { $0[id] = stock } }

    var shop: ShopProfile { base.shop }
    func count(matching query: String) async throws -> Int { try await base.count(matching: query) }
    func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        try await base.page(matching: query, offset: offset, limit: limit)
    }
    func product(id: ProductID) async throws -> Product? {
        guard var product = try await base.product(id: id) else { return nil }
        if let stock = fresh.withLock({ $0[id] }) { product.stock = stock }
        return product
    }
}

/// An add is judged on the stock its page read and drawn at once; the fresh stock is read after
/// the frame, and an add it no longer covers is taken back and said.
@MainActor
@Suite("Stock checked after an add's frame")
struct StockCheckTests {
    private func store() async -> (TestStore, StockTakenElsewhere, Product, ShopProfile) {
        var stack = TestStack()
        let catalog = StockTakenElsewhere(base: stack.catalog)
        stack.catalog = catalog
        let store = await TestStore(dependencies: stack.dependencies)
        return (store, catalog, store.state.productList.list.rows[0], catalog.shop)
    }

    @Test func anAddTheFreshStockNoLongerCoversIsTakenBackAfterItsFrame() async {
        let (store, catalog, product, shop) = await store()
        #expect((product.stock ?? 0) > 0, "the page read stock")
        catalog.setStock(of: product.id, to: 0)
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        store.send(.addToCart) { $0.expectAdded(line, in: shop) }
        await store.receive(.cart(.stockChecked([.afterAdding(line, stock: 0)]))) {
            $0.cart.isStockCheckInFlight = false
            $0.cart.cart = Cart(currency: shop.currency)
            $0.cart.screen.lines = []
            $0.cart.screen.totals = shop.estimatedTotals($0.cart.cart)
            $0.cart.screen.canBuyNow = false
            $0.cart.badge = CartBadge(itemCount: 0, subtotal: .zero(shop.currency))
            $0.shell.notice = Notice(.error, "\(product.name) is sold out.")
        }
        await store.finish()
    }

    @Test func theCheckNeverTakesTheCartBelowWhatItHadBeforeTheAdds() async {
        let (store, catalog, product, shop) = await store()
        let one = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        var two = one
        two.quantity = 2
        store.send(.addToCart) { $0.expectAdded(one, in: shop) }
        await store.receive(.cart(.stockChecked([.afterAdding(one, stock: product.stock)]))) { $0.expectStockChecked() }
        // Bought elsewhere down to 0: the unit already in the cart stays (checkout will say), the new one goes.
        catalog.setStock(of: product.id, to: 0)
        store.send(.addToCart) { $0.expectAdded(two, in: shop) }
        await store.receive(.cart(.stockChecked([.afterAdding(two, stock: 0)]))) {
            $0.cart.isStockCheckInFlight = false
            $0.expectAdded(one, in: shop, startsCheck: false)
            $0.shell.notice = Notice(.error, "\(product.name) is sold out.")
        }
        await store.finish()
    }

    @Test func stockShortOnWhatThePageReadIsAskedOfTheStoreFirst() async {
        let (store, catalog, product, shop) = await store()
        let stock = product.stock ?? 0
        #expect(stock > 1, "the first product has a few in stock")
        let first = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        // The page's stock is used up in the cart: the first add's check runs, the others' waits for it.
        for quantity in 1...stock {
            store.send(.addToCart) {
                $0.expectAdded(CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: quantity), in: shop)
            }
        }
        await store.receive(.cart(.stockChecked([.afterAdding(first, stock: stock)]))) {
            $0.cart.stockChecksDue = [:]
        }
        await store.receive(.cart(.stockChecked([StockCheck(productID: product.id, quantityBefore: 1, stock: stock)]))) { $0.expectStockChecked() }
        // The database has more again: the add waits for the fresh stock, and nothing changes until it answers.
        catalog.setStock(of: product.id, to: stock + 1)
        store.send(.addToCart) { $0.shell.notice = nil }
        await store.receive(.cart(.stockReadForAdd(product, stock: stock + 1))) {
            $0.expectAdded(CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: stock + 1), in: shop)
        }
        await store.receive(.cart(.stockChecked([StockCheck(productID: product.id, quantityBefore: stock, stock: stock + 1)]))) {
            $0.expectStockChecked()
        }
        await store.finish()
    }
}

extension StockTakenElsewhere: LiveObject {}
