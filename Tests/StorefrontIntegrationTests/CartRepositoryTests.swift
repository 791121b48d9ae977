import Foundation
import GRDB
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

enum CartRepositoryKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, sqlite, postgres
    var testDescription: String { rawValue }
    func make() async throws -> any CartRepository {
        switch self {
        case .inMemory: InMemoryCartRepository()
        case .sqlite: SQLCartRepository(database: try SQLiteDatabase.open(directory: TemporaryDirectory.make()))
        case .postgres: await SQLCartRepository(database: try PostgresFixture().database)
        }
    }
}

@Suite("CartRepository contract", .ownThreads)
struct CartRepositoryContractTests {
    @Test(arguments: CartRepositoryKind.allCases)
    func eachCustomerHasTheirOwnCartAndASaveReplacesIt(kind: CartRepositoryKind) async throws {
        let orders = try await kind.make()
        let mug = CartLine(productID: "mug-stdout", name: "stdout Mug", unitPrice: Money(minorUnits: 1_800, currency: .usd), quantity: 2)
        let duck = CartLine(productID: "rubber-duck", name: "Debugging Duck", unitPrice: Money(minorUnits: 700, currency: .usd), quantity: 1)
        #expect(try await orders.lines(forCustomer: "local:jane").isEmpty)
        try await orders.save([mug, duck], forCustomer: "local:jane")
        try await orders.save([duck], forCustomer: "SHA256:abc")
        #expect(try await orders.lines(forCustomer: "local:jane") == [mug, duck])
        #expect(try await orders.lines(forCustomer: "SHA256:abc") == [duck])
        try await orders.save([duck], forCustomer: "local:jane")
        #expect(try await orders.lines(forCustomer: "local:jane") == [duck])
        try await orders.save([], forCustomer: "local:jane")
        #expect(try await orders.lines(forCustomer: "local:jane").isEmpty)
    }

    /// More lines than one statement may bind (70,000 values, over PostgreSQL's 65,535): written in several
    /// statements, in order, and a shorter cart after it leaves none behind.
    @Test(arguments: CartRepositoryKind.allCases)
    func aCartOfThousandsOfLinesIsKeptWholeAndReplacedWhole(kind: CartRepositoryKind) async throws {
        let carts = try await kind.make()
        let lines = (0..<7_000).map { index in
            CartLine(
                productID: ProductID("p-\(index)"), name: "Product \(index)", unitPrice: Money(minorUnits: 100 + Int64(index), currency: .usd),
                quantity: 1)
        }
        try await carts.save(lines, forCustomer: "script")
        #expect(try await carts.lines(forCustomer: "script") == lines)
        try await carts.save(Array(lines.prefix(3)), forCustomer: "script")
        #expect(try await carts.lines(forCustomer: "script") == Array(lines.prefix(3)))
    }
}

@Suite("Idempotent declines", .ownThreads)
struct IdempotentDeclineTests {
    @Test func aRetryOfADeclinedChargeGivesTheFirstReason() async throws {
        let fixture = try SQLiteFixture()
        let backend = LiveMerchantBackend(
            processor: SandboxProcessor(ledger: SQLChargeLedger(database: fixture.database)), orders: fixture.orders, dates: Fixtures.fixedDates)
        let token = PaymentToken(id: "tok_sandbox_1_card_insufficientFunds_visa_9995", paymentMethod: Fixtures.visa)
        let draft = Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1)
        for _ in 0..<2 {
            await #expect(throws: MerchantBackendError.declined(.insufficientFunds)) {
                try await backend.processPayment(token: token, order: draft, idempotencyKey: "same")
            }
        }
        #expect(try fixture.stock("hoodie-root") == (3, 0, 0))
    }
}
