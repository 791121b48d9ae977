import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import Testing

/// A cart change is drawn first and written right after, so a key never waits on the disk; nothing
/// waiting to be written is lost to a quit or a change of customer.
@MainActor
@Suite("Saving the cart after its frame")
struct CartSaveTests {
    private func store() async -> (TestStore, InMemoryCartRepository, CartLine, String, Int?) {
        var stack = TestStack()
        let carts = InMemoryCartRepository()
        stack.carts = carts
        let store = await TestStore(dependencies: stack.dependencies)
        let product = store.state.productList.list.rows[0]
        return (
            store, carts, CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1), stack.guestID, product.stock
        )
    }

    @Test func theChangeIsShownFirstThenCheckedThenWritten() async throws {
        let (store, carts, line, guest, stock) = await store()
        store.send(.addToCart) { $0.expectAdded(line) }
        #expect(try carts.lines(forCustomer: guest) == [], "nothing is written before the frame")
        await store.receive(.cart(.stockChecked([.afterAdding(line, stock: stock)]))) { $0.expectStockChecked(writing: [line]) }
        await store.receive(.cart(.saved(customer: guest, lines: [line]))) { $0.expectSaved([line]) }
        #expect(try carts.lines(forCustomer: guest) == [line])
        await store.finish()
    }

    @Test func keysWhileAWriteIsInFlightAreWrittenByTheNextOne() async throws {
        let (store, carts, line, guest, stock) = await store()
        store.send(.addToCart) { $0.expectAdded(line) }
        await store.receive(.cart(.stockChecked([.afterAdding(line, stock: stock)]))) { $0.expectStockChecked(writing: [line]) }
        var two = line
        two.quantity = 2
        // One write at a time: the second add waits for the first write, so an older cart never lands last.
        store.send(.addToCart) { $0.expectAdded(two) }
        await store.receive(.cart(.saved(customer: guest, lines: [line]))) { $0.expectSaved([line]) }
        await store.receive(.cart(.stockChecked([.afterAdding(two, stock: stock)]))) { $0.expectStockChecked(writing: [two]) }
        await store.receive(.cart(.saved(customer: guest, lines: [two]))) { $0.expectSaved([two]) }
        #expect(try carts.lines(forCustomer: guest) == [two])
        await store.finish()
    }

    @Test func quittingWritesTheLastChangeWithoutWaitingForItsStockCheck() async throws {
        let (store, carts, line, guest, _) = await store()
        store.send(.addToCart) { $0.expectAdded(line) }
        store.send(.quit) {
            $0.isQuitting = true
            $0.cart.isStockCheckInFlight = false
            $0.cart.saveInFlight = [line]
        }
        await store.receive(.cart(.saved(customer: guest, lines: [line]))) { $0.expectSaved([line]) }
        #expect(try carts.lines(forCustomer: guest) == [line], "written before the shop goes")
        await store.finish()
    }
}
