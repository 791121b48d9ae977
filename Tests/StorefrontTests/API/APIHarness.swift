import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import ShopAPI
import ShopIdentity
import ShopMerchant
import ShopModels
import ShopPorts
import ShopSandbox
import Synchronization

/// The API on in-memory repositories and the bundled catalog, driven through Hummingbird's router test client (no
/// socket), with a clock the test moves and the log kept.
final class APIHarness: Sendable {
    let catalog: InMemoryCatalogRepository
    let carts = InMemoryCartRepository()
    let tokens = InMemoryAPITokenRepository()
    let wallets = InMemoryWalletRepository()
    let profiles = InMemoryAccountProfileRepository()
    let orders = InMemoryOrderRepository()
    let processor = SandboxProcessor()
    let idempotency = InMemoryIdempotencyRepository()
    let stock = InMemoryStockRepository([
        StockLevel(productID: "keycap-dusk", name: "Dusk Keycap Set", onHand: 12, reserved: 0, sold: 0),
        StockLevel(productID: "mug-stdout", name: "stdout Mug", onHand: 3, reserved: 0, sold: 0),
    ])
    let limits: APILimits
    private let clock = Mutex<Duration>(.zero)
    private let lines = Mutex<[String]>([])
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    init(limits: APILimits = APILimits()) throws {
        catalog = try InMemoryCatalogRepository.bundled()
        self.limits = limits
    }

    var log: [String] { lines.withLock { $0 } }

    func advance(_ duration: Duration) { clock.withLock { $0 += duration } }

    /// A new token of `owner` with `scope`, stored; returns its secret.
    func makeToken(owner: String = "ssh:SHA256:shopper", scope: APITokenScope = .shop, name: String = "test") throws -> PersonalAccessToken {
        let secret = PersonalAccessToken.mint()
        try tokens.add(secret.record(name: name, owner: owner, scope: scope, at: Self.start))
        return secret
    }

    /// The sandbox's payments, the in-memory orders and wallets, and the harness's clock.
    var commerce: APICommerce {
        APICommerce(
            wallets: wallets, profiles: profiles, provider: SandboxPaymentProvider(processor: processor),
            backend: LiveMerchantBackend(processor: processor, orders: orders, dates: DateSource { self.now }),
            orders: orders, backOffice: LiveBackOffice(orders: orders, stock: stock, processor: processor, dates: DateSource { self.now }),
            idempotency: idempotency, methodData: { "sandbox:\($0.id)" }, testCards: SandboxCard.all.map(\.paymentMethod), now: { self.now }
        )
    }

    var now: Date { Self.start + Double(clock.withLock { $0 }.components.seconds) }

    /// Runs `body` with a client of the API.
    func run(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = try APIServer.application(
            shop: APIShop(catalog: catalog, carts: carts), commerce: commerce, tokens: tokens, limits: limits,
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
    func call(_ method: HTTPRequest.Method, _ uri: String, token: PersonalAccessToken? = nil, authorization: String? = nil, json: String? = nil) async throws -> APIReply {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token.secret)" }
        if let authorization { headers[.authorization] = authorization }
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            APIReply(status: response.status, headers: response.headers, body: Data(buffer: response.body))
        }
    }
}
