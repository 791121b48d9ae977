import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopModels
import ShopPorts
import Testing

@testable import ShopAPI

/// Retries the API documents as safe are safe: the IETF Idempotency-Key draft's answers (409 while running, the first
/// answer after), keys taken as sent, every money-moving POST covered, and a cart bought once whatever the keys.
@Suite("API idempotency", .ownThreads)
struct APIIdempotencyTests {
    static func keyed(_ key: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[HTTPField.Name("Idempotency-Key")!] = key
        return headers
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func twentyCopiesOfOneOrderAtOnceMakeOneOrderAndNoneIsToldTheKeyWasReused(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind, limits: Self.generous)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            try await APIOrdersTests.ready(client, token)
            let replies = try await withThrowingTaskGroup(of: APIReply.self) { group in
                for _ in 0..<20 { group.addTask { try await client.order(token, key: "same-key", json: "{}") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let statuses = replies.map(\.status.code)
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 409 }, "only the order or 'still running': \(statuses)")
            for busy in replies where busy.status == .conflict {
                #expect(busy.headers[.retryAfter] == "1" && busy.problemType == "urn:storefront:problem:request-in-flight")
            }
            let numbers = Set(replies.compactMap { $0.json["number"] as? String })
            #expect(numbers.count == 1, "\(numbers)")
            let again = try await client.order(token, key: "same-key", json: "{}")
            #expect(again.status == .created && again.json["number"] as? String == numbers.first, "the first answer, again")
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let listed = try await client.call(.get, "/v1/orders", token: token)
            #expect((listed.json["data"] as? [Any])?.count == 1)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func oneCartBoughtWithTwentyKeysAtOnceIsBoughtOnce(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind, limits: Self.generous)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            try await APIOrdersTests.ready(client, token)
            let replies = try await withThrowingTaskGroup(of: APIReply.self) { group in
                for index in 0..<20 { group.addTask { try await client.order(token, key: "key-\(index)", json: "{}") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let paid = replies.filter { $0.status == .created }
            #expect(paid.count == 1, "\(replies.map(\.status.code))")
            #expect(replies.allSatisfy { [201, 409, 422].contains($0.status.code) }, "the others: still running, or an empty cart")
            #expect(((try await client.call(.get, "/v1/orders", token: token)).json["data"] as? [Any])?.count == 1)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aKeyIsTakenAsItWasSentNeverPercentDecoded(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            try await APIOrdersTests.ready(client, token)
            let encoded = try await client.order(token, key: "pct-%41", json: "{}")
            #expect(encoded.status == .created)
            #expect(try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1}"#).status == .ok)
            let plain = try await client.order(token, key: "pct-A", json: "{}")
            #expect(plain.status == .created, "\(plain.text)")
            #expect(plain.json["number"] as? String != encoded.json["number"] as? String, "two keys, two orders")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aRetriedPartialRefundRefundsOnceAndAKeyOfAnotherRequestIsA422(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        try await api.run { client async throws in
            let number = try await APIMerchantTests.paidOrder(client, api)
            let body = #"{"reason": "one scratched", "amount": 500}"#
            let first = try await client.call(
                .post, "/v1/merchant/orders/\(number)/refund", token: merchant, json: body, headers: Self.keyed("refund-1"))
            #expect(first.status == .ok, "\(first.text)")
            let retried = try await client.call(
                .post, "/v1/merchant/orders/\(number)/refund", token: merchant, json: body, headers: Self.keyed("refund-1"))
            #expect(retried.status == .ok && retried.body == first.body, "the first answer, byte for byte")
            let other = try await client.call(
                .post, "/v1/merchant/orders/\(number)/refund", token: merchant, json: #"{"reason": "two", "amount": 700}"#,
                headers: Self.keyed("refund-1"))
            #expect(other.status == .unprocessableContent && other.problemType == "urn:storefront:problem:idempotency-key-reused")
            let badKey = try await client.call(
                .post, "/v1/merchant/orders/\(number)/refund", token: merchant, json: body, headers: Self.keyed(String(repeating: "k", count: 256)))
            #expect(badKey.status == .badRequest)
            let filed = try await api.orders.refunds(orderNumber: number)
            #expect(filed.map(\.ask.amount.minorUnits) == [500], "refunded once")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aRefusedRequestReleasesItsKeySoThatTheCorrectedRetryRuns(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let empty = try await client.order(token, key: "early", json: "{}")
            #expect(empty.status == .unprocessableContent, "the cart is empty: \(empty.text)")
            try await APIOrdersTests.ready(client, token)
            let placed = try await client.order(token, key: "early", json: "{}")
            #expect(placed.status == .created, "a validation failure files no answer: \(placed.text)")
        }
    }

    static var generous: APILimits {
        var limits = APILimits()
        (limits.requestsPerMinute, limits.burst) = (10_000, 10_000)
        return limits
    }
}
