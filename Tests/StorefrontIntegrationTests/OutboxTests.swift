import Foundation
import LiveObjects
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Synchronization
import Testing

/// The outbox on every repository: one message per event that calls for one, written with it; and the delivery
/// worker's retries, back-off and giving up, on a clock the test moves.
@Suite("Outbox", .ownThreads)
struct OutboxTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)

    func outbox(_ kind: StockedRepositoryKind, _ fixture: any StockedOrderRepository) throws -> any MailOutbox {
        switch kind {
        case .sqlite: SQLOutbox(database: try #require(fixture as? SQLiteFixture).database)
        case .postgres: SQLOutbox(database: try #require(fixture as? PostgresStockFixture).server.database)
        }
    }

    @Test("paid, shipped and refunded each write one message; a decline writes none", arguments: StockedRepositoryKind.allCases)
    func eachEventWritesItsMessage(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let outbox = try outbox(kind, fixture)
        let orders = fixture.orders
        let draft = Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1, unitPrice: 1_800)
        let paid = try await orders.begin(draft, idempotencyKey: "paid", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        let declined = try await orders.begin(draft, idempotencyKey: "declined", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        try await orders.finish(orderNumber: paid.number, status: .paid, failure: nil, at: placedAt)
        try await orders.finish(orderNumber: declined.number, status: .declined, failure: "no", at: placedAt)
        _ = try await orders.apply(
            .shipped(Shipment(carrier: "UPS", trackingNumber: "1Z")), toOrder: paid.number, by: .merchant("ops"), at: placedAt, expecting: .paid)
        let filed = try await orders.fileRefund(
            RefundAsk(amount: Money(minorUnits: 500, currency: .usd), reason: "x"), toOrder: paid.number, by: .merchant("ops"), at: placedAt,
            expecting: nil)
        _ = try await orders.settleRefund(id: filed.id, as: .refunded(reference: "re_1"), at: placedAt)

        let entries = try await outbox.entries(orderNumber: paid.number)
        #expect(entries.map(\.kind) == [.receipt, .shipped, .refunded])
        #expect(entries.map(\.eventSequence) == [2, 3, 4], "each names its event in the order's history")
        #expect(entries.allSatisfy { $0.recipient == MailAddress(name: "Jane Appleseed", address: "jane@example.com") && $0.state == .pending })
        #expect(Set(entries.map(\.messageID)).count == 3)
        #expect(try await outbox.entries(orderNumber: declined.number).isEmpty)
        #expect(try await outbox.due(at: placedAt, limit: 10).count == 3)
        #expect(try await outbox.entry(id: entries[1].id) == entries[1], "one message by its id")
        #expect(try await outbox.entry(id: "MSG-999999") == nil)
    }

    /// A transport that fails until told otherwise, counting what it was handed.
    final class FlakyTransport: MailTransport, LiveObject {
        let failing = Mutex(true)
        let sent = Mutex<[MailMessage]>([])
        func send(_ message: MailMessage) throws(MailTransportError) {
            if failing.withLock({ $0 }) { throw MailTransportError("connection refused") }
            sent.withLock { $0.append(message) }
        }
    }

    @Test func failuresAreTriedAgainLaterDoublingThenGivenUp() async throws {
        let database = Fixtures.bundledShop()
        let (orders, outbox) = (SQLOrderRepository(database: database, currency: .usd), SQLOutbox(database: database))
        let order = try await orders.begin(
            Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        try await orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: placedAt)
        let now = Mutex(placedAt)
        let transport = FlakyTransport()
        let delivery = MailDelivery(
            outbox: outbox, orders: orders, transport: transport, shop: .standard(),
            sender: MailSender(from: MailAddress(address: "shop@example.com")),
            dates: DateSource { now.withLock { $0 } }, giveUpAfter: .seconds(3_600)
        )
        #expect(try await delivery.deliverDue().retried == ["MSG-000001": "connection refused"])
        #expect(try await delivery.deliverDue() == MailDelivery.Pass(), "not due again before 30 s")
        now.withLock { $0 = placedAt.addingTimeInterval(30) }
        #expect(try await delivery.deliverDue().retried.count == 1)
        now.withLock { $0 = placedAt.addingTimeInterval(60) }
        #expect(try await delivery.deliverDue() == MailDelivery.Pass(), "the second wait is 60 s")
        now.withLock { $0 = placedAt.addingTimeInterval(90) }
        transport.failing.withLock { $0 = false }
        #expect(try await delivery.deliverDue().sent == ["MSG-000001"])
        #expect(transport.sent.withLock { $0.count } == 1)
        #expect(try await outbox.entries(orderNumber: order.number).first?.attempts == 3)

        // Another order's message, failing for longer than an hour, is given up and shows why.
        let late = try await orders.begin(
            Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k2", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        try await orders.finish(orderNumber: late.number, status: .paid, failure: nil, at: placedAt)
        transport.failing.withLock { $0 = true }
        now.withLock { $0 = placedAt.addingTimeInterval(3_600) }
        #expect(try await delivery.deliverDue().gaveUp == ["MSG-000002": "connection refused"])
        #expect(try await outbox.entries(orderNumber: late.number).first?.state == .failed)
    }
}
