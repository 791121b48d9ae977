import CustomDump
import LiveObjects
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import Synchronization
import Testing

/// A catalog that can be taken away and given back, as a database server stopped and started.
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
    var shop: ShopProfile { base.shop }
    func count(matching query: String) async throws -> Int {
        try power.check()
        return try await base.count(matching: query)
    }
    func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        try power.check()
        return try await base.page(matching: query, offset: offset, limit: limit)
    }
    func product(id: ProductID) async throws -> Product? {
        try power.check()
        return try await base.product(id: id)
    }
}

/// The cart repository behind a `StoreSwitch`.
struct SwitchedCarts: CartRepository {
    let base = InMemoryCartRepository()
    let power: StoreSwitch
    func lines(forCustomer customer: String) async throws -> [CartLine] {
        try power.check()
        return try base.lines(forCustomer: customer)
    }
    func save(_ lines: [CartLine], forCustomer customer: String) async throws {
        try power.check()
        try base.save(lines, forCustomer: customer)
    }
}

@MainActor
@Suite("A store that goes away")
struct StorageOutageTests {
    @Test func theCartIsKeptTheShopperIsToldAndTicksRetryUntilTheStoreIsBack() async throws {
        var stack = TestStack()
        let power = StoreSwitch()
        let carts = SwitchedCarts(power: power)
        stack.catalog = SwitchedCatalog(base: stack.catalog, power: power)
        var dependencies = stack.dependencies
        dependencies.carts = carts
        let store = await TestStore(dependencies: dependencies)
        let shop = dependencies.catalog.shop
        let product = store.state.productList.list.rows[0]
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)

        power.isDown = true
        // The frame shows the change first; the stock check and the write follow it.
        store.send(.addToCart) { $0.expectAdded(line, in: shop) }
        await store.receive(.cart(.stockChecked([.afterAdding(line, stock: nil)]))) { $0.expectStockChecked(writing: [line]) }
        let unreachable = StorageError(StorageError.unavailableMessage, isUnavailable: true)
        await store.receive(.cart(.saveFailed(customer: store.state.customer.customerID, lines: [line], unreachable))) {
            // The cart is kept in memory; the shopper hears why it is not saved, in one line.
            $0.cart.saveInFlight = nil
            $0.cart.saveFailed = [line]
            $0.shell.isWaitingForStorage = true
            $0.shell.notice = Notice(.error, "The database is not reachable; retrying")
        }
        #expect(store.state.screens.wantsTicks, "the host ticks while the store is waited for")
        // A tick tries the database again; a second tick while that try is pending asks nothing more.
        store.send(.tick) {
            $0.productList.request += 1
            $0.productList.pending = .count(keepSelection: true)
            $0.productList.list.isLoading = true
        }
        store.send(.tick) { _ in }
        try await store.receive(.productList(.failed(request: store.state.productList.request, unreachable))) {
            $0.productList.pending = nil
            $0.productList.list.isLoading = false
        }
        // Keys that need nothing from the database are answered meanwhile.
        store.send(.moveDown) {
            $0.productList.list.selectedIndex = 1
        }

        power.isDown = false
        // The window and two either side of it, as the list reads them.
        let rows = try await dependencies.catalog.page(matching: "", offset: 0, limit: 5 * store.state.listRowCapacity)
        store.send(.tick) {
            $0.productList.request += 1
            $0.productList.pending = .count(keepSelection: true)
            $0.productList.list.isLoading = true
        }
        await store.receive(
            .productList(.counted(request: store.state.productList.request, total: store.state.productList.list.totalCount, from: 0, rows: rows))
        ) {
            $0.productList.pending = nil
            $0.productList.list.isLoading = false
            $0.shell.isWaitingForStorage = false
            $0.cart.saveFailed = nil
            $0.shell.notice = Notice(.info, "The database is back.")
            // The write held while the database was away goes out now.
            $0.cart.saveInFlight = [line]
        }
        await store.receive(.cart(.saved(customer: store.state.customer.customerID, lines: [line]))) { $0.expectSaved([line]) }
        #expect(try carts.base.lines(forCustomer: store.state.customer.customerID) == [line], "the cart reached the store once it was back")
        #expect(!store.state.screens.wantsTicks)
        await store.finish()
    }

    @Test func anotherStorageFailureIsToldAsItIsAndNotRetried() async throws {
        var stack = TestStack()
        var dependencies = stack.dependencies
        dependencies.carts = FailingCarts()
        stack.catalog = dependencies.catalog
        let store = await TestStore(dependencies: dependencies)
        let product = store.state.productList.list.rows[0]
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        store.send(.addToCart) { $0.expectAdded(line, in: dependencies.catalog.shop) }
        await store.receive(.cart(.stockChecked([.afterAdding(line, stock: product.stock)]))) { $0.expectStockChecked(writing: [line]) }
        await store.receive(.cart(.saveFailed(customer: store.state.customer.customerID, lines: [line], StorageError("the disk is full")))) {
            $0.cart.saveInFlight = nil
            $0.cart.saveFailed = [line]
            $0.shell.notice = Notice(.error, "Your cart could not be saved: the disk is full")
        }
        #expect(!store.state.screens.wantsTicks)
        await store.finish()
    }
}

/// A cart repository whose saves fail for good.
struct FailingCarts: CartRepository {
    func lines(forCustomer customer: String) async throws -> [CartLine] { [] }
    func save(_ lines: [CartLine], forCustomer customer: String) async throws { throw StorageError("the disk is full") }
}

extension StoreSwitch: LiveObject {}
