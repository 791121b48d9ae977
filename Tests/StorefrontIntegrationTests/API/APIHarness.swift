import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiveObjects
import NIOCore
import ShopApplication
import ShopBootstrap
import ShopBundledCatalog
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSandbox
import ShopServices
import StoragePostgres
import StorageSQLite
import StorefrontTesting
import Synchronization
import Testing

@testable import ShopAPI

/// The API on the bundled catalog and one kind of store (SQLite in memory, a SQLite file, a fresh PostgreSQL database),
/// built as `storefront api` builds it (`ShopStorage.apiCommerce`), driven through Hummingbird's router test client (no
/// socket), with a clock the test moves and the log kept.
final class APIHarness: Sendable {
    /// The shop's storage, as a server opens it.
    let storage: ShopStorage
    /// The sandbox's charges, which the tests read.
    let processor: SandboxProcessor
    let limits: APILimits
    /// The admin keys the API checks merchant tokens against: the harness's merchant, `ssh:SHA256:admin`.
    let merchantKeys: any MerchantKeys = TestMerchantKeys(["SHA256:admin"])
    private let clock = Mutex<Duration>(.zero)
    private let lines = Mutex<[String]>([])
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// The catalog as the shop serves it: in its home market, the others reached through its pricing.
    var catalog: any CatalogRepository { Fixtures.inHomeMarket(storage.catalog) }
    var carts: any CartRepository { storage.carts }
    var tokens: any APITokenRepository { storage.tokens }
    var wallets: any WalletRepository { storage.wallets }
    var orders: any OrderRepository & RefundRepository & OrderQueue { storage.orders }
    var stock: any StockRepository { storage.stock }
    var subscriptions: any SubscriptionRepository { storage.subscriptions }

    init(_ kind: AccountRepositoryKind = .inMemory, limits: APILimits = APILimits()) async throws {
        self.limits = limits
        switch kind {
        case .inMemory:
            let database = Fixtures.bundledShop()
            storage = .sqlite(database, catalog: Fixtures.bundledCatalog(in: database))
        case .sqlite:
            let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
            storage = .sqlite(
                database,
                catalog: try Fixtures.importBundledCatalog(into: database))
        case .postgres:
            let fixture = try await PostgresFixture()
            storage = .postgres(
                fixture.database,
                catalog: try await fixture.importing(CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled catalog")))
        }
        processor = SandboxProcessor(ledger: storage.ledger)
    }

    var log: [String] { lines.withLock { $0 } }

    func advance(_ duration: Duration) { clock.withLock { $0 += duration } }

    var now: Date { Self.start + Double(clock.withLock { $0 }.components.seconds) }

    /// A new token of `owner` with `scope`, stored; returns its secret.
    func makeToken(owner: String = "ssh:SHA256:shopper", scope: APITokenScope = .shop, name: String = "test") async throws -> PersonalAccessToken {
        let secret = PersonalAccessToken.mint()
        try await tokens.add(secret.record(name: name, owner: owner, scope: scope, at: Self.start))
        return secret
    }

    /// The sandbox's payments, the harness's storage and its clock, put together as the server puts them.
    var commerce: APICommerce { storage.apiCommerce(.sandbox(processor), environment: [:], dates: DateSource { self.now }) }

    /// Runs `body` against the API served on a loopback port and returns what it found.
    func serveCollecting<T: Sendable>(port body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        let found = Mutex<T?>(nil)
        try await serve { port in
            let value = try await body(port)
            found.withLock { $0 = value }
        }
        return try #require(found.withLock { $0 })
    }

    /// Runs `body` against the API served on a loopback port, with the harness's stores and log.
    func serve(_ body: @Sendable (Int) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = try APIServer(
            host: "127.0.0.1", port: 0, shop: APIShop(catalog: catalog, carts: carts), commerce: commerce, tokens: tokens, merchantKeys: merchantKeys,
            limits: limits,
            log: { line in self.lines.withLock { $0.append(line) } }
        ) { port in continuation.yield(port) }
        let serving = Task { try await server.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        do {
            try await body(port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        _ = await serving.result
    }

    /// Runs `body` with a client of the API, on the harness's commerce or `commerce`.
    func run(commerce given: APICommerce? = nil, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = try APIServer.application(
            shop: APIShop(catalog: catalog, carts: carts), commerce: given ?? commerce, tokens: tokens, merchantKeys: merchantKeys, limits: limits,
            uptime: { self.clock.withLock { $0 } }, now: { self.now },
            log: { line in self.lines.withLock { $0.append(line) } }
        )
        try await app.test(.router) { client in try await body(client) }
    }
}

/// A response as a test reads it: status, headers, and the body decoded as JSON.
struct APIReply {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: Data

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The problem's `type`, for an error.
    var problemType: String? { json["type"] as? String }
}

extension TestClientProtocol {
    func call(
        _ method: HTTPRequest.Method, _ uri: String, token: PersonalAccessToken? = nil, authorization: String? = nil, json: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> APIReply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token.secret)" }
        if let authorization { headers[.authorization] = authorization }
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            APIReply(status: response.status, headers: response.headers, body: Data(buffer: response.body))
        }
    }
}

/// Admin keys of the test's own, fixed.
struct TestMerchantKeys: MerchantKeys {
    let fingerprints: Set<String>
    init(_ fingerprints: Set<String>) { self.fingerprints = fingerprints }
    func allows(_ owner: String) -> String? { fingerprints.contains(String(owner.dropFirst(4))) ? nil : "not an admin key" }
}

extension APIHarness: LiveObject {}
