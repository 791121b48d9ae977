import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopModels
import StorefrontTesting
import Testing

@testable import ShopAPI

/// `POST /v1/orders/preview`: the payment sheet's lines through the API. The preview is what the order then charges
/// line for line and cent for cent, with a subscription's schedule and where the receipt goes; it charges, reserves
/// and claims nothing, refuses what the order would refuse in the same words, and speaks the request's language.
@Suite("API order preview", .ownThreads)
struct APIOrderPreviewTests {
    @Test(arguments: AccountRepositoryKind.allCases)
    func thePreviewIsTheOrderBeforeItIsPlacedAndPlacesNothing(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            #expect(try await client.call(.post, "/v1/addresses", token: shopper, json: APIOrdersTests.address).status == .created)
            #expect(try await client.call(.post, "/v1/cards", token: shopper, json: #"{"testCard": "card_ok_visa_4242"}"#).status == .created)
            let line = #"{"quantity": 2, "sku": "coffee-beans-filter-250g"}"#
            #expect(try await client.call(.put, "/v1/cart/lines/coffee-beans", token: shopper, json: line).status == .ok)
            let body = #"{"subscribeEveryWeeks": 2}"#

            let preview = try await client.call(.post, "/v1/orders/preview", token: shopper, json: body)
            #expect(preview.status == .ok, "\(preview.text)")
            let json = preview.json
            let lines = try #require(json["lines"] as? [[String: Any]])
            #expect(lines.count == 1 && lines[0]["quantity"] as? Int == 2 && json["itemCount"] as? Int == 2)
            #expect((lines[0]["variant"] as? [String: Any])?["sku"] as? String == "coffee-beans-filter-250g", "\(lines)")
            let schedule = try #require(json["subscription"] as? [String: Any])
            #expect(
                schedule["everyWeeks"] as? Int == 2 && (schedule["summary"] as? String)?.hasPrefix("every 2 weeks, next on ") == true, "\(schedule)")
            #expect(json["payment"] as? String == "Visa ••4242" && json["receiptTo"] as? String == "ada@example.com")
            #expect((json["shipTo"] as? String)?.hasPrefix("Ada Lovelace, 1 Loop Road") == true)
            #expect((json["taxDetails"] as? [String: Any])?["jurisdiction"] as? String == "US-CA")
            // Nothing placed: no order, the cart as it was, and its purchase claim free.
            #expect((try await client.call(.get, "/v1/orders", token: shopper).json["totalCount"] as? Int) == 0)
            #expect((try await client.call(.get, "/v1/cart", token: shopper).json["itemCount"] as? Int) == 2)

            // The order with the same body charges what the preview said, line for line.
            let placed = try await client.order(shopper, key: "preview-1", json: body)
            #expect(placed.status == .created, "\(placed.text)")
            for field in ["subtotal", "shipping", "tax", "total", "taxDetails", "payment", "shipTo", "shippingMethod"] {
                #expect(
                    NSDictionary(dictionary: ["v": placed.json[field] ?? NSNull()]) == NSDictionary(dictionary: ["v": json[field] ?? NSNull()]),
                    "\(field): \(placed.json[field] ?? "none") vs \(json[field] ?? "none")")
            }
            #expect(NSArray(array: placed.json["lines"] as? [Any] ?? []) == NSArray(array: lines))

            // Refused as the order would be: an empty cart now, a 422 naming it.
            let empty = try await client.call(.post, "/v1/orders/preview", token: shopper, json: "{}")
            #expect(empty.status == .unprocessableContent && empty.text.contains("The cart is empty"), "\(empty.text)")
            // Only with a shopper's token, and only as POST.
            #expect(try await client.call(.post, "/v1/orders/preview", json: "{}").status == .unauthorized)
            #expect(try await client.call(.get, "/v1/orders/preview", token: shopper).status == .methodNotAllowed)
        }
    }

    @Test func theScheduleIsSaidInTheRequestsLanguage() async throws {
        let api = try await APIHarness(.sqlite)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            #expect(try await client.call(.post, "/v1/addresses", token: shopper, json: APIOrdersTests.address).status == .created)
            #expect(try await client.call(.post, "/v1/cards", token: shopper, json: #"{"testCard": "card_ok_visa_4242"}"#).status == .created)
            let line = #"{"quantity": 1, "sku": "coffee-beans-filter-250g"}"#
            #expect(try await client.call(.put, "/v1/cart/lines/coffee-beans", token: shopper, json: line).status == .ok)
            var headers = HTTPFields()
            headers[.acceptLanguage] = "de-DE"
            let preview = try await client.call(.post, "/v1/orders/preview", token: shopper, json: #"{"subscribeEveryWeeks": 4}"#, headers: headers)
            let summary = (preview.json["subscription"] as? [String: Any])?["summary"] as? String
            #expect(summary?.hasPrefix("alle 4 Wochen, nächste am ") == true, "\(preview.text)")
        }
    }
}
