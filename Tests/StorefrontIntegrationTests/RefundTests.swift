import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Refunds and cancels through the back office on both databases: filed before the provider is asked, settled
/// after, refunded once after a lost answer or a crash, refused with nothing written, and raced.
@Suite("Refunds", .ownThreads)
struct RefundTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)

    /// A paid order of two root Hoodies, charged in the sandbox's ledger under the order's key.
    func paidOrder(_ orders: any LiveBackOffice.Orders, processor: SandboxProcessor, key: String = "k", charged: Bool = true) async throws -> Order {
        let order = try await orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 2), idempotencyKey: key, tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        if charged {
            _ = try await processor.ledger.record(LedgerCharge(key: key, tokenID: "t", amount: order.totals.total, outcome: .succeeded))
        }
        try await orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: placedAt)
        return try #require(try await orders.order(number: order.number))
    }

    func backOffice(_ orders: any LiveBackOffice.Orders, _ processor: SandboxProcessor) -> LiveBackOffice {
        LiveBackOffice(orders: orders, processor: processor, dates: Fixtures.fixedDates, currency: .usd, refundInFlightAge: .zero)
    }

    @Test("a refund of one line is refunded once, joins the history and puts the line back", arguments: StockedRepositoryKind.allCases)
    func refundOneLineWithRestock(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await paidOrder(fixture.orders, processor: processor)
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2))
        let amount = order.refundAmount(for: ["hoodie-root": 1])
        #expect(amount == Money(minorUnits: 8_900 + 734, currency: .usd), "the line's price and its share of the tax")

        let ask = RefundAsk(amount: amount, restock: [Restock(productID: "hoodie-root", quantity: 1)], reason: "arrived torn")
        let refunded = try await backOffice(fixture.orders, processor).refund(order.number, ask, by: .merchant("ops"), expecting: .paid)

        #expect(refunded.status == .partiallyRefunded)
        #expect(try fixture.stock("hoodie-root") == (2, 0, 1), "one back on hand, one fewer sold")
        let events = try await fixture.orders.events(orderNumber: order.number)
        #expect(events.last == OrderEvent(at: Fixtures.fixedDates.now(), actor: .merchant("ops"), change: .refunded(amount, reason: "arrived torn")))
        #expect(await processor.allRefunds.map(\.amount) == [amount])
        let filed = try await fixture.orders.refunds(orderNumber: order.number)
        #expect(filed.map(\.state) == [.refunded(reference: "re_sandbox_RF-000001")])
        #expect(try OrderLifecycle.rebuilt(from: events).refundable == order.totals.total - amount)
    }

    @Test("refusals write nothing: above what is left, more stock than bought, a second full refund", arguments: StockedRepositoryKind.allCases)
    func refusalsWriteNothing(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await paidOrder(fixture.orders, processor: processor)
        let office = backOffice(fixture.orders, processor)
        let total = order.totals.total
        let above = total + Money(minorUnits: 1, currency: .usd)
        await #expect(throws: BackOfficeError.change(.refused(.refundAboveRemaining(asked: above, remaining: total)))) {
            try await office.refund(order.number, RefundAsk(amount: above, reason: "x"), by: .merchant("ops"), expecting: nil)
        }
        await #expect(throws: BackOfficeError.change(.restockAboveOrdered(product: "root Hoodie", asked: 3, left: 2))) {
            try await office.refund(
                order.number, RefundAsk(amount: total, restock: [Restock(productID: "hoodie-root", quantity: 3)], reason: "x"), by: .merchant("ops"),
                expecting: nil)
        }
        #expect(try await fixture.orders.refunds(orderNumber: order.number).isEmpty)
        #expect(await processor.allRefunds.isEmpty)

        _ = try await office.refund(order.number, RefundAsk(amount: total, reason: "lost in the post"), by: .merchant("ops"), expecting: .paid)
        await #expect(throws: BackOfficeError.change(.refused(.notAllowed(.refunded(total, reason: "again"), after: .refunded)))) {
            try await office.refund(order.number, RefundAsk(amount: total, reason: "again"), by: .merchant("ops"), expecting: nil)
        }
        #expect(await processor.allRefunds.count == 1)
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2), "a refund without restock leaves the stock")
    }

    @Test("a refund the provider declines leaves the order as it was, with the reason", arguments: StockedRepositoryKind.allCases)
    func declinedRefundChangesNothing(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await paidOrder(fixture.orders, processor: processor, charged: false)
        let ask = RefundAsk(amount: Money(minorUnits: 500, currency: .usd), reason: "goodwill")
        await #expect(throws: BackOfficeError.refund(.declined("no payment was taken for order \(order.number)"))) {
            try await backOffice(fixture.orders, processor).refund(order.number, ask, by: .merchant("ops"), expecting: .paid)
        }
        #expect(try await fixture.orders.order(number: order.number)?.status == .paid)
        #expect(try await fixture.orders.events(orderNumber: order.number).map(\.change) == [.placed(total: order.totals.total), .charged])
        #expect(
            try await fixture.orders.refunds(orderNumber: order.number).map(\.state) == [
                .declined(reason: "no payment was taken for order \(order.number)")
            ])
        // Declined is settled: the order may change again.
        #expect(
            try await backOffice(fixture.orders, processor).ship(
                order.number, Shipment(carrier: "UPS", trackingNumber: "1Z"), by: .merchant("ops"), expecting: .paid
            ).status == .shipped)
    }

    @Test(
        "a refund whose answer was lost stays pending, holds the order, and is refunded once when asked again",
        arguments: StockedRepositoryKind.allCases)
    func lostAnswerRefundsOnce(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await paidOrder(fixture.orders, processor: processor)
        let office = backOffice(fixture.orders, processor)
        await processor.inject(.refundAnswerLost)
        let ask = RefundAsk(amount: Money(minorUnits: 1_000, currency: .usd), reason: "late")
        await #expect(throws: BackOfficeError.refund(.unanswered("the sandbox dropped the answer"))) {
            try await office.refund(order.number, ask, by: .merchant("ops"), expecting: .paid)
        }
        #expect(try await fixture.orders.order(number: order.number)?.status == .paid)
        await #expect(throws: BackOfficeError.change(.refundPending("RF-000001")), "nothing else changes the order meanwhile") {
            try await office.cancel(order.number, reason: "changed mind", by: .shopper("local:jane"), expecting: nil)
        }
        #expect(try await fixture.orders.pendingRefunds().map(\.id) == ["RF-000001"])

        let recovered = try await office.finishPendingRefunds()
        #expect(recovered == [RefundRecovery(refundID: "RF-000001", orderNumber: order.number, failure: nil)])
        #expect(try await fixture.orders.order(number: order.number)?.status == .partiallyRefunded)
        #expect(await processor.allRefunds.count == 1, "the provider was asked twice under one key")
        #expect(try await fixture.orders.pendingRefunds().isEmpty)
    }

    @Test("a refund filed by a process that died before asking is made by the recovery", arguments: StockedRepositoryKind.allCases)
    func crashAfterFilingIsRecovered(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await paidOrder(fixture.orders, processor: processor)
        let ask = RefundAsk(
            amount: Money(minorUnits: 2_000, currency: .usd), restock: [Restock(productID: "hoodie-root", quantity: 1)], reason: "dented")
        _ = try await fixture.orders.fileRefund(ask, toOrder: order.number, by: .merchant("ops"), at: placedAt, expecting: .paid)
        #expect(await processor.allRefunds.isEmpty)

        // Another process starts: the recovery asks the provider, settles, and restocks once.
        let recovered = try await backOffice(try fixture.anotherBuyer(), processor).finishPendingRefunds()
        #expect(recovered.map(\.failure) == [nil])
        #expect(await processor.allRefunds.count == 1)
        #expect(try fixture.stock("hoodie-root") == (2, 0, 1))
        #expect(try await backOffice(fixture.orders, processor).finishPendingRefunds().isEmpty, "nothing is left to recover")
    }

    @Test("canceling a paid order gives back everything and puts every line back", arguments: StockedRepositoryKind.allCases)
    func cancelRefundsInFullAndRestocks(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await paidOrder(fixture.orders, processor: processor)
        let canceled = try await backOffice(fixture.orders, processor).cancel(
            order.number, reason: "changed my mind", by: .shopper("local:jane"), expecting: .paid)
        #expect(canceled.status == .canceled)
        #expect(try fixture.stock("hoodie-root") == (3, 0, 0))
        #expect(await processor.allRefunds.map(\.amount) == [order.totals.total])
        #expect(try await fixture.orders.events(orderNumber: order.number).last?.change == .canceled)
        await #expect(
            throws: BackOfficeError.change(.refused(.notAllowed(.shipped(Shipment(carrier: "UPS", trackingNumber: "1Z")), after: .canceled)))
        ) {
            try await backOffice(fixture.orders, processor).ship(
                order.number, Shipment(carrier: "UPS", trackingNumber: "1Z"), by: .merchant("ops"), expecting: nil)
        }
    }

    @Test func aShopperCannotCancelAnotherShoppersOrder() async throws {
        let orders = SQLOrderRepository(database: Fixtures.bundledShop(), currency: .usd)
        let processor = SandboxProcessor()
        let order = try await paidOrder(orders, processor: processor)
        await #expect(throws: BackOfficeError.change(.notFound(order.number))) {
            try await backOffice(orders, processor).cancel(order.number, reason: "mine now", by: .shopper("local:mallory"), expecting: nil)
        }
        #expect(try await orders.order(number: order.number)?.status == .paid)
        #expect(await processor.allRefunds.isEmpty)
    }

    @Test("a merchant refunding while the shopper cancels: exactly one wins, and the money moves once", arguments: StockedRepositoryKind.allCases)
    func refundRacingCancel(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await paidOrder(fixture.orders, processor: processor)
        let merchant = backOffice(try fixture.anotherBuyer(), processor)
        let shopper = backOffice(try fixture.anotherBuyer(), processor)
        async let refunding = Result { () async throws(BackOfficeError) -> Order in
            try await merchant.refund(order.number, RefundAsk(amount: order.totals.total, reason: "refund"), by: .merchant("ops"), expecting: .paid)
        }
        async let canceling = Result { () async throws(BackOfficeError) -> Order in
            try await shopper.cancel(order.number, reason: "cancel", by: .shopper("local:jane"), expecting: .paid)
        }
        let outcomes = await [refunding, canceling]
        #expect(outcomes.compactMap { try? $0.get() }.count == 1, "\(outcomes)")
        let loser = try #require(outcomes.compactMap { if case .failure(let error) = $0 { error } else { nil } }.first)
        switch loser {
        case .change(.changed), .change(.refundPending): break
        default: Issue.record("the other is told the order changed: \(loser)")
        }
        #expect(await processor.allRefunds.count == 1)
        #expect(try await fixture.orders.refunds(orderNumber: order.number).count == 1)
    }
}
