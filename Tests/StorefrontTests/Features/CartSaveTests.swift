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

    @Test func theChangeIsShownFirstAndWrittenByTheNextStep() async throws {
        let (store, carts, line, guest) = store()
        store.send(.addToCart) { $0.expectAdded(line) }
        #expect(try carts.lines(forCustomer: guest) == [], "nothing is written before the frame")
        await store.receive(.cartFollowUpDue) {
            $0.isCartFollowUpDue = false
            $0.stockChecksDue = [:]
            $0.savedCart = [line]
        }
        #expect(try carts.lines(forCustomer: guest) == [line])
        await store.finish()
    }

    @Test func keysBeforeTheSaveRunAskForOneSaveOfTheLatestCart() async throws {
        let (store, carts, line, guest) = store()
        store.send(.addToCart) { $0.expectAdded(line) }
        var two = line
        two.quantity = 2
        store.send(.addToCart) { $0.expectAdded(two) }
        await store.receive(.cartFollowUpDue) {
            $0.isCartFollowUpDue = false
            $0.stockChecksDue = [:]
            $0.savedCart = [two]
        }
        #expect(try carts.lines(forCustomer: guest) == [two])
        await store.finish()
    }

    @Test func quittingWritesAChangeStillWaiting() async throws {
        let (store, carts, line, guest) = store()
        store.send(.addToCart) { $0.expectAdded(line) }
        store.send(.quit) {
            $0.isCartFollowUpDue = false
            $0.stockChecksDue = [:]
            $0.savedCart = [line]
            $0.isQuitting = true
        }
        #expect(try carts.lines(forCustomer: guest) == [line], "written before the shop goes")
        // The save asked for earlier finds nothing left to write.
        try await store.receive(.cartFollowUpDue)
        #expect(try carts.lines(forCustomer: guest) == [line])
        await store.finish()
    }
}
