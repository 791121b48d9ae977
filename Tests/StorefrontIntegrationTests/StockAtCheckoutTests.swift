import Foundation
import GRDB
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

@MainActor
// No books check: its purchases are charged by a processor of the test's, not the shop's sandbox ledger.
@Suite("Stock at checkout", .ownThreads(checkingTheBooks: false))
struct StockAtCheckoutTests {
    @Test func someoneElseBuysFirstAndTheCartIsKept() async throws {
        let fixture = try SQLiteFixture()
        let stack = fixture.stack()
        let driver = await ScriptedDriver(stack: stack)
        // Quiet Hours Headphones (2 in stock) into the cart, twice.
        try await driver.press("/,h,e,a,d,p,h,o,n,e,s,enter,a,a,c")
        #expect(driver.state.cart.lines.first?.quantity == 2)
        // Another buyer takes one before this shopper pays.
        _ = try await fixture.orders.begin(
            Drafts.draft("headphones-quiet", name: "Quiet Hours Headphones", quantity: 1), idempotencyKey: "other", tokenID: "t",
            paymentDescription: "Visa", placedAt: Date())
        try await driver.press("enter,p,enter")
        #expect(driver.state.paymentSheet?.status == "Only 1 of Quiet Hours Headphones left. You were not charged; lower the quantity and pay again.")
        #expect(driver.state.cart.lines.first?.quantity == 2, "the cart is kept")
        #expect(await stack.processor.allCharges.isEmpty, "nothing was charged")
        #expect(try fixture.stock("headphones-quiet") == (1, 1, 0), "only the other buyer's unit is reserved")
    }

    @Test func aPaidOrderIsInTheDatabaseWithItsStock() async throws {
        let fixture = try SQLiteFixture()
        let stack = fixture.stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("/,h,e,a,d,p,h,o,n,e,s,enter,a,c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        let order = try await #require(try fixture.orders.orders(customer: nil, offset: 0, limit: 1).first)
        #expect(order.number == driver.state.confirmation?.orderNumber)
        #expect(order.status == .paid)
        #expect(try fixture.stock("headphones-quiet") == (1, 0, 1))
    }

    @Test func aDeclinedCardReleasesTheStock() async throws {
        let fixture = try SQLiteFixture()
        let stack = fixture.stack()
        let driver = await ScriptedDriver(stack: stack)
        // The third card declines.
        try await driver.press("/,h,e,a,d,p,h,o,n,e,s,enter,a,c,enter,enter,down,down,enter,p,enter")
        #expect(driver.state.paymentSheet?.status == "Your card was declined.")
        #expect(try fixture.stock("headphones-quiet") == (2, 0, 0))
        #expect(try await fixture.orders.count(customer: nil) == 0)
    }
}

enum ChargeLedgerKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, sqlite, postgres
    var testDescription: String { rawValue }
    func make() async throws -> any ChargeLedger {
        switch self {
        case .inMemory: InMemoryChargeLedger()
        case .sqlite: SQLChargeLedger(database: try SQLiteDatabase.open(directory: TemporaryDirectory.make()))
        case .postgres: await SQLChargeLedger(database: try PostgresFixture().database)
        }
    }
}

// No books check: it writes charges under keys no order has.
@Suite("ChargeLedger contract", .ownThreads(checkingTheBooks: false))
struct ChargeLedgerContractTests {
    @Test(arguments: ChargeLedgerKind.allCases)
    func aKeyKeepsItsFirstCharge(kind: ChargeLedgerKind) async throws {
        let ledger = try await kind.make()
        let first = LedgerCharge(key: "k", tokenID: "tok_1", amount: Money(minorUnits: 6928, currency: .usd), outcome: .succeeded)
        #expect(try await ledger.charge(forKey: "k") == nil)
        #expect(try await ledger.record(first) == first)
        let second = LedgerCharge(key: "k", tokenID: "tok_2", amount: Money(minorUnits: 1, currency: .usd), outcome: .declined(.generic))
        #expect(try await ledger.record(second) == first)
        #expect(try await ledger.charge(forKey: "k") == first)
        let declined = LedgerCharge(key: "d", tokenID: "tok_3", amount: Money(minorUnits: 5, currency: .usd), outcome: .declined(.insufficientFunds))
        #expect(try await ledger.record(declined) == declined)
        #expect(try await ledger.charge(forKey: "d")?.outcome == .declined(.insufficientFunds))
    }
}

@Suite("Reconciliation at start", .ownThreads)
struct ReconciliationTests {
    @Test func openOrdersAreSettledFromTheProvidersRecords() async throws {
        let fixture = try SQLiteFixture()
        let ledger = SQLChargeLedger(database: fixture.database)
        let longAgo = Date(timeIntervalSince1970: 1_700_000_000)
        let charged = try await fixture.orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1), idempotencyKey: "charged", tokenID: "t1", paymentDescription: "Visa",
            placedAt: longAgo)
        let never = try await fixture.orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1), idempotencyKey: "never", tokenID: "t2", paymentDescription: "Visa",
            placedAt: longAgo)
        let declined = try await fixture.orders.begin(
            Drafts.draft("headphones-quiet", name: "Quiet Hours Headphones", quantity: 2), idempotencyKey: "declined", tokenID: "t3",
            paymentDescription: "Visa", placedAt: longAgo)
        let young = try await fixture.orders.begin(
            Drafts.draft("rubber-duck", name: "Debugging Duck", quantity: 1), idempotencyKey: "young", tokenID: "t4", paymentDescription: "Visa",
            placedAt: Fixtures.fixedDates.now())
        _ = try await ledger.record(LedgerCharge(key: "charged", tokenID: "t1", amount: charged.totals.total, outcome: .succeeded))
        _ = try await ledger.record(LedgerCharge(key: "declined", tokenID: "t3", amount: declined.totals.total, outcome: .declined(.generic)))

        let backend = LiveMerchantBackend(processor: SandboxProcessor(ledger: ledger), orders: fixture.orders, dates: Fixtures.fixedDates)
        let settled = try await backend.reconcile().settled
        #expect(settled.map(\.number) == [charged.number, never.number, declined.number])
        #expect(try await fixture.orders.order(number: charged.number)?.status == .paid)
        #expect(try await fixture.orders.order(number: never.number)?.status == .voided)
        #expect(try await fixture.orders.order(number: declined.number)?.status == .declined)
        #expect(try await fixture.orders.order(number: young.number)?.status == .charging, "a younger order may be another process's, mid-charge")
        #expect(try fixture.stock("hoodie-root") == (2, 0, 1))
        #expect(try fixture.stock("headphones-quiet") == (2, 0, 0))
        #expect(try await backend.reconcile().settled.isEmpty, "settling twice does nothing")
    }

    @Test func aRetryAfterARestartChargesOnce() async throws {
        let fixture = try SQLiteFixture()
        let ledger = SQLChargeLedger(database: fixture.database)
        let processor = SandboxProcessor(ledger: ledger)
        await processor.inject(.timeoutAfterCharging)
        let first = LiveMerchantBackend(processor: processor, orders: fixture.orders, dates: Fixtures.fixedDates)
        let draft = Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1)
        let token = PaymentToken(id: "tok_sandbox_1_card_ok_visa_4242", paymentMethod: Fixtures.visa)
        await #expect(throws: MerchantBackendError.timedOut) {
            try await first.processPayment(token: token, order: draft, idempotencyKey: "same")
        }
        // A new process: new processor and backend over the same database, the same key.
        let second = LiveMerchantBackend(
            processor: SandboxProcessor(ledger: SQLChargeLedger(database: fixture.database)), orders: fixture.orders, dates: Fixtures.fixedDates)
        let confirmation = try await second.processPayment(token: token, order: draft, idempotencyKey: "same")
        #expect(try await fixture.orders.order(number: confirmation.orderNumber)?.status == .paid)
        let charges = try await fixture.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sandbox_charge") }
        #expect(charges == 1)
        #expect(try fixture.stock("hoodie-root") == (2, 0, 1))
    }
}

@MainActor
// No books check: its purchase is charged by a processor of the test's, not the shop's sandbox ledger.
@Suite("Carts that survive", .ownThreads(checkingTheBooks: false))
struct CartPersistenceTests {
    @Test func theCartComesBackAfterARestartAndEmptiesAfterPaying() async throws {
        let fixture = try SQLiteFixture()
        let carts = SQLCartRepository(database: fixture.database)
        var dependencies = fixture.stack(guestID: "local:jane").dependencies
        dependencies.carts = carts
        let first = await ScriptedDriver(dependencies: dependencies)
        try await first.press("a,down,a,a")
        #expect(first.state.cartBadge.itemCount == 3)

        // Quit and start again: the same cart.
        let second = await ScriptedDriver(dependencies: dependencies)
        #expect(second.state.cartBadge.itemCount == 3)
        #expect(second.state.cart.lines.map(\.quantity) == [1, 2])
        try await second.press("c,enter,p,enter")
        #expect(second.state.screen == .confirmation)
        #expect(await ScriptedDriver(dependencies: dependencies).state.cartBadge.itemCount == 0, "a paid cart is emptied for good")
        // Another customer has their own cart.
        var other = dependencies
        other.accounts.guestID = "local:sam"
        #expect(await ScriptedDriver(dependencies: other).state.cartBadge.itemCount == 0)
    }
}

@MainActor
@Suite("A disk that will not take writes", .ownThreads)
struct UnwritableDiskTests {
    @Test func aReadOnlyDatabaseIsToldToTheShopperAndNothingIsReportedDone() async throws {
        let fixture = try SQLiteFixture()
        let stack = fixture.stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("enter,a,c,enter")
        // From now on every write fails with SQLITE_READONLY.
        try await fixture.database.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = ON") }
        try await driver.press("p,enter")
        #expect(driver.state.screen == .paymentSheet, "no Thank you")
        let status = try #require(driver.state.paymentSheet?.status).description
        #expect(status.hasPrefix("The shop could not take the order ("))
        #expect(status.contains("is read-only; the shop cannot save orders there."))
        #expect(driver.state.cartBadge.itemCount == 1, "the cart is kept")
        #expect(await stack.processor.allCharges.isEmpty, "nothing was charged")
    }
}

@Suite("Storage errors in words", .ownThreads)
struct StorageErrorWordingTests {
    @Test func sqliteResultCodesBecomeErrorsThatNameTheFile() {
        let path = "/data/storefront.sqlite"
        #expect(SQLiteDatabaseError.from(DatabaseError(resultCode: .SQLITE_FULL), path: path) == .diskFull(path: path))
        #expect(SQLiteDatabaseError.from(DatabaseError(resultCode: .SQLITE_READONLY), path: path) == .readOnly(path: path))
        guard case .notADatabase(path, _) = SQLiteDatabaseError.from(DatabaseError(resultCode: .SQLITE_NOTADB), path: path) else {
            Issue.record("NOTADB is a damaged file")
            return
        }
        #expect(
            SQLiteDatabaseError.diskFull(path: path).description
                == "the disk holding /data/storefront.sqlite is full; free some space there (the shop cannot save carts or orders until then).")
    }
}
