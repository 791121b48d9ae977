import Foundation
import HTTPTypes
import ShopModels
import Testing

@testable import ShopAPI

/// Variants through the API: listed with each product, chosen by SKU for the cart, named on the order.
@Suite("API variants", .ownThreads)
struct APIVariantTests {
    @Test(arguments: AccountRepositoryKind.allCases)
    func aVariantIsChosenBySKUAndTheOrderNamesIt(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let coffee = try await client.call(.get, "/v1/products/coffee-beans", token: token)
            #expect(coffee.status == .ok)
            #expect((coffee.json["options"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Grind", "Weight"])
            let variants = try #require(coffee.json["variants"] as? [[String: Any]])
            #expect(variants.count == 6)
            let espresso = try #require(variants.first { $0["sku"] as? String == "coffee-beans-espresso-1kg" })
            #expect(espresso["title"] as? String == "Espresso · 1 kg")
            #expect(espresso["options"] as? [String] == ["Espresso", "1 kg"])
            #expect((espresso["price"] as? [String: Any])?["amount"] as? Int64 == 5_400)
            #expect(espresso["stock"] as? Int == 1)

            let unchosen = try await client.call(.put, "/v1/cart/lines/coffee-beans", token: token, json: #"{"quantity": 1}"#)
            #expect(unchosen.status == .unprocessableContent)
            #expect(unchosen.text.contains("Choose a variant of Compile-Time Coffee"), "\(unchosen.text)")
            let unknown = try await client.call(.put, "/v1/cart/lines/coffee-beans", token: token, json: #"{"quantity": 1, "sku": "decaf"}"#)
            #expect(unknown.status == .unprocessableContent)
            let tooMany = try await client.call(
                .put, "/v1/cart/lines/coffee-beans", token: token, json: #"{"quantity": 2, "sku": "coffee-beans-espresso-1kg"}"#)
            #expect(tooMany.status == .unprocessableContent, "one left of this variant")
            #expect(tooMany.text.contains("Compile-Time Coffee — Espresso · 1 kg: only 1 left."), "\(tooMany.text)")
            let plain = try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1, "sku": "x"}"#)
            #expect(plain.status == .unprocessableContent, "a product without variants takes no sku")

            for (sku, quantity) in [("coffee-beans-espresso-1kg", 1), ("coffee-beans-whole-250g", 2)] {
                let set = try await client.call(
                    .put, "/v1/cart/lines/coffee-beans", token: token, json: #"{"quantity": \#(quantity), "sku": "\#(sku)"}"#)
                #expect(set.status == .ok, "\(set.text)")
            }
            let cart = try await client.call(.get, "/v1/cart", token: token)
            let lines = try #require(cart.json["lines"] as? [[String: Any]])
            #expect(
                lines.compactMap { $0["name"] as? String } == ["Compile-Time Coffee — Espresso · 1 kg", "Compile-Time Coffee — Whole bean · 250 g"])
            #expect(
                lines.compactMap { ($0["variant"] as? [String: Any])?["sku"] as? String } == ["coffee-beans-espresso-1kg", "coffee-beans-whole-250g"])
            #expect(cart.json["itemCount"] as? Int == 3)

            #expect(try await client.call(.post, "/v1/addresses", token: token, json: APIOrdersTests.address).status == .created)
            #expect(try await client.call(.post, "/v1/cards", token: token, json: #"{"testCard": "card_ok_visa_4242"}"#).status == .created)
            let order = try await client.order(token, key: "variant-order", json: "{}")
            #expect(order.status == .created, "\(order.text)")
            let ordered = try #require(order.json["lines"] as? [[String: Any]])
            #expect(ordered.compactMap { ($0["variant"] as? [String: Any])?["title"] as? String } == ["Espresso · 1 kg", "Whole bean · 250 g"])
        }
        #expect(try await api.stock.stockLevels().first { $0.productID == "coffee-beans-espresso-1kg" }?.sold == 1)
    }
}
