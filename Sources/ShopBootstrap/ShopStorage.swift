import Foundation
import ShopModels
import ShopPictures
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite

/// Every repository the shop keeps, in one database: SQLite in the data directory (the default), or the PostgreSQL
/// every front end shares. Each repository takes the shop's currency from its catalog.
public struct ShopStorage: Sendable {
    public var catalog: any CatalogRepository
    public var orders: any OrderRepository & RefundRepository & OrderQueue & OrderExports
    public var stock: any StockRepository
    public var carts: any CartRepository
    public var wallets: any WalletRepository
    public var profiles: any AccountProfileRepository
    public var identities: any IdentityDirectory
    public var ledger: any ChargeLedger
    /// The messages the orders' changes wrote for their shoppers.
    public var outbox: any MailOutbox
    /// The payment provider's webhook events: the ones waiting, and the ones handled.
    public var providerEvents: any ProviderEvents
    public var references: any ProviderReferenceRepository
    /// The HTTP API's personal access tokens.
    public var tokens: any APITokenRepository
    /// The HTTP API's idempotency keys.
    public var idempotency: any IdempotencyRepository
    /// The merchant's edits to the catalog.
    public var catalogEditor: any CatalogEditing
    /// The customers' accounts and the ways in that reach them.
    public var accounts: any AccountDirectory
    /// The codes sent by email, as keyed hashes.
    public var signInCodes: any SignInCodeRepository
    /// The accounts' logins (browser cookies, terminals), as hashes.
    public var logins: any LoginRepository
    /// The states of sign-ins sent to OpenID Connect providers, as hashes.
    public var openIDStates: any OpenIDStateRepository
    /// The accounts the operator named merchants.
    public var admins: any AccountAdmins
    /// Sign-ins a terminal started with a provider and a browser finishes.
    public var terminalSignIns: any TerminalSignIns
    /// How the process that finished such a sign-in wakes the terminal waiting on it.
    public var wakeups: any SignInWakeups
    /// The discount codes and the uses orders hold.
    public var discounts: any DiscountCodes
    /// The subscriptions and their histories.
    public var subscriptions: any SubscriptionRepository & SubscriptionMailbox
    /// Where the shop's clock offset is kept, and the clock read from it when the storage opened.
    public var clockStore: any ShopClockRepository
    /// Customers by email, name, order or key, and what each spent.
    public var customers: any CustomerSearch & CustomerNotes
    /// The products' pictures, by digest.
    public var pictures: any PictureRepository & PictureStoring
    /// The pictures drawn in cells, decoded once for every session of the process.
    public var pictureMosaics: any PictureMosaics
    public var clock = ShopClock()
    /// Where it is, for the log: the file, or the URL without its password.
    public var place: String
    /// True when this start imported the catalog file into SQLite.
    public var didImport: Bool
    /// What the operator should hear about the files; for the log.
    public var warnings: [String]
    /// The PostgreSQL client, when the shop is on PostgreSQL: `serve` watches it to log outages.
    public var postgres: PostgresDatabase?
    /// The SQLite database, when the shop is on SQLite: `/readyz` reads its schema.
    public var sqlite: SQLiteDatabase? = nil

    /// The accounts' ways in and sessions, as the account screen reads and removes them.
    public var waysIn: WaysInAccess { WaysInAccess(directory: accounts, logins: logins) }

    /// The shop's currency, as its catalog names it.
    public var currency: Currency { catalog.shop.currency }

    /// Closes the database's connections: PostgreSQL's client; SQLite's file closes with the process.
    public func close() {
        postgres?.close()
    }

    /// The repositories over a SQLite database and the catalog in it.
    public static func sqlite(_ database: SQLiteDatabase, catalog: SQLCatalogRepository) -> ShopStorage {
        var storage = shared(
            database, catalog: catalog, catalogEditor: SQLCatalogEditor(database: database, shop: catalog.shop),
            wakeups: FileSignInWakeups(besideDatabase: database.path), place: database.path)
        storage.didImport = catalog.didImport
        storage.warnings = database.warnings
        storage.sqlite = database
        return storage
    }

    /// The repositories over a PostgreSQL database and the catalog in it.
    public static func postgres(_ database: PostgresDatabase, catalog: SQLCatalogRepository) -> ShopStorage {
        var storage = shared(
            database, catalog: catalog, catalogEditor: SQLCatalogEditor(database: database, shop: catalog.shop),
            wakeups: PostgresSignInWakeups(database: database), place: database.location.description)
        storage.postgres = database
        return storage
    }

    /// Every repository written once for both databases, over `database`, beside the catalog and what else is each one's own.
    private static func shared(
        _ database: any SQLDatabase, catalog: any CatalogRepository, catalogEditor: any CatalogEditing, wakeups: any SignInWakeups, place: String
    ) -> ShopStorage {
        ShopStorage(
            catalog: catalog, orders: SQLOrderRepository(database: database, currency: catalog.shop.currency),
            stock: SQLStockRepository(database: database), carts: SQLCartRepository(database: database),
            wallets: SQLWalletRepository(database: database), profiles: SQLAccountProfileRepository(database: database),
            identities: SQLIdentityDirectory(database: database), ledger: SQLChargeLedger(database: database), outbox: SQLOutbox(database: database),
            providerEvents: SQLProviderEvents(database: database), references: SQLProviderReferences(database: database),
            tokens: SQLAPITokenRepository(database: database), idempotency: SQLIdempotencyRepository(database: database),
            catalogEditor: catalogEditor, accounts: SQLAccountDirectory(database: database), signInCodes: SQLSignInCodes(database: database),
            logins: SQLLogins(database: database), openIDStates: SQLOpenIDStates(database: database), admins: SQLAccountAdmins(database: database),
            terminalSignIns: SQLTerminalSignIns(database: database), wakeups: wakeups, discounts: SQLDiscountCodes(database: database),
            subscriptions: SQLSubscriptions(database: database), clockStore: SQLShopClock(database: database),
            customers: SQLCustomerSearch(database: database, currency: catalog.shop.currency),
            pictures: SQLPictureRepository(database: database),
            pictureMosaics: SharedPictureMosaics(repository: SQLPictureRepository(database: database)), place: place, didImport: false,
            warnings: [], postgres: nil)
    }
}
