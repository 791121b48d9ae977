import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontTesting
import Testing

/// What refunds may put back on the shelf: never more of a product than was bought, however the restock is spelled
/// and however many refunds share it.
@Suite("Refund restock bounds", .ownThreads)
struct RefundRestockBoundTests {
    let refunds = RefundTests()

    @Test("one product named three times is bounded by what was bought of it, not each line alone", arguments: StockedRepositoryKind.allCases)
    func aProductNamedSeveralTimesIsBoundedAsOne(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await refunds.paidOrder(fixture.orders, processor: processor)
        let office = refunds.backOffice(fixture.orders, processor)
        let twice = Array(repeating: Restock(productID: "hoodie-root", quantity: 2), count: 3)
        await #expect(throws: BackOfficeError.change(.restockAboveOrdered(product: "root Hoodie", asked: 4, left: 2))) {
            try await office.refund(
                order.number, RefundAsk(amount: order.totals.total, restock: twice, reason: "2+2+2"), by: .merchant("ops"), expecting: nil)
        }
        let huge = [Restock(productID: "hoodie-root", quantity: 1), Restock(productID: "hoodie-root", quantity: .max)]
        await #expect(throws: BackOfficeError.change(.restockAboveOrdered(product: "root Hoodie", asked: .max, left: 2))) {
            try await office.refund(
                order.number, RefundAsk(amount: order.totals.total, restock: huge, reason: "overflow"), by: .merchant("ops"), expecting: nil)
        }
        #expect(try await fixture.orders.refunds(orderNumber: order.number).isEmpty)
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2), "nothing put back")
    }

    @Test("two refunds together put back at most what was bought", arguments: StockedRepositoryKind.allCases)
    func earlierRefundsCountAgainstTheBound(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await refunds.paidOrder(fixture.orders, processor: processor)
        let office = refunds.backOffice(fixture.orders, processor)
        let one = order.refundAmount(for: ["hoodie-root": 1])
        _ = try await office.refund(
            order.number, RefundAsk(amount: one, restock: [Restock(productID: "hoodie-root", quantity: 2)], reason: "both back"),
            by: .merchant("ops"), expecting: .paid)
        #expect(try fixture.stock("hoodie-root") == (3, 0, 0))
        await #expect(throws: BackOfficeError.change(.restockAboveOrdered(product: "root Hoodie", asked: 1, left: 0))) {
            try await office.refund(
                order.number, RefundAsk(amount: one, restock: [Restock(productID: "hoodie-root", quantity: 1)], reason: "again"),
                by: .merchant("ops"), expecting: nil)
        }
        #expect(try fixture.stock("hoodie-root") == (3, 0, 0), "the second refund put nothing back")
        #expect(await processor.allRefunds.count == 1)
    }

    @Test(
        "two recoveries starting together ask the provider once, and neither takes a refund its filer may still be sending",
        arguments: StockedRepositoryKind.allCases)
    func aPendingRefundIsTakenBeforeItIsSentAgain(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await refunds.paidOrder(fixture.orders, processor: processor)
        let filedAt = Fixtures.fixedDates.now()
        let ask = RefundAsk(amount: Money(minorUnits: 1_000, currency: .usd), reason: "goodwill")
        _ = try await fixture.orders.fileRefund(ask, toOrder: order.number, by: .merchant("ops"), at: filedAt, expecting: .paid)
        func office(at time: Date) throws -> LiveBackOffice {
            LiveBackOffice(orders: try fixture.anotherBuyer(), processor: processor, dates: DateSource { time }, currency: .usd)
        }
        #expect(try await office(at: filedAt + 60).finishPendingRefunds().isEmpty, "a minute after filing it is still its filer's")
        #expect(await processor.allRefunds.isEmpty)

        let later = filedAt + 300
        let (first, second) = (try office(at: later), try office(at: later))
        async let one = first.finishPendingRefunds()
        async let two = second.finishPendingRefunds()
        let recovered = try await one + two
        #expect(recovered.map(\.refundID) == ["RF-000001"], "taken by one of them: \(recovered)")
        #expect(await processor.allRefunds.count == 1, "asked for once")
        #expect(try await fixture.orders.pendingRefunds().isEmpty)
    }
}
