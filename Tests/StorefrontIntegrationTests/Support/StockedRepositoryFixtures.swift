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

/// An order repository over a database with the bundled catalog's stock, as a shop runs it.
protocol StockedOrderRepository {
    var orders: any LiveBackOffice.Orders { get }
    var catalog: any CatalogRepository { get }
    /// The provider events handled, in the same database.
    var providerEvents: any ProviderEvents { get }
    /// The shoppers' messages, in the same database.
    var outbox: any MailOutbox { get }
    /// on_hand, reserved, sold for a product.
    func stock(_ id: String) throws -> (onHand: Int, reserved: Int, sold: Int)
    /// Runs `sql` on the database, as another tool would change it under the shop.
    func execute(_ sql: String) throws
    /// Another order repository on the same database, with its own connections (another process's, another host's).
    func anotherBuyer() throws -> any LiveBackOffice.Orders
}

extension SQLiteFixture: StockedOrderRepository {
    var orders: any LiveBackOffice.Orders { sqliteOrders }
    var catalog: any CatalogRepository { Fixtures.inHomeMarket(sqliteCatalog) }
    var providerEvents: any ProviderEvents { SQLProviderEvents(database: database) }
    var outbox: any MailOutbox { SQLOutbox(database: database) }
    func anotherBuyer() throws -> any LiveBackOffice.Orders {
        SQLOrderRepository(database: try SQLiteDatabase.open(directory: directory), currency: .usd)
    }
}

/// PostgreSQL with the bundled catalog imported.
struct PostgresStockFixture: StockedOrderRepository {
    let server: PostgresFixture
    let postgresCatalog: SQLCatalogRepository
    let postgresOrders: SQLOrderRepository

    init() async throws {
        server = try await PostgresFixture()
        postgresCatalog = try await server.importing(try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"))
        postgresOrders = SQLOrderRepository(database: server.database, currency: .usd)
    }

    var orders: any LiveBackOffice.Orders { postgresOrders }
    var catalog: any CatalogRepository { Fixtures.inHomeMarket(postgresCatalog) }
    var providerEvents: any ProviderEvents { SQLProviderEvents(database: server.database) }
    var outbox: any MailOutbox { SQLOutbox(database: server.database) }
    func stock(_ id: String) throws -> (onHand: Int, reserved: Int, sold: Int) { try server.stock(id) }
    func execute(_ sql: String) throws { _ = try server.rows(sql) }
    func anotherBuyer() throws -> any LiveBackOffice.Orders { SQLOrderRepository(database: try server.anotherClient(), currency: .usd) }
}

enum StockedRepositoryKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
    func make() async throws -> any StockedOrderRepository {
        switch self {
        case .sqlite: try SQLiteFixture()
        case .postgres: try await PostgresStockFixture()
        }
    }
}
