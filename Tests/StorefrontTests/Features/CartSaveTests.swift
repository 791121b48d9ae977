import Testing
import StoreClients
import StoreModels
import StoreSandbox
import StorefrontCore
import StorefrontTesting

/// A cart change is drawn first and written right after, so a key never waits on the disk; nothing
/// waiting to be written is lost to a quit or a change of customer.
@MainActor
@Suite("Saving the cart after its frame")
struct CartSaveTests {
    private func store() -> (TestStore, InMemoryCartStore, CartLine, String) {
        var stack = TestStack()
        let carts = InMemoryCartStore()
        stack.carts = carts
        let store = TestStore(dependencies: stack.dependencies)
        let product = store.state.productList.rows[0]
        return (store, carts, CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1), stack.guestID)
    }

    private func added(_ line: CartLine, _ state: inout AppState) {
        let shop = StoreProfile.standard()
        state.cart = Cart(currency: shop.currency, lines: [line])
        state.screens.cart.lines = [line]
        state.screens.cart.totals = state.cart.totals(shipping: shop.shippingMethods.first, tax: shop.tax)
        state.cartBadge = CartBadge(itemCount: 1, subtotal: line.unitPrice)
        state.screens.cart.canBuyNow = true
        state.notice = Notice(.info, "Added \(line.name) to your cart.")
        state.isCartSaveDue = true
    }

    @Test func theChangeIsShownFirstAndWrittenByTheNextStep() async throws {
        let (store, carts, line, guest) = store()
        store.send(.addToCart) { added(line, &$0) }
        #expect(try carts.lines(forCustomer: guest) == [], "nothing is written before the frame")
        await store.receive(.cartSaveDue) {
            $0.isCartSaveDue = false
            $0.savedCart = [line]
        }
        #expect(try carts.lines(forCustomer: guest) == [line])
        await store.finish()
    }

    @Test func keysBeforeTheSaveRunAskForOneSaveOfTheLatestCart() async throws {
        let (store, carts, line, guest) = store()
        store.send(.addToCart) { added(line, &$0) }
        var two = line
        two.quantity = 2
        store.send(.addToCart) { state in
            added(two, &state)
            state.cartBadge = CartBadge(itemCount: 2, subtotal: two.unitPrice * 2)
            state.screens.cart.totals = state.cart.totals(shipping: StoreProfile.standard().shippingMethods.first, tax: StoreProfile.standard().tax)
        }
        await store.receive(.cartSaveDue) {
            $0.isCartSaveDue = false
            $0.savedCart = [two]
        }
        #expect(try carts.lines(forCustomer: guest) == [two])
        await store.finish()
    }

    @Test func quittingWritesAChangeStillWaiting() async throws {
        let (store, carts, line, guest) = store()
        store.send(.addToCart) { added(line, &$0) }
        store.send(.quit) {
            $0.isCartSaveDue = false
            $0.savedCart = [line]
            $0.isQuitting = true
        }
        #expect(try carts.lines(forCustomer: guest) == [line], "written before the shop goes")
        // The save asked for earlier finds nothing left to write.
        try await store.receive(.cartSaveDue)
        #expect(try carts.lines(forCustomer: guest) == [line])
        await store.finish()
    }
}
