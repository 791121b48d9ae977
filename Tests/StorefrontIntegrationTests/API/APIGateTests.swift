import Foundation
import HTTPTypes
import ShopIdentity
import ShopPorts
import Testing

@testable import ShopAPI

/// Who may call what: tokens, scopes, the rate limit, and what every answer carries.
@Suite("API gate", .ownThreads)
struct APIGateTests {
    @Test(arguments: AccountRepositoryKind.allCases)
    func withoutATokenTheAnswerIsA401ProblemThatSaysHowToGetOne(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        try await api.run { client async throws in
            let reply = try await client.call(.get, "/v1/products")
            #expect(reply.status == .unauthorized)
            #expect(reply.headers[.contentType] == "application/problem+json")
            #expect(reply.headers[.wwwAuthenticate] == #"Bearer realm="storefront""#)
            #expect(reply.problemType == "urn:storefront:problem:unauthenticated")
            #expect(reply.json["status"] as? Int == 401)
            #expect((reply.json["detail"] as? String)?.contains("storefront tokens create") == true)
            let id = try #require(reply.headers[HTTPField.Name("Request-Id")!])
            #expect(reply.json["requestId"] as? String == id)
            #expect(reply.json["instance"] as? String == "/v1/products")
        }
        #expect(api.log.count == 1)
        #expect(api.log[0].hasPrefix("api: req_") && api.log[0].contains(" GET /v1/products 401 "), "\(api.log)")
    }

    @Test(arguments: ["Basic dXNlcjpwYXNz", "Bearer", "Bearer sfp_short", "Bearer ghp_0123456789012345678901234567890123456789abc"])
    func anAuthorizationThatIsNoTokenOfOursIsRefused(_ header: String) async throws {
        let api = try await APIHarness()
        try await api.run { client async throws in
            let reply = try await client.call(.get, "/v1/products", authorization: header)
            #expect(reply.status == .unauthorized)
            #expect(reply.problemType == "urn:storefront:problem:unauthenticated")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aRevokedOrUnknownTokenIsRefusedAndTheLogNeverHoldsASecret(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let revoked = try await api.makeToken()
        let record = try #require(try await api.tokens.tokens(owner: nil).first)
        _ = try await api.tokens.revoke(id: record.id, owner: nil, at: APIHarness.start)
        let unknown = PersonalAccessToken.mint()
        let good = try await api.makeToken()
        try await api.run { client async throws in
            #expect(try await client.call(.get, "/v1/products", token: revoked).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/products", token: unknown).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/products", token: good).status == .ok)
        }
        let log = api.log.joined(separator: "\n")
        for secret in [revoked, unknown, good] { #expect(!log.contains(secret.secret)) }
        let goodRecord = try #require(try await api.tokens.token(secretHash: good.hash))
        #expect(log.contains("200") && log.contains("\(goodRecord.id) shop ssh:SHA256:shopper"), "the caller is named by its token's id: \(log)")
        #expect(goodRecord.lastUsedAt == APIHarness.start)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aMerchantTokenCannotActAsAShopperNorAShopTokenAsTheMerchant(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            let asShopper = try await client.call(.get, "/v1/cart", token: merchant)
            #expect(asShopper.status == .forbidden)
            #expect(asShopper.problemType == "urn:storefront:problem:forbidden")
            let asMerchant = try await client.call(.get, "/v1/merchant/orders", token: shopper)
            #expect(asMerchant.status == .forbidden)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aTokenOverItsRateIsToldWhenToComeBack(kind: AccountRepositoryKind) async throws {
        var limits = APILimits()
        limits.requestsPerMinute = 2
        limits.burst = 2
        let api = try await APIHarness(kind, limits: limits)
        let token = try await api.makeToken()
        let other = try await api.makeToken(owner: "ssh:SHA256:other")
        try await api.run { client async throws in
            #expect(try await client.call(.get, "/v1/cart", token: token).status == .ok)
            #expect(try await client.call(.get, "/v1/cart", token: token).status == .ok)
            let refused = try await client.call(.get, "/v1/cart", token: token)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "30")
            #expect(refused.problemType == "urn:storefront:problem:rate-limited")
            #expect(try await client.call(.get, "/v1/cart", token: other).status == .ok, "each token has its own rate")
            api.advance(.seconds(29))
            #expect(try await client.call(.get, "/v1/cart", token: token).status == .tooManyRequests)
            api.advance(.seconds(1))
            #expect(try await client.call(.get, "/v1/cart", token: token).status == .ok)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aBodyOverTheLimitIsA413(kind: AccountRepositoryKind) async throws {
        var limits = APILimits()
        limits.maxBodyBytes = 100
        let api = try await APIHarness(kind, limits: limits)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let reply = try await client.call(
                .put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1, "pad": "\#(String(repeating: "x", count: 200))"}"#)
            #expect(reply.status == .contentTooLarge)
            #expect(reply.problemType == "urn:storefront:problem:request-too-large")
        }
        #expect(try await api.carts.lines(forCustomer: "ssh:SHA256:shopper").isEmpty)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func theDocumentIsServedToAnyoneAsTheCommittedJSON(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        try await api.run { client async throws in
            let reply = try await client.call(.get, "/v1/openapi.json")
            #expect(reply.status == .ok)
            let served = try JSONSerialization.jsonObject(with: reply.body) as? NSDictionary
            let committed = try JSONSerialization.jsonObject(with: Data(ShopAPIService.documentJSON)) as? NSDictionary
            #expect(served == committed)
            #expect(served?["openapi"] as? String == "3.1.0")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func anUnknownPathIsA404Problem(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let reply = try await client.call(.get, "/v1/nothing-here", token: token)
            #expect(reply.status == .notFound)
            #expect(reply.problemType == "urn:storefront:problem:not-found")
        }
    }

    /// A body the API cannot read is explained in the client's terms: which field, what was wrong; never Swift's
    /// type names, coding keys or "underlying error", and each thing said once.
    @Test(arguments: [
        (#"{"quantity": "two"}"#, "quantity"), ("{", "JSON"), ("{}", "quantity"), (#"{"quantity": 1.5}"#, "whole number"), ("[1]", "object"),
    ])
    func anUnreadableBodyIsExplainedInTheClientsTerms(body: String, names: String) async throws {
        let api = try await APIHarness()
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let reply = try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: body)
            #expect(reply.status == .badRequest || reply.status == .unprocessableContent, "\(reply.text)")
            let detail = reply.json["detail"] as? String ?? ""
            #expect(detail.contains(names), "\(detail)")
            for word in [
                "DecodingError", "CodingKeys", "underlying error", "Swift", "Optional(", "<nil>", "dataCorrupted", "typeMismatch", "keyNotFound",
            ] {
                #expect(!detail.contains(word), "\(word) in \(detail)")
            }
            let sentences = detail.split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(Set(sentences).count == sentences.count, "said once: \(detail)")
        }
    }

    @Test func aForbiddenCallNamesItsTokenInTheLog() async throws {
        let api = try await APIHarness()
        let shopper = try await api.makeToken(owner: "ssh:SHA256:mallory")
        try await api.run { client async throws in
            #expect(try await client.call(.get, "/v1/merchant/stock", token: shopper).status == .forbidden)
        }
        let record = try #require(try await api.tokens.token(secretHash: shopper.hash))
        #expect(api.log.contains { $0.contains(" 403 ") && $0.contains("\(record.id) shop ssh:SHA256:mallory") }, "\(api.log)")
    }
}
