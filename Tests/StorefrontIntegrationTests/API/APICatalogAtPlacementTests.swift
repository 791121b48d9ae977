import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopModels
import ShopPorts
import Testing

@testable import ShopAPI

/// A cart filled before the merchant changed the catalog, ordered through the API on each store: a new price is
/// answered 409 with the new figures and the cart takes them, so the order sent again is charged today's price; a
/// withdrawn product is refused by name, and nothing is charged.
@Suite("API orders priced from the catalog", .ownThreads)
struct APICatalogAtPlacementTests {
    static let mug = #"""
        {"product": {"id": "mug-test", "name": "Test Mug", "summary": "A mug.", "description": "Clay.", "price": 6400}}
        """#

    @Test(arguments: AccountRepositoryKind.allCases)
    func aPriceChangedSinceTheCartIs409AndTheOrderAgainPaysTodaysPrice(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            #expect(try await client.call(.post, "/v1/merchant/products", token: merchant, json: Self.mug).status == .created)
            #expect(try await client.call(.post, "/v1/addresses", token: shopper, json: APIOrdersTests.address).status == .created)
            #expect(try await client.call(.post, "/v1/cards", token: shopper, json: #"{"testCard": "card_ok_visa_4242"}"#).status == .created)
            #expect(try await client.call(.put, "/v1/cart/lines/mug-test", token: shopper, json: #"{"quantity": 1}"#).status == .ok)

            let raised = Self.mug.replacingOccurrences(of: #"{"product": "#, with: #"{"version": 1, "product": "#)
                .replacingOccurrences(of: "6400", with: "9900")
            #expect(try await client.call(.put, "/v1/merchant/products/mug-test", token: merchant, json: raised).status == .ok)

            let refused = try await client.order(shopper, key: "mug-1", json: "{}")
            #expect(refused.status == .conflict && refused.problemType == "urn:storefront:problem:prices-changed", "\(refused.text)")
            let errors = try #require(refused.json["errors"] as? [[String: String]], "\(refused.text)")
            #expect(errors == [["field": "cart.mug-test", "message": "now $99.00 each, was $64.00"]], "\(errors)")
            #expect(try await api.orders.count(customer: "ssh:SHA256:shopper") == 0, "nothing charged")
            let cart = try await client.call(.get, "/v1/cart", token: shopper)
            #expect((cart.json["subtotal"] as? [String: Any])?["amount"] as? Int == 9900, "the cart holds today's price: \(cart.text)")

            let paid = try await client.order(shopper, key: "mug-2", json: "{}")
            #expect(paid.status == .created, "\(paid.text)")
            let lines = try #require(paid.json["lines"] as? [[String: Any]], "\(paid.text)")
            #expect((lines.first?["unitPrice"] as? [String: Any])?["amount"] as? Int == 9900, "\(paid.text)")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aProductWithdrawnSinceTheCartIsRefusedByName(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            #expect(try await client.call(.post, "/v1/merchant/products", token: merchant, json: Self.mug).status == .created)
            try await APIOrdersTests.ready(client, shopper)
            #expect(try await client.call(.put, "/v1/cart/lines/mug-test", token: shopper, json: #"{"quantity": 1}"#).status == .ok)
            let out = try await client.call(
                .put, "/v1/merchant/products/mug-test/status", token: merchant, json: #"{"version": 1, "status": "unpublished"}"#)
            #expect(out.status == .ok, "\(out.text)")

            let refused = try await client.order(shopper, key: "mug-1", json: "{}")
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect((refused.json["detail"] as? String)?.contains("Test Mug is no longer sold") == true, "\(refused.text)")
            #expect(try await api.orders.count(customer: "ssh:SHA256:shopper") == 0, "nothing charged")
        }
    }
}
