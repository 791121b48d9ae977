import LiveObjects
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import Synchronization
import Testing

/// A double a test did not set up fails that test, instead of quietly answering.
@MainActor
@Suite("Doubles that were not set up")
struct DoublesTests {
    @Test func aMerchantBackendSpyPastItsScriptFailsTheTest() async {
        let backend = MerchantBackendSpy(results: [])
        let totals = CartTotals(subtotal: .zero(.usd), shipping: .zero(.usd), tax: .zero(.usd))
        let draft = OrderDraft(
            lines: [], totals: totals, shippingMethod: Fixtures.standardShipping, shippingContact: Fixtures.jane, customerID: "guest")
        await withKnownIssue {
            _ = try? await backend.processPayment(token: PaymentToken(id: "tok", paymentMethod: Fixtures.visa), order: draft, idempotencyKey: "key-1")
        }
        #expect(backend.calls.count == 1)
    }

    @Test func aProviderStubWithoutAVaultResultFailsTheTest() async throws {
        let provider = PaymentProviderStub()
        let card = try #require(
            try? CardEntry(number: "4242 4242 4242 4242", expiry: "12/34", securityCode: "123", name: "J", postalCode: "95014")
                .validated(today: CardExpiry(month: 1, year: 2026)).get())
        await withKnownIssue {
            _ = try? await provider.vault(card, forCustomer: "guest")
        }
    }

    /// The in-memory catalog pages only: a search asked of it fails the test instead of answering with a search of
    /// its own, so what a test finds is what SQLite and PostgreSQL find.
    @Test func theInMemoryCatalogFailsASearchAndFindsNothing() throws {
        let catalog = InMemoryCatalog(catalog: Fixtures.generatedCatalog(count: 50))
        #expect(try catalog.count(matching: "  ") == 50)
        withKnownIssue {
            #expect((try? catalog.count(matching: "oak")) == 0)
            #expect((try? catalog.page(matching: "oak", offset: 0, limit: 10))?.isEmpty == true)
        }
    }

    @Test func theTestStoreFailsWhenTheChangeIsNotTheOneExpected() async {
        let store = await TestStore(dependencies: TestStack().dependencies)
        withKnownIssue {
            store.send(.moveDown) { $0.productList.list.selectedIndex = 2 }
        }
    }

    @Test func theTestStoreFailsWhenAnAnswerIsLeftUnreceived() async {
        var stack = TestStack()
        let spy = PaymentAuthorizationSpy()
        stack.paymentAuthorization = spy.authorization
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.addToCart, .showCart)
        // Pay checks the wallet in an effect whose answer this test never takes.
        store.send(.pay) { $0.checkout.isCheckingWallet = true }
        await withKnownIssue {
            await store.finish()
        }
    }

    @Test func theTestStoreFailsWhenAnEffectIsStillRunningAtTheEnd() async {
        let store = await Self.storeWithAnAddWaitingAtAClosedGate()
        await withKnownIssue {
            await store.finish()
        }
    }

    @Test func skippingTheEffectsInFlightSaysTheTestMeansIt() async {
        let store = await Self.storeWithAnAddWaitingAtAClosedGate()
        await store.skipInFlightEffects()
        await store.finish()
    }

    /// A shop whose add has been sent, its stock check waiting at a gate that never opens.
    private static func storeWithAnAddWaitingAtAClosedGate() async -> TestStore {
        var stack = TestStack()
        let catalog = GatedCatalog(base: stack.catalog)
        stack.catalog = catalog
        let store = await TestStore(dependencies: stack.dependencies)
        catalog.closeGate()
        let product = store.state.productList.list.rows[0]
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        store.send(.addToCart) { $0.expectAdded(line, in: catalog.shop) }
        return store
    }
}

/// A catalog whose single-product reads wait at a gate once it is closed, until their task is cancelled.
final class GatedCatalog: CatalogRepository {
    private let base: any CatalogRepository
    private let closed = Mutex(false)
    /// Kept, so the gates stay open-ended: a stream whose continuation is gone ends at once.
    private let waiting = Mutex<[AsyncStream<Void>.Continuation]>([])
    init(base: any CatalogRepository) { self.base = base }

    func closeGate() { closed.withLock { $0 = true } }

    var shop: ShopProfile { base.shop }
    func count(matching query: String) async throws -> Int { try await base.count(matching: query) }
    func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        try await base.page(matching: query, offset: offset, limit: limit)
    }
    func product(id: ProductID) async throws -> Product? {
        if closed.withLock({ $0 }) {
            // Never yields: the iteration ends only when the waiting task is cancelled.
            let (gate, continuation) = AsyncStream<Void>.makeStream()
            waiting.withLock { $0.append(continuation) }
            for await _ in gate {}
            throw CancellationError()
        }
        return try await base.product(id: id)
    }
}

/// `StorefrontDependencies.unimplemented()`: nothing works until a test says it should.
@MainActor
@Suite("Dependencies a test did not set up")
struct UnimplementedDependenciesTests {
    @Test func openingAShopWithNothingSetUpNamesEachPortAndMethodItCalled() async {
        let named = Mutex<[String]>([])
        await withKnownIssue {
            let store = await TestStore(dependencies: .unimplemented())
            await store.finish()
        } matching: { issue in
            named.withLock { $0.append(issue.comments.map(\.rawValue).joined() + "\(issue)") }
            return true
        }
        let said = named.withLock { $0 }
        #expect(said.contains { $0.contains("CatalogRepository.count(matching:)") }, "\(said)")
        #expect(said.contains { $0.contains("CartRepository.lines(forCustomer:)") }, "\(said)")
        #expect(said.contains { $0.contains("WalletRepository.wallet(forCustomer:)") }, "\(said)")
    }

    @Test func whatTheFeatureUsesIsSetUpAndNothingElseIsCalled() async {
        var dependencies = StorefrontDependencies.unimplemented()
        dependencies.catalog = Fixtures.bundledCatalog
        dependencies.carts = nil
        dependencies.accounts.wallets = InMemoryWalletRepository()
        dependencies.accounts.profiles = InMemoryAccountProfileRepository()
        let store = await TestStore(dependencies: dependencies)
        store.send(.moveDown) { $0.productList.list.selectedIndex = 1 }
        await store.finish()
    }
}

extension GatedCatalog: LiveObject {}
