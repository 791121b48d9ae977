import CustomDump
import Synchronization
import Testing
import StoreClients
import StoreModels
import StoreSandbox
import StorefrontCore
import StorefrontTesting

/// A store that can be taken away and given back, as a database server stopped and started.
final class StoreSwitch: Sendable {
    private let down = Mutex(false)
    var isDown: Bool {
        get { down.withLock { $0 } }
        set { down.withLock { $0 = newValue } }
    }

    func check() throws {
        if isDown { throw StorageError(StorageError.unavailableMessage, isUnavailable: true) }
    }
}

/// The catalog behind a `StoreSwitch`.
struct SwitchedCatalog: CatalogRepository {
    let base: any CatalogRepository
    let power: StoreSwitch
    var store: StoreProfile { base.store }
    func count(matching query: String) throws -> Int { try power.check(); return try base.count(matching: query) }
    func page(matching query: String, offset: Int, limit: Int) throws -> [Product] {
        try power.check()
        return try base.page(matching: query, offset: offset, limit: limit)
    }
    func product(id: ProductID) throws -> Product? { try power.check(); return try base.product(id: id) }
}

/// The cart store behind a `StoreSwitch`.
struct SwitchedCarts: CartStore {
    let base = InMemoryCartStore()
    let power: StoreSwitch
    func lines(forCustomer customer: String) throws -> [CartLine] { try power.check(); return try base.lines(forCustomer: customer) }
    func save(_ lines: [CartLine], forCustomer customer: String) throws { try power.check(); try base.save(lines, forCustomer: customer) }
}

@MainActor
@Suite("A store that goes away")
struct StoreOutageTests {
    @Test func theCartIsKeptTheShopperIsToldAndTicksRetryUntilTheStoreIsBack() async throws {
        var stack = TestStack()
        let power = StoreSwitch()
        let carts = SwitchedCarts(power: power)
        stack.catalog = SwitchedCatalog(base: stack.catalog, power: power)
        var dependencies = stack.dependencies
        dependencies.carts = carts
        let store = TestStore(dependencies: dependencies)
        let shop = dependencies.catalog.store
        let product = store.state.productList.rows[0]
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)

        power.isDown = true
        // The frame shows the change first; the save follows it.
        store.send(.addToCart) { $0.expectAdded(line, in: shop) }
        await store.receive(.cartFollowUpDue) {
            $0.isCartFollowUpDue = false
            $0.stockChecksDue = [:]
            // The cart is kept in memory; the shopper hears why it is not saved, in one line.
            $0.screens.isWaitingForStore = true
            $0.notice = Notice(.error, "The store is not reachable; retrying")
        }
        #expect(store.state.screens.wantsTicks, "the host ticks while the store is waited for")
        store.send(.tick) { _ in }
        store.send(.moveDown) {
            $0.productList.selectedIndex = 1
        }

        power.isDown = false
        store.send(.tick) {
            $0.savedCart = [line]
            $0.screens.isWaitingForStore = false
            $0.notice = Notice(.info, "The store is back.")
        }
        #expect(try carts.base.lines(forCustomer: store.state.customerID) == [line], "the cart reached the store once it was back")
        #expect(!store.state.screens.wantsTicks)
    }

    @Test func anotherStorageFailureIsToldAsItIsAndNotRetried() async throws {
        var stack = TestStack()
        var dependencies = stack.dependencies
        dependencies.carts = FailingCarts()
        stack.catalog = dependencies.catalog
        let store = TestStore(dependencies: dependencies)
        store.send(.addToCart) { state in
            let product = state.productList.rows[0]
            state.expectAdded(CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1), in: dependencies.catalog.store)
        }
        await store.receive(.cartFollowUpDue) {
            $0.isCartFollowUpDue = false
            $0.stockChecksDue = [:]
            $0.notice = Notice(.error, "Your cart could not be saved: the disk is full")
        }
        #expect(!store.state.screens.wantsTicks)
    }
}

/// A cart store whose saves fail for good.
struct FailingCarts: CartStore {
    func lines(forCustomer customer: String) throws -> [CartLine] { [] }
    func save(_ lines: [CartLine], forCustomer customer: String) throws { throw StorageError("the disk is full") }
}
