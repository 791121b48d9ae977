import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopModels
import ShopPorts
import Testing

@testable import ShopAPI

/// The merchant's catalog through the API, on each store: a product made, replaced against its version (409 when it
/// changed meanwhile), unpublished, and its history; a shop token may not touch it.
@Suite("API catalog editing", .ownThreads)
struct APICatalogTests {
    static let tee = #"""
        {"product": {"id": "tee-pipes", "name": "Pipes Tee", "summary": "A tee.", "description": "Cotton.", "price": 2400,
         "options": [{"name": "Size", "values": ["S", "M"]}],
         "variants": [{"sku": "tee-pipes-s", "options": ["S"], "stock": 3}, {"sku": "tee-pipes-m", "options": ["M"], "price": 2600}]}}
        """#

    @Test(arguments: AccountRepositoryKind.allCases)
    func aProductIsMadeReplacedAgainstItsVersionAndUnpublished(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            let made = try await client.call(.post, "/v1/merchant/products", token: merchant, json: Self.tee)
            #expect(made.status == .created, "\(made.text)")
            #expect(made.json["version"] as? Int == 1 && made.json["status"] as? String == "published")
            #expect(made.json["updatedBy"] as? String == "ssh:SHA256:admin")
            let sold = try await client.call(.get, "/v1/products/tee-pipes", token: shopper)
            #expect(sold.status == .ok && (sold.json["variants"] as? [Any])?.count == 2, "the shop sells it at once: \(sold.text)")

            let again = try await client.call(.post, "/v1/merchant/products", token: merchant, json: Self.tee)
            #expect(again.status == .conflict)
            let renamed = Self.tee.replacingOccurrences(of: #"{"product": "#, with: #"{"version": 1, "product": "#)
                .replacingOccurrences(of: "Pipes Tee", with: "Pipes Tee II")
            let saved = try await client.call(.put, "/v1/merchant/products/tee-pipes", token: merchant, json: renamed)
            #expect(saved.json["version"] as? Int == 2 && saved.json["name"] as? String == "Pipes Tee II", "\(saved.text)")
            let stale = try await client.call(.put, "/v1/merchant/products/tee-pipes", token: merchant, json: renamed)
            #expect(stale.status == .conflict)
            #expect((stale.json["detail"] as? String)?.contains("changed meanwhile (now version 2") == true, "\(stale.text)")

            let bad = try await client.call(
                .put, "/v1/merchant/products/tee-pipes", token: merchant,
                json: renamed.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
                    .replacingOccurrences(of: "\"price\": 2400", with: "\"price\": -5"))
            #expect(bad.status == .unprocessableContent)
            #expect((bad.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "product.price", "\(bad.text)")

            let out = try await client.call(
                .put, "/v1/merchant/products/tee-pipes/status", token: merchant, json: #"{"version": 2, "status": "unpublished"}"#)
            #expect(out.json["status"] as? String == "unpublished" && out.json["version"] as? Int == 3)
            #expect(try await client.call(.get, "/v1/products/tee-pipes", token: shopper).status == .notFound)

            let history = try await client.call(.get, "/v1/merchant/products/tee-pipes/history", token: merchant)
            #expect((history.json["data"] as? [[String: Any]])?.map { $0["action"] as? String } == ["unpublish", "update", "create"])
            let listed = try await client.call(.get, "/v1/merchant/products", token: merchant)
            #expect((listed.json["data"] as? [[String: Any]])?.last?["id"] as? String == "tee-pipes", "out of the shop, listed last")

            #expect(try await client.call(.get, "/v1/merchant/products", token: shopper).status == .forbidden, "a shop token may not")
            #expect(try await client.call(.post, "/v1/merchant/products", token: shopper, json: Self.tee).status == .forbidden)
            #expect(try await client.call(.get, "/v1/merchant/products/nothing/history", token: merchant).status == .notFound)
        }
    }
}
