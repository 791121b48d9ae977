import Foundation
import HTTPTypes
import ShopModels
import ShopPorts
import Testing

@testable import ShopAPI

/// The shopper's endpoints for products and the cart, each on the in-memory shop.
@Suite("API products and cart", .ownThreads)
struct APIProductsAndCartTests {
    @Test(arguments: AccountRepositoryKind.allCases)
    func pagesOfProductsFollowTheirCursorsThroughTheWholeCatalogInOrder(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        let everything = try await api.catalog.page(matching: "", offset: 0, limit: 1000)
        try await api.run { client async throws in
            var seen: [String] = []
            var uri = "/v1/products?limit=3"
            while true {
                let page = try await client.call(.get, uri, token: token)
                #expect(page.status == .ok)
                #expect(page.json["totalCount"] as? Int == everything.count)
                let data = try #require(page.json["data"] as? [[String: Any]])
                #expect(data.count <= 3)
                seen += data.compactMap { $0["id"] as? String }
                guard let next = page.json["nextCursor"] as? String else { break }
                uri = "/v1/products?limit=3&cursor=\(next)"
            }
            #expect(seen == everything.map(\.id.rawValue))
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aProductHasItsPriceInMinorUnitsWithItsCurrency(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        let product = try #require(try await api.catalog.product(id: "keycap-dusk"))
        try await api.run { client async throws in
            let reply = try await client.call(.get, "/v1/products/keycap-dusk", token: token)
            #expect(reply.status == .ok)
            #expect(reply.json["id"] as? String == "keycap-dusk")
            #expect(reply.json["name"] as? String == product.name)
            let price = try #require(reply.json["price"] as? [String: Any])
            #expect(price["amount"] as? Int64 == product.price.minorUnits)
            #expect(price["currency"] as? String == product.price.currency.code)

            let missing = try await client.call(.get, "/v1/products/no-such-thing", token: token)
            #expect(missing.status == .notFound)
            #expect(missing.problemType == "urn:storefront:problem:not-found")
            #expect((missing.json["detail"] as? String)?.contains("no-such-thing") == true)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aSearchKeepsToItsWordsAndACursorOnlyServesItsOwnSearch(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        let matching = try await api.catalog.page(matching: "desk", offset: 0, limit: 100)
        try #require(matching.count >= 2)
        try await api.run { client async throws in
            let first = try await client.call(.get, "/v1/products?q=desk&limit=1", token: token)
            #expect(first.json["totalCount"] as? Int == matching.count)
            let cursor = try #require(first.json["nextCursor"] as? String)
            let elsewhere = try await client.call(.get, "/v1/products?q=coffee&cursor=\(cursor)", token: token)
            #expect(elsewhere.status == .badRequest)
            #expect(elsewhere.problemType == "urn:storefront:problem:invalid-request")
            let forged = try await client.call(.get, "/v1/products?cursor=not-a-cursor", token: token)
            #expect(forged.status == .badRequest)
            // A cursor that decodes to an offset near Int.max is refused before `offset + limit` is made, in every list.
            for (path, query) in [("/v1/products", ""), ("/v1/products", "desk"), ("/v1/orders", "orders")] {
                let huge = Data("v1:9223372036854775807:\(query)".utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                let reply = try await client.call(
                    .get, "\(path)?\(query.isEmpty || query == "orders" ? "" : "q=\(query)&")cursor=\(huge)&limit=100", token: token)
                #expect(reply.status == .badRequest, "\(path) \(query): \(reply.text)")
            }
            #expect(try await api.catalog.page(matching: "", offset: .max, limit: 100).isEmpty, "the store's own window never overflows")
            #expect(try await api.catalog.page(matching: "desk", offset: 1, limit: .max).count == matching.count - 1)
            let tooMany = try await client.call(.get, "/v1/products?limit=1000", token: token)
            #expect(tooMany.status == .badRequest)
            let notANumber = try await client.call(.get, "/v1/products?limit=many", token: token)
            #expect(notANumber.status == .badRequest)
            #expect(notANumber.problemType == "urn:storefront:problem:invalid-request")
            // The parameter is named as the query's, never as "the body".
            #expect(notANumber.text.contains(#"limit must be a whole number, not \"many\"."#), "\(notANumber.text)")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func settingLinesFillsTheOwnersCartAndZeroTakesALineOut(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        let keycap = try #require(try await api.catalog.product(id: "keycap-dusk"))
        let mug = try #require(try await api.catalog.product(id: "mug-stdout"))
        try await api.run { client async throws in
            #expect(try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 2}"#).status == .ok)
            let cart = try await client.call(.put, "/v1/cart/lines/mug-stdout", token: token, json: #"{"quantity": 1}"#)
            #expect(cart.json["itemCount"] as? Int == 3)
            let subtotal = try #require(cart.json["subtotal"] as? [String: Any])
            #expect(subtotal["amount"] as? Int64 == keycap.price.minorUnits * 2 + mug.price.minorUnits)
            let lines = try #require(cart.json["lines"] as? [[String: Any]])
            #expect(lines.map { $0["productId"] as? String } == ["keycap-dusk", "mug-stdout"])

            let changed = try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 0}"#)
            #expect(changed.json["itemCount"] as? Int == 1)
            #expect(try await client.call(.get, "/v1/cart", token: token).json["itemCount"] as? Int == 1)
        }
        #expect(
            try await api.carts.lines(forCustomer: "ssh:SHA256:shopper") == [
                CartLine(productID: mug.id, name: mug.name, unitPrice: mug.price, quantity: 1)
            ])
        #expect(try await api.carts.lines(forCustomer: "ssh:SHA256:other").isEmpty, "only the token's owner's cart")
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func clearingEmptiesTheCart(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            _ = try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 2}"#)
            let cleared = try await client.call(.delete, "/v1/cart", token: token)
            #expect(cleared.status == .ok)
            #expect(cleared.json["itemCount"] as? Int == 0)
        }
        #expect(try await api.carts.lines(forCustomer: "ssh:SHA256:shopper").isEmpty)
    }

    @Test(
        arguments: AccountRepositoryKind.allCases,
        [
            (#"{"quantity": 100}"#, HTTPResponse.Status.unprocessableContent, "validation-failed"),
            (#"{"quantity": -1}"#, .unprocessableContent, "validation-failed"),
            (#"{"quantity": "two"}"#, .badRequest, "invalid-request"),
            (#"{"amount": 2}"#, .badRequest, "invalid-request"),
            ("not json", .badRequest, "invalid-request"),
        ])
    func aLineThatCannotBeSetChangesNothing(kind: AccountRepositoryKind, _ refused: (body: String, status: HTTPResponse.Status, type: String))
        async throws
    {
        let (body, status, type) = refused
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            _ = try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1}"#)
            let reply = try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: body)
            #expect(reply.status == status, "\(reply.text)")
            #expect(reply.problemType == "urn:storefront:problem:\(type)")
            if status == .unprocessableContent {
                let errors = try #require(reply.json["errors"] as? [[String: Any]])
                #expect(errors.first?["field"] as? String == "quantity")
            }
        }
        #expect(try await api.carts.lines(forCustomer: "ssh:SHA256:shopper").map(\.quantity) == [1])
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func anUnknownProductCannotGoInTheCart(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let reply = try await client.call(.put, "/v1/cart/lines/nothing", token: token, json: #"{"quantity": 1}"#)
            #expect(reply.status == .notFound)
        }
        #expect(try await api.carts.lines(forCustomer: "ssh:SHA256:shopper").isEmpty)
    }
}
