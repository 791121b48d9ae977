import Foundation
import GRDB
import ShopModels
import ShopPorts
import StorageSQLite
import StorefrontTesting
import Testing

/// Each order's append-only history on every order repository: written with the change it records, the status
/// rebuilt from it, never updated or deleted, and made for orders placed before it existed.
@Suite("Order history")
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
        #expect(try await orders.events(orderNumber: declined.number) == [
            placed, OrderEvent(at: settledAt, actor: .provider, change: .declined(reason: "Your card was declined.")),
        ])
        for order in [paid, declined] {
            let stored = try #require(try await orders.order(number: order.number))
            #expect(try OrderLifecycle.rebuilt(from: try await orders.events(orderNumber: order.number)).status == stored.status)
        }
    }

    @Test func sqliteRefusesToChangeOrDeleteAnEvent() async throws {
        let fixture = try SQLiteFixture()
        let order = try await fixture.orders.begin(Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        for statement in ["UPDATE order_event SET kind = 'charged'", "DELETE FROM order_event"] {
            await #expect(throws: DatabaseError.self, "\(statement)") {
                try await fixture.database.pool.write { db in try db.execute(sql: statement) }
            }
        }
        #expect(try await fixture.orders.events(orderNumber: order.number).count == 1)
    }

    @Test func postgresRefusesToChangeOrDeleteAnEvent() async throws {
        let fixture = try await PostgresStockFixture()
        let order = try await fixture.orders.begin(Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
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
        let orders = SQLiteOrderRepository(database: upgraded, currency: .usd)
        let placed = OrderEvent(at: placedAt, actor: .shopper("local:jane"), change: .placed(total: draft.totals.total))
        #expect(try await orders.events(orderNumber: paid.number) == [placed, OrderEvent(at: placedAt, actor: .provider, change: .charged)])
        #expect(try await orders.events(orderNumber: open.number) == [placed])
        #expect(try OrderLifecycle.rebuilt(from: try await orders.events(orderNumber: paid.number)).status == .paid)
    }
}
