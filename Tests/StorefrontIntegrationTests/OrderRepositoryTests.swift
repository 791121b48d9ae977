import Foundation
import GRDB
import LiveObjects
import ShopApplication
import ShopBundledCatalog
import ShopModels
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// A fresh order repository of one kind, over the bundled catalog's stock: SQLite in memory (the unit tests' storage), in a file, and PostgreSQL.
enum OrderRepositoryKind: String, CaseIterable, CustomTestStringConvertible {
    case sqliteInMemory, sqlite, postgres
    var testDescription: String { rawValue }

    func make() async throws -> any LiveBackOffice.Orders {
        switch self {
        case .sqliteInMemory: return SQLOrderRepository(database: Fixtures.bundledShop(), currency: .usd)
        case .sqlite: return try SQLiteFixture().orders
        case .postgres: return try await PostgresStockFixture().orders
        }
    }
}

/// A database in a temporary directory with the bundled catalog imported.
struct SQLiteFixture {
    let directory = TemporaryDirectory.make()
    let database: SQLiteDatabase
    let sqliteCatalog: SQLCatalogRepository
    let sqliteOrders: SQLOrderRepository

    init() throws {
        database = try SQLiteDatabase.open(directory: directory)
        sqliteCatalog = try Fixtures.importBundledCatalog(into: database)
        sqliteOrders = SQLOrderRepository(database: database, currency: .usd)
    }

    /// A sandbox stack over this database's catalog whose backend keeps orders here.
    func stack(guestID: String = "guest") -> TestStack {
        var stack = TestStack(catalog: catalog, guestID: guestID)
        stack.merchantBackend = LiveMerchantBackend(processor: stack.processor, orders: orders, dates: Fixtures.fixedDates)
        return stack
    }

    /// on_hand, reserved, sold for a product.
    func stock(_ id: String) throws -> (onHand: Int, reserved: Int, sold: Int) {
        try database.pool.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM stock WHERE product_id = ?", arguments: [id]))
            return (row["on_hand"], row["reserved"], row["sold"])
        }
    }

    func execute(_ sql: String) throws { try database.pool.write { db in try db.execute(sql: sql) } }
}

enum Drafts {
    static func draft(_ id: String, name: String, quantity: Int, unitPrice: Int64 = 8_900) -> OrderDraft {
        let line = CartLine(productID: ProductID(id), name: name, unitPrice: Money(minorUnits: unitPrice, currency: .usd), quantity: quantity)
        let totals = Cart(currency: .usd, lines: [line]).totals(shipping: Fixtures.standardShipping, tax: TaxPolicy(basisPoints: 825))
        return OrderDraft(
            lines: [line], totals: totals, shippingMethod: Fixtures.standardShipping, shippingContact: Fixtures.jane, customerID: "local:jane")
    }
}

@Suite("OrderRepository contract", .ownThreads)
struct OrderRepositoryContractTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)

    @Test(arguments: OrderRepositoryKind.allCases)
    func theSameKeyReturnsTheSameOrder(kind: OrderRepositoryKind) async throws {
        let orders = try await kind.make()
        let draft = Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1, unitPrice: 1_800)
        let first = try await orders.begin(draft, idempotencyKey: "key-1", tokenID: "tok", paymentDescription: "Visa ••4242", placedAt: placedAt)
        let again = try await orders.begin(draft, idempotencyKey: "key-1", tokenID: "tok", paymentDescription: "Visa ••4242", placedAt: placedAt)
        #expect(first.number == again.number)
        #expect(first.status == .charging)
        #expect(first.lines == draft.lines, "lines are frozen at purchase time")
        #expect(first.totals == draft.totals)
        #expect(first.shippingMethodID == Fixtures.standardShipping.id, "the shipping method's id is kept beside its label")
        #expect(try await orders.order(number: first.number)?.shippingMethodID == Fixtures.standardShipping.id, "and read back")
        #expect(try await orders.order(number: first.number)?.isRenewal == false, "a purchase on the sheet is no renewal")
        var renewing = Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1, unitPrice: 1_800)
        renewing.offSession = true
        let renewal = try await orders.begin(renewing, idempotencyKey: "key-2", tokenID: "tok", paymentDescription: "Visa ••4242", placedAt: placedAt)
        #expect(renewal.isRenewal, "the order placed as the worker places a renewal says it is one")
        #expect(try await orders.order(number: renewal.number)?.isRenewal == true, "and so does the order read back")
    }

    @Test(arguments: OrderRepositoryKind.allCases)
    func paidOrdersAreListedNewestFirstAndDeclinedOnesAreNot(kind: OrderRepositoryKind) async throws {
        let orders = try await kind.make()
        let a = try await orders.begin(
            Drafts.draft("mug-stdout", name: "stdout Mug", quantity: 1), idempotencyKey: "a", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        let b = try await orders.begin(
            Drafts.draft("rubber-duck", name: "Debugging Duck", quantity: 2), idempotencyKey: "b", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        let c = try await orders.begin(
            Drafts.draft("pen-fine", name: "Fine Liner Trio", quantity: 1), idempotencyKey: "c", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        try await orders.finish(orderNumber: a.number, status: .paid, failure: nil)
        try await orders.finish(orderNumber: b.number, status: .declined, failure: "Your card was declined.")
        try await orders.finish(orderNumber: c.number, status: .paid, failure: nil)
        #expect(try await orders.count(customer: nil) == 2)
        #expect(try await orders.orders(customer: nil, offset: 0, limit: 10).map(\.number) == [c.number, a.number])
        #expect(try await orders.order(number: b.number)?.status == .declined)
    }
}

@Suite("Orders and stock in a database", .ownThreads)
struct StockedOrderRepositoryContractTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)

    @Test(arguments: StockedRepositoryKind.allCases)
    func reservingThenPayingMovesStockToSold(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let order = try await fixture.orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 2), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        #expect(try fixture.stock("hoodie-root") == (1, 2, 0))
        try await fixture.orders.finish(orderNumber: order.number, status: .paid, failure: nil)
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2))
        // Finishing twice changes nothing.
        try await fixture.orders.finish(orderNumber: order.number, status: .paid, failure: nil)
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2))
        #expect(try await fixture.catalog.product(id: "hoodie-root")?.stock == 1)
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func ordersAreListedWithTheirOwnLinesNewestFirst(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        for (index, (id, quantity)) in [("hoodie-root", 1), ("keycap-dusk", 2), ("hoodie-root", 1)].enumerated() {
            let order = try await fixture.orders.begin(
                Drafts.draft(id, name: id, quantity: quantity), idempotencyKey: "k\(index)", tokenID: "t", paymentDescription: "Visa",
                placedAt: placedAt)
            try await fixture.orders.finish(orderNumber: order.number, status: .paid, failure: nil)
        }
        let listed = try await fixture.orders.orders(customer: "local:jane", offset: 0, limit: 10)
        #expect(listed.map(\.number) == ["SF-000003", "SF-000002", "SF-000001"])
        #expect(listed.map { $0.lines.map(\.quantity) } == [[1], [2], [1]])
        #expect(listed.map { $0.lines.map(\.productID.rawValue) } == [["hoodie-root"], ["keycap-dusk"], ["hoodie-root"]])
        #expect(try await fixture.orders.count(customer: "local:jane") == 3)
        #expect(try await fixture.orders.count(customer: "local:john") == 0)
        #expect(try await fixture.orders.orders(customer: nil, offset: 1, limit: 1).map(\.number) == ["SF-000002"])
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func aDeclineReleasesTheStock(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let order = try await fixture.orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 3), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        #expect(try fixture.stock("hoodie-root") == (0, 3, 0))
        #expect(try await fixture.orders.unsettledOrders().map(\.number) == [order.number])
        try await fixture.orders.finish(orderNumber: order.number, status: .declined, failure: "Your card was declined.")
        #expect(try fixture.stock("hoodie-root") == (3, 0, 0))
        #expect(try await fixture.orders.unsettledOrders().isEmpty)
        #expect(try await fixture.orders.order(number: order.number)?.status == .declined)
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func moreThanTheStockIsSoldOutAndReservesNothing(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        await #expect(throws: OrderRepositoryError.soldOut(productName: "root Hoodie", available: 3)) {
            try await fixture.orders.begin(
                Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 4), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
                placedAt: placedAt)
        }
        #expect(try fixture.stock("hoodie-root") == (3, 0, 0))
        #expect(try await fixture.orders.order(number: "SF-000001") == nil)
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func twoBuyersRaceForTheLastUnitAndExactlyOneWins(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        // Leave one hoodie.
        _ = try await fixture.orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 2), idempotencyKey: "earlier", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        // Two buyers with their own connections to the same database.
        let buyers = try (0..<2).map { _ in try fixture.anotherBuyer() }
        let outcomes = Outcomes()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<2 {
                group.addTask {
                    do {
                        _ = try await buyers[index].begin(
                            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1), idempotencyKey: "buyer-\(index)", tokenID: "t",
                            paymentDescription: "Visa", placedAt: placedAt)
                        outcomes.add("won")
                    } catch {
                        outcomes.add("\(error)")
                    }
                }
            }
        }
        #expect(outcomes.sorted == ["soldOut(productName: \"root Hoodie\", available: 0)", "won"])
        #expect(try fixture.stock("hoodie-root") == (0, 3, 0))
    }

    @Test(arguments: StockedRepositoryKind.allCases)
    func twoBuyersStartingOneOrderUnderOneKeyGetTheSameOrder(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let buyers = try (0..<2).map { _ in try fixture.anotherBuyer() }
        let numbers = Outcomes()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<2 {
                group.addTask {
                    do {
                        numbers.add(
                            try await buyers[index].begin(
                                Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1), idempotencyKey: "same", tokenID: "t",
                                paymentDescription: "Visa", placedAt: placedAt
                            ).number)
                    } catch {
                        numbers.add("\(error)")
                    }
                }
            }
        }
        #expect(numbers.sorted == ["SF-000001", "SF-000001"])
        #expect(try fixture.stock("hoodie-root") == (2, 1, 0), "one unit reserved, not two")
    }
}

/// Collects results from concurrent work.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    func add(_ value: String) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }
    var sorted: [String] {
        lock.lock()
        defer { lock.unlock() }
        return values.sorted()
    }
}

extension Outcomes: LiveObject {}
