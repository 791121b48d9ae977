import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopIdentity
import ShopModels
import ShopPorts
import Testing

@testable import ShopAPI

/// Every operation the document lists, called with each token scope and every spelling of its path a router might
/// fold onto it: a token never reaches an operation of another scope.
@Suite("API authorization per operation", .ownThreads)
struct APIAuthorizationTests {
    /// One operation of the document: its method, its path with the parameters filled in, and the scope its tag asks.
    struct Operation: CustomStringConvertible {
        var id: String
        var method: HTTPRequest.Method
        var path: String
        var scope: APITokenScope?
        var description: String { "\(method) \(path) (\(id))" }
    }

    /// A valid body for each operation that takes one; a new operation without a sample fails the walk.
    static let bodies: [String: String] = [
        "setCartLine": #"{"quantity": 1}"#,
        "addAddress": APIOrdersTests.address,
        "addCard": #"{"testCard": "card_ok_visa_4242"}"#,
        "createOrder": "{}",
        "previewOrder": "{}",
        "updateProfile": #"{"name": "Mallory"}"#,
        "shipOrder": #"{"carrier": "UPS", "trackingNumber": "1Z1"}"#,
        "cancelOrder": #"{"reason": "attack"}"#,
        "refundOrder": #"{"reason": "attack", "amount": 100}"#,
        "setStock": #"{"onHand": 0}"#,
        "createCatalogProduct": APICatalogTests.tee,
        "updateCatalogProduct": #"{"version": 1, "product": {"id": "keycap-dusk", "name": "Taken", "description": "x", "price": 1}}"#,
        "setCatalogProductStatus": #"{"version": 1, "status": "archived"}"#,
        "createDiscount": #"{"code": "ATTACK", "percent": "50"}"#,
        "setDiscountStatus": #"{"status": "paused"}"#,
        "cancelSubscription": #"{"when": "now"}"#,
        "changeMySubscription": #"{"change": "pause"}"#,
        // Not a picture: the walk asks only who may reach the operation, and a shop token is refused before its body.
        "uploadPicture": "{}",
    ]

    /// The document's operations; `merchant`-tagged ones need a merchant token, the document itself none, the rest a
    /// shop token.
    static func operations(orderNumber: String) throws -> [Operation] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(ShopAPIService.documentJSON)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let values = [
            "{productId}": "keycap-dusk", "{orderNumber}": orderNumber, "{addressId}": "addr_x", "{cardId}": "card_x", "{code}": "LAUNCH",
            "{subscriptionId}": "sub_x",
        ]
        return try paths.flatMap { template, methods in
            try methods.map { method, body in
                let operation = try #require(body as? [String: Any])
                let tags = operation["tags"] as? [String] ?? []
                let open = (operation["security"] as? [Any])?.isEmpty == true
                let path = values.reduce(template) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
                return Operation(
                    id: try #require(operation["operationId"] as? String), method: HTTPRequest.Method(method.uppercased())!, path: path,
                    scope: open ? nil : tags.contains("merchant") ? .merchant : .shop
                )
            }
        }
        .sorted { $0.description < $1.description }
    }

    /// The spellings of `path` an attacker tries: doubled and leading slashes, dot segments, an encoded slash, a
    /// trailing slash, another case.
    static func variants(of path: String) -> [String] {
        let inner = path.dropFirst("/v1/".count)
        return [
            path, "/\(path)", "/v1//\(inner)", "/v1/./\(inner)", "/v1/x/../\(inner)", "/v1%2F\(inner)",
            "/v1/\(inner.replacingOccurrences(of: "/", with: "%2F"))", "\(path)/", "\(path)//", path.uppercased(), "/V1/\(inner)",
        ]
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func noTokenReachesAnOperationOfAnotherScopeByAnySpellingOfItsPath(kind: AccountRepositoryKind) async throws {
        var limits = APILimits()
        (limits.requestsPerMinute, limits.burst) = (100_000, 100_000)
        let api = try await APIHarness(kind, limits: limits)
        let owner = try await api.makeToken(owner: "ssh:SHA256:owner")
        let shopper = try await api.makeToken(owner: "ssh:SHA256:mallory")
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        try await api.run { client async throws in
            try await APIOrdersTests.ready(client, owner)
            let placed = try await client.order(owner, key: "owner-1", json: "{}")
            let number = try #require(placed.json["number"] as? String, "\(placed.text)")
            let stockBefore = try await api.stock.stockLevels()
            let operations = try Self.operations(orderNumber: number)
            #expect(operations.count == 42, "the walk covers the whole document: \(operations)")
            for operation in operations {
                let body = Self.bodies[operation.id]
                if [.post, .put, .patch].contains(operation.method), operation.id != "deliverOrder" {
                    #expect(body != nil, "no sample body for \(operation)")
                }
                var headers = HTTPFields()
                headers[HTTPField.Name("Idempotency-Key")!] = "walk-\(operation.id)"
                for (token, scope) in [(shopper, APITokenScope.shop), (merchant, .merchant)] where operation.scope != nil && operation.scope != scope
                {
                    for path in Self.variants(of: operation.path) {
                        let reply = try await client.call(operation.method, path, token: token, json: body, headers: headers)
                        #expect(!(200..<300).contains(reply.status.code), "a \(scope) token reached \(operation) as \(path): \(reply.status)")
                        #expect(reply.status != .internalServerError, "\(operation) as \(path): \(reply.text)")
                        if path == operation.path {
                            #expect(reply.status == .forbidden, "\(operation) with a \(scope) token: \(reply.status) \(reply.text)")
                        }
                    }
                }
                for path in Self.variants(of: operation.path) where operation.scope != nil {
                    let reply = try await client.call(operation.method, path, json: body, headers: headers)
                    #expect(reply.status == .unauthorized || reply.status == .notFound, "\(operation) as \(path) with no token: \(reply.status)")
                }
            }
            let order = try await client.call(.get, "/v1/orders/\(number)", token: owner)
            #expect(order.json["status"] as? String == "paid", "no shop token moved the owner's order: \(order.text)")
            #expect((order.json["events"] as? [[String: Any]])?.count == 2)
            #expect(try await api.stock.stockLevels() == stockBefore, "no shop token set any stock")
            let mallory = try await client.call(.get, "/v1/orders", token: shopper)
            #expect((mallory.json["data"] as? [Any])?.isEmpty == true)
        }
        let forbidden = api.log.filter { $0.contains(" 403 ") }
        #expect(
            !forbidden.isEmpty && forbidden.allSatisfy { $0.contains(" shop ssh:SHA256:mallory") || $0.contains(" merchant ssh:SHA256:admin") },
            "a 403 names its token: \(forbidden)")
    }
}
