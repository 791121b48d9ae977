import Crypto
import Foundation
import LiveObjects
import ShopApplication
import ShopBootstrap
import ShopBundledCatalog
import ShopIdentity
import ShopLanguages
import ShopModels
import ShopPorts
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontCore
import Synchronization

/// The shop as a session builds it (`ShopStorage.storefrontDependencies`), on its storage over an in-memory SQLite
/// database, with deterministic ids and dates and every part reachable for assertions. Tests swap a part for a double.
public struct TestStack: Sendable {
    /// The shop's storage as the shop opens it (`ShopStorage.sqlite`): the bundled catalog imported, with its stock.
    public var storage: ShopStorage
    /// The catalog the shop reads: the storage's, unless a test swaps in another.
    public var catalog: any CatalogRepository
    public var processor: SandboxProcessor
    /// Every customer's cards and addresses; the guest starts with the sandbox test cards and contacts.
    public var wallets: InMemoryWalletRepository
    public var walletOwner: WalletOwner
    public var profiles: InMemoryAccountProfileRepository
    public var carts: InMemoryCartRepository?
    /// Sandbox ID over the stack's database, its code always "123456", at the fixed date.
    public var identity: SandboxIdentityProvider
    public var credentials: InMemoryCredentialRepository
    /// The sign-in the view model offers; tests swap in a factory spy and a provider stub.
    public var signIn: SignInServices?
    /// Who the launch check kept signed in.
    public var signedIn: SignedInAccount?
    public var launchNotice: Localized?
    /// The guest's customer id.
    public var guestID: String
    public var flags: StaticFeatureFlags
    public var ids: IDGenerator
    public var paymentAuthorization: PaymentAuthorization
    public var paymentProvider: any PaymentProvider
    public var merchantBackend: any MerchantBackend
    public var qrCodes: any QRCodeMaking = QRCodeStub()
    /// What effects wait on between tries: the one given to `init`.
    public var clock: any Clock<Duration>
    /// Orders' changes after payment; fails the test when used unless set (`liveBackOffice` works on this stack).
    public var backOffice: any BackOffice = UnimplementedBackOffice()
    /// The account screen's API tokens; nil: the shop offers none.
    public var apiTokens: APITokenAccess?
    /// The account screen's keys and sessions; nil unless a test sets it.
    public var waysIn: WaysInAccess?
    /// The shop, or the merchant console (which edits the storage's catalog).
    public var console: Console = .shop
    /// The language the session opens in.
    public var language = Language.english
    /// The shopper's country as their locale names it: the market the session opens in, and how it writes money.
    public var region: String?

    public init(
        catalog: (any CatalogRepository)? = nil,
        guestID: String = "guest",
        guestWallet: WalletContents = (try? SandboxWallet().contents()) ?? WalletContents(),
        flags: StaticFeatureFlags = .defaults,
        clock: any Clock<Duration> = ContinuousClock(),
        latency: Duration = .zero
    ) {
        let database = Fixtures.bundledShop()
        // Priced as the shop prices it: the bundled catalog's home market, at the bundled rates.
        storage =
            (try? ShopConfiguration().pricingMarkets(of: .sqlite(database, catalog: Fixtures.bundledCatalog(in: database))))
            ?? .sqlite(database, catalog: Fixtures.bundledCatalog(in: database))
        processor = SandboxProcessor(clock: clock, latency: latency, ids: IDGenerator.sequential(prefix: "vault"))
        self.catalog = catalog ?? storage.catalog
        self.guestID = guestID
        wallets = InMemoryWalletRepository([guestID: guestWallet])
        walletOwner = WalletOwner(guestID)
        profiles = InMemoryAccountProfileRepository()
        credentials = InMemoryCredentialRepository()
        identity = SandboxIdentityProvider(
            signingKey: Fixtures.signingKey, directory: storage.identities, dates: Fixtures.fixedDates, ids: IDGenerator.sequential(prefix: "sbx"),
            makeCode: { "123456" })
        signIn = SignInServices(makeController: identity.controllerFactory, provider: identity, auth: AuthManager(credentials: credentials))
        self.flags = flags
        ids = IDGenerator.sequential(prefix: "id")
        paymentAuthorization = .onTheSheet(
            wallet: StoredWallet(repository: wallets, owner: walletOwner), methodData: SandboxProcessor.paymentData(for:))
        paymentProvider = SandboxPaymentProvider(processor: processor)
        merchantBackend = storage.merchantBackend(.sandbox(processor), environment: [:], dates: Fixtures.fixedDates)
        self.clock = clock
    }

    /// The stack over a shop whose catalog is `catalog`, imported into a new in-memory database as the shop imports a
    /// catalog file: its products, variants and stock, and the orders kept there.
    public static func selling(_ catalog: Catalog) throws -> TestStack {
        var stack = TestStack()
        let database = try SQLiteDatabase.inMemory()
        stack.storage = .sqlite(
            database,
            catalog: try SQLiteCatalogImport.open(
                database: database, catalogData: try Fixtures.catalogJSON(catalog), source: "test catalog",
                pictures: BundledPictures.catalogImport.resolving))
        stack.catalog = stack.storage.catalog
        stack.merchantBackend = stack.storage.merchantBackend(.sandbox(stack.processor), environment: [:], dates: Fixtures.fixedDates)
        return stack
    }

    /// The SQLite database the storage is in.
    public var database: SQLiteDatabase {
        guard let database = storage.sqlite else { preconditionFailure("a test stack's storage is SQLite's") }
        return database
    }

    /// The orders the shop keeps, in the storage.
    public var orders: any OrderRepository & RefundRepository & OrderQueue & OrderExports { storage.orders }

    public var dependencies: StorefrontDependencies {
        var storage = storage
        // A catalog a test opened itself is priced as the shop prices one: in its home market.
        storage.catalog = catalog
        storage = (try? ShopConfiguration().pricingMarkets(of: storage)) ?? storage
        var dependencies = storage.storefrontDependencies(
            payments: paymentProvider, paymentAuthorization: paymentAuthorization, backend: merchantBackend, backOffice: backOffice,
            accounts: accounts,
            carts: carts, featureFlags: flags, ids: ids, qrCodes: qrCodes, clock: clock, console: console, dates: Fixtures.fixedDates)
        dependencies.language = language
        dependencies.region = region
        dependencies.markets = (storage.catalog as? MarketCatalog)?.pricing
        return dependencies
    }

    /// The back office the shop runs on, over this stack's storage and sandbox processor, at the fixed date; refunds
    /// in flight are settled at once.
    public var liveBackOffice: LiveBackOffice {
        storage.backOffice(.sandbox(processor), environment: ["STOREFRONT_SETTLE_AFTER_SECONDS": "0"], dates: Fixtures.fixedDates)
    }

    public var accounts: AccountDependencies {
        AccountDependencies(
            wallets: wallets, walletOwner: walletOwner, profiles: profiles, signIn: signIn,
            signedIn: signedIn, launchNotice: launchNotice, guestID: guestID, dates: Fixtures.fixedDates, apiTokens: apiTokens,
            waysIn: waysIn
        )
    }
}

/// Shared test data.
public enum Fixtures {
    /// Imports the bundled catalog, with its pictures, into `database`, as the shop does when started without a catalog.
    public static func importBundledCatalog(into database: SQLiteDatabase) throws -> SQLCatalogRepository {
        try SQLiteCatalogImport.open(
            database: database, catalogData: Data(BundledCatalog.json.utf8), source: "bundled", pictures: BundledPictures.catalogImport.resolving)
    }

    /// Writes the bundled catalog's pictures into `folder`/pictures, so a catalog file written there from the bundled
    /// one finds them beside it.
    public static func writeBundledPictures(besideCatalogIn folder: URL) throws {
        let catalog = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled catalog")
        let files = Set(catalog.pictureReferences.map(\.file))
        try FileManager.default.createDirectory(at: folder.appending(path: "pictures"), withIntermediateDirectories: true)
        for file in files {
            guard let bytes = BundledPictures.bytes(of: file) else { continue }
            try Data(bytes).write(to: folder.appending(path: file))
        }
    }

    /// The catalog shipped in the binary, read-only and shared: served, and searched, as the shop serves it.
    public static let bundledCatalog: SQLCatalogRepository = bundledCatalog(in: bundledShop())

    /// A new in-memory shop database holding the bundled catalog and its stock (a copy of one imported once).
    public static func bundledShop() -> SQLiteDatabase {
        do { return try bundledShopTemplate.get().copiedInMemory() } catch { preconditionFailure("cannot copy the test database: \(error)") }
    }

    /// `catalog` as the shop serves one whose profile names markets: in its home market, at the bundled rates.
    public static func inHomeMarket(_ catalog: any CatalogRepository) -> any CatalogRepository {
        let pricing = try? ShopConfiguration().marketPricing(for: catalog.shop)
        return MarketCatalog.home(catalog, pricing: pricing)
    }

    /// The bundled catalog served from `database`, as the shop serves it.
    public static func bundledCatalog(in database: SQLiteDatabase) -> SQLCatalogRepository {
        do {
            guard let catalog = try SQLiteCatalogImport.stored(database: database) else {
                preconditionFailure("the test database has no catalog")
            }
            return catalog
        } catch {
            preconditionFailure("cannot read the test database's catalog: \(error)")
        }
    }

    private static let bundledShopTemplate = Result { () throws -> SQLiteDatabase in
        let database = try SQLiteDatabase.inMemory()
        _ = try SQLiteCatalogImport.open(
            database: database, catalogData: Data(BundledCatalog.json.utf8), source: "bundled catalog",
            pictures: BundledPictures.catalogImport.resolving)
        return database
    }

    /// The same Ed25519 key in every test run, so token bytes are deterministic.
    public static let signingKey: Curve25519.Signing.PrivateKey = {
        do { return try Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32)) } catch { preconditionFailure("\(error)") }
    }()

    /// 2026-11-22 09:30 UTC, always.
    public static let fixedDates = DateSource { Date(timeIntervalSince1970: 1_795_339_800) }

    /// A catalog of `count` generated products, for scale tests and benchmarks.
    public static func generatedCatalog(count: Int, shop: ShopProfile = .standard()) -> Catalog {
        let adjectives = ["Red", "Blue", "Green", "Small", "Large", "Vintage", "Modern", "Classic"]
        let materials = ["Cotton", "Steel", "Oak", "Ceramic", "Leather", "Bamboo", "Glass", "Wool"]
        let nouns = ["Mug", "Lamp", "Chair", "Backpack", "Kettle", "Notebook", "Scarf", "Clock"]
        var products: [Product] = []
        products.reserveCapacity(count)
        for i in 0..<count {
            let name = "\(adjectives[i % 8]) \(materials[(i / 8) % 8]) \(nouns[(i / 64) % 8]) #\(i + 1)"
            products.append(
                Product(
                    id: ProductID("p\(i + 1)"), name: name, summary: "Generated product \(i + 1).",
                    description: "A generated product for scale tests.",
                    price: Money(minorUnits: Int64(199 + (i * 7_919) % 99_800), currency: shop.currency),
                    stock: 10 + i % 40
                ))
        }
        return Catalog(shop: shop, products: products)
    }
}

extension Fixtures {
    /// `catalog` written back as catalog JSON, the format `CatalogLoader` reads (`CatalogWriter`'s).
    public static func catalogJSON(_ catalog: Catalog) throws -> Data {
        try CatalogWriter.json(catalog)
    }
}

extension IDGenerator {
    /// "prefix-1", "prefix-2", … in order.
    public static func sequential(prefix: String) -> IDGenerator {
        let counter = Counter()
        return IDGenerator { "\(prefix)-\(counter.next())" }
    }
}

private final class Counter: Sendable, LiveObject {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
