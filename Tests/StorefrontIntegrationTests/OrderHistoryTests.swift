import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Each order's append-only history on every order repository: written with the change it records, the status
/// rebuilt from it, never updated or deleted, and made for orders placed before it existed.
@Suite("Order history", .ownThreads)
struct OrderHistoryTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)
    let settledAt = Date(timeIntervalSince1970: 1_795_339_805)

    @Test("each change writes its event, and the events give the order's status", arguments: OrderRepositoryKind.allCases)
    func eachChangeWritesItsEvent(kind: OrderRepositoryKind) async throws {
        let orders = try await kind.make()
        let draft = Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1, unitPrice: 1_800)
        let paid = try await orders.begin(draft, idempotencyKey: "paid", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        let declined = try await orders.begin(draft, idempotencyKey: "declined", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        try await orders.finish(orderNumber: paid.number, status: .paid, failure: nil, at: settledAt)
        try await orders.finish(orderNumber: declined.number, status: .declined, failure: "Your card was declined.", at: settledAt)
        // A settlement that comes after the order is settled changes nothing and writes nothing.
        try await orders.finish(orderNumber: paid.number, status: .voided, failure: nil, at: settledAt)

        let placed = OrderEvent(at: placedAt, actor: .shopper("local:jane"), change: .placed(total: draft.totals.total))
        #expect(try await orders.events(orderNumber: paid.number) == [placed, OrderEvent(at: settledAt, actor: .provider, change: .charged)])
        #expect(
            try await orders.events(orderNumber: declined.number) == [
                placed, OrderEvent(at: settledAt, actor: .provider, change: .declined(reason: "Your card was declined.")),
            ])
        for order in [paid, declined] {
            let stored = try #require(try await orders.order(number: order.number))
            #expect(try OrderLifecycle.rebuilt(from: try await orders.events(orderNumber: order.number)).status == stored.status)
        }
    }

    @Test func sqliteRefusesToChangeOrDeleteAnEvent() async throws {
        let fixture = try SQLiteFixture()
        let order = try await fixture.orders.begin(
            Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        for statement in ["UPDATE order_event SET kind = 'charged'", "DELETE FROM order_event"] {
            await #expect(throws: DatabaseError.self, "\(statement)") {
                try await fixture.database.pool.write { db in try db.execute(sql: statement) }
            }
        }
        #expect(try await fixture.orders.events(orderNumber: order.number).count == 1)
    }

    @Test func postgresRefusesToChangeOrDeleteAnEvent() async throws {
        let fixture = try await PostgresStockFixture()
        let order = try await fixture.orders.begin(
            Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        for statement in ["UPDATE order_event SET kind = 'charged'", "DELETE FROM order_event"] {
            #expect(throws: (any Error).self, "\(statement)") { try fixture.server.rows(statement) }
        }
        #expect(try await fixture.orders.events(orderNumber: order.number).count == 1)
    }

    @Test func ordersPlacedBeforeTheHistoryGetTheirsWhenTheDatabaseIsUpgraded() async throws {
        let fixture = try SQLiteFixture()
        let draft = Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1)
        let paid = try await fixture.orders.begin(draft, idempotencyKey: "paid", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        try await fixture.orders.finish(orderNumber: paid.number, status: .paid, failure: nil, at: settledAt)
        let open = try await fixture.orders.begin(draft, idempotencyKey: "open", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        // The database as a version before the history left it: no table, and its step not taken.
        try await fixture.database.pool.write { db in
            try db.execute(sql: "DROP TABLE order_event; DELETE FROM grdb_migrations WHERE identifier = 'v8-order-events'")
        }
        let upgraded = try SQLiteDatabase.open(directory: fixture.directory)
        let orders = SQLOrderRepository(database: upgraded, currency: .usd)
        let placed = OrderEvent(at: placedAt, actor: .shopper("local:jane"), change: .placed(total: draft.totals.total))
        #expect(try await orders.events(orderNumber: paid.number) == [placed, OrderEvent(at: placedAt, actor: .provider, change: .charged)])
        #expect(try await orders.events(orderNumber: open.number) == [placed])
        #expect(try OrderLifecycle.rebuilt(from: try await orders.events(orderNumber: paid.number)).status == .paid)
    }

    static let parcel = Shipment(carrier: "UPS", trackingNumber: "1Z999AA10123456784", trackingURL: "https://ups.example/t/1Z999AA10123456784")

    @Test("a change the lifecycle allows is written with its event; one it refuses writes nothing", arguments: OrderRepositoryKind.allCases)
    func changesFollowTheLifecycle(kind: OrderRepositoryKind) async throws {
        let orders = try await kind.make()
        let draft = Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1, unitPrice: 1_800)
        let order = try await orders.begin(draft, idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        await #expect(throws: OrderChangeError.refused(.notAllowed(.shipped(Self.parcel), after: .charging))) {
            try await orders.apply(.shipped(Self.parcel), toOrder: order.number, by: .merchant("ops"), at: settledAt, expecting: nil)
        }
        try await orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: settledAt)
        let shipped = try await orders.apply(.shipped(Self.parcel), toOrder: order.number, by: .merchant("ops"), at: settledAt, expecting: .paid)
        #expect(shipped.status == .shipped)
        await #expect(throws: OrderChangeError.refused(.notAllowed(.shipped(Self.parcel), after: .shipped))) {
            try await orders.apply(.shipped(Self.parcel), toOrder: order.number, by: .merchant("ops"), at: settledAt, expecting: nil)
        }
        await #expect(throws: OrderChangeError.changed(now: .shipped)) {
            try await orders.apply(.canceled, toOrder: order.number, by: .shopper("local:jane"), at: settledAt, expecting: .paid)
        }
        await #expect(throws: OrderChangeError.notFound("SF-999999")) {
            try await orders.apply(.delivered, toOrder: "SF-999999", by: .system, at: settledAt, expecting: nil)
        }
        #expect(try await orders.apply(.delivered, toOrder: order.number, by: .system, at: settledAt, expecting: .shipped).status == .delivered)
        let events = try await orders.events(orderNumber: order.number)
        #expect(
            events.map(\.change) == [.placed(total: draft.totals.total), .charged, .shipped(Self.parcel), .delivered],
            "the refused ones wrote nothing")
        #expect(events[2].actor == .merchant("ops"))
        #expect(try await orders.order(number: order.number)?.status == .delivered)
    }

    @Test("two changes racing for one order: exactly one is made", arguments: StockedRepositoryKind.allCases)
    func twoChangesRacing(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let order = try await fixture.orders.begin(
            Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        try await fixture.orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: settledAt)
        // A merchant ships while the shopper cancels, each on connections of their own.
        let merchant = try fixture.anotherBuyer()
        let shopper = try fixture.anotherBuyer()
        async let shipping = Result { () async throws(OrderChangeError) -> Order in
            try await merchant.apply(.shipped(Self.parcel), toOrder: order.number, by: .merchant("ops"), at: settledAt, expecting: .paid)
        }
        async let canceling = Result { () async throws(OrderChangeError) -> Order in
            try await shopper.apply(.canceled, toOrder: order.number, by: .shopper("local:jane"), at: settledAt, expecting: .paid)
        }
        let outcomes = await [shipping, canceling]
        let made = outcomes.compactMap { try? $0.get() }
        #expect(made.count == 1, "\(outcomes)")
        let winner = try #require(made.first).status
        #expect(outcomes.contains { $0 == .failure(.changed(now: winner)) }, "the other is told the order changed: \(outcomes)")
        let events = try await fixture.orders.events(orderNumber: order.number)
        #expect(events.count == 3 && events.filter { $0.change == .canceled || $0.change == .shipped(Self.parcel) }.count == 1)
    }
}
