import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontTesting
import Testing

/// A processor that cannot say how any charge ended: the provider unreachable while the shop starts to settle.
private struct SilentProcessor: ChargeProcessor {
    struct Down: Error {}
    func charge(_ request: ChargeRequest) async throws(MerchantBackendError) -> LedgerCharge { throw .providerUnreachable }
    func recordedCharge(forKey key: String) async throws -> LedgerCharge? { throw Down() }
    func void(key: String, amount: Money) async throws -> LedgerCharge { throw Down() }
}

/// The check before Pay: a shopper's order whose charge the provider cannot answer for stays open and holds Pay,
/// however old it is; it is never dropped as if settled.
@Suite("Open orders before Pay", .ownThreads)
struct OpenOrderCheckTests {
    @Test(arguments: StockedRepositoryKind.allCases)
    func anOrderTheProviderCannotAnswerForIsStillOpen(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let placedAt = Date(timeIntervalSince1970: 1_795_339_800)
        let order = try await fixture.orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1), idempotencyKey: "k-open", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        let backend = LiveMerchantBackend(processor: SilentProcessor(), orders: fixture.orders, dates: DateSource { placedAt + 3_600 })
        let check = try await backend.settleOpenOrders(customer: "local:jane")
        #expect(check.stillOpen == [order.number], "reported still open, so Pay waits: \(check)")
        #expect(check.paid.isEmpty)
        #expect(try await fixture.orders.unsettledOrders().map(\.number) == [order.number], "and left open for the next try")
    }
}
