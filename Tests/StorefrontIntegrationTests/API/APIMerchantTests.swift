import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopModels
import ShopPorts
import Testing

@testable import ShopAPI

/// The merchant's order changes and stock, and the shopper's profile, through the API.
@Suite("API merchant and profile", .ownThreads)
struct APIMerchantTests {
    /// A paid order of two keycaps for the harness's shopper; returns its number.
    static func paidOrder(_ client: any TestClientProtocol, _ api: APIHarness, key: String = "k") async throws -> String {
        let shopper = try await api.makeToken()
        try await APIOrdersTests.ready(client, shopper)
        return try #require(try await client.order(shopper, key: key, json: "{}").json["number"] as? String)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aDeliveryFollowsTheShipmentAndNotBefore(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        try await api.run { client async throws in
            let number = try await Self.paidOrder(client, api)
            let early = try await client.call(.post, "/v1/merchant/orders/\(number)/deliver", token: merchant)
            #expect(early.status == .conflict, "not shipped yet: \(early.text)")
            _ = try await client.call(
                .post, "/v1/merchant/orders/\(number)/ship", token: merchant, json: #"{"carrier": "UPS", "trackingNumber": "1Z"}"#)
            let delivered = try await client.call(.post, "/v1/merchant/orders/\(number)/deliver", token: merchant)
            #expect(delivered.json["status"] as? String == "delivered")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aCancelRefundsAllAndAPartialRefundLeavesTheRest(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        try await api.run { client async throws in
            let first = try await Self.paidOrder(client, api, key: "one")
            let noReason = try await client.call(.post, "/v1/merchant/orders/\(first)/cancel", token: merchant, json: #"{"reason": ""}"#)
            #expect(noReason.status == .unprocessableContent)
            let canceled = try await client.call(.post, "/v1/merchant/orders/\(first)/cancel", token: merchant, json: #"{"reason": "Out of stock"}"#)
            #expect(canceled.json["status"] as? String == "canceled", "\(canceled.text)")

            let second = try await Self.paidOrder(client, api, key: "two")
            let part = try await client.call(
                .post, "/v1/merchant/orders/\(second)/refund", token: merchant, json: #"{"amount": 100, "reason": "Scuffed box"}"#)
            #expect(part.json["status"] as? String == "partiallyRefunded", "\(part.text)")
            let events = try #require(part.json["events"] as? [[String: Any]])
            #expect(events.last?["type"] as? String == "refunded")
            #expect(events.last?["actor"] as? String == "merchant:ssh:SHA256:admin")
            let tooMuch = try await client.call(
                .post, "/v1/merchant/orders/\(second)/refund", token: merchant, json: #"{"amount": 99999999, "reason": "x"}"#)
            #expect(tooMuch.status == .conflict, "\(tooMuch.text)")
            let rest = try await client.call(.post, "/v1/merchant/orders/\(second)/refund", token: merchant, json: #"{"reason": "Goodwill"}"#)
            #expect(rest.json["status"] as? String == "refunded", "\(rest.text)")
            #expect(
                try await client.call(.post, "/v1/merchant/orders/SF-424242/refund", token: merchant, json: #"{"reason": "x"}"#).status == .notFound)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func stockIsListedAndSetAndAnUnknownProductIsA404(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        try await api.run { client async throws in
            let set = try await client.call(.put, "/v1/merchant/stock/mug-stdout", token: merchant, json: #"{"onHand": 40}"#)
            #expect(set.status == .ok)
            #expect(set.json["onHand"] as? Int == 40)
            let list = try await client.call(.get, "/v1/merchant/stock", token: merchant)
            let levels = try #require(list.json["data"] as? [[String: Any]])
            #expect(levels.first { $0["productId"] as? String == "mug-stdout" }?["onHand"] as? Int == 40)
            let onHand = levels.compactMap { $0["onHand"] as? Int }
            #expect(onHand == onHand.sorted() && onHand.count == levels.count, "fewest on hand first")
            #expect(try await client.call(.put, "/v1/merchant/stock/nothing", token: merchant, json: #"{"onHand": 1}"#).status == .notFound)
            #expect(
                try await client.call(.put, "/v1/merchant/stock/mug-stdout", token: merchant, json: #"{"onHand": -1}"#).status
                    == .unprocessableContent)
        }
        #expect(try await api.stock.stockLevels().first { $0.productID == "mug-stdout" }?.onHand == 40)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func theProfileChangesOnlyWhatIsSentAndIsChecked(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let empty = try await client.call(.get, "/v1/profile", token: token)
            #expect(empty.json["customer"] as? String == "ssh:SHA256:shopper")
            #expect(empty.json["name"] == nil)
            _ = try await client.call(.patch, "/v1/profile", token: token, json: #"{"name": "Ada", "email": "ada@example.com"}"#)
            let renamed = try await client.call(.patch, "/v1/profile", token: token, json: #"{"name": "Ada Lovelace"}"#)
            #expect(renamed.json["name"] as? String == "Ada Lovelace")
            #expect(renamed.json["email"] as? String == "ada@example.com", "a field left out stays")
            let bad = try await client.call(.patch, "/v1/profile", token: token, json: #"{"email": "not an address"}"#)
            #expect(bad.status == .unprocessableContent)
        }
    }
}
