import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSandbox
import Testing

@testable import ShopAPI

/// Wallets, orders and the merchant's shipping through the API, on the sandbox's payments.
@Suite("API wallet and orders", .ownThreads)
struct APIOrdersTests {
    static let address =
        #"{"name": "Ada Lovelace", "email": "ada@example.com", "street": "1 Loop Road", "city": "Cupertino", "region": "CA", "postalCode": "95014", "countryCode": "US"}"#

    /// An address, a card and two keycaps: what a purchase needs.
    static func ready(_ client: any TestClientProtocol, _ token: PersonalAccessToken, card: String = "card_ok_visa_4242") async throws {
        #expect(try await client.call(.post, "/v1/addresses", token: token, json: address).status == .created)
        let added = try await client.call(.post, "/v1/cards", token: token, json: #"{"testCard": "\#(card)"}"#)
        #expect(added.status == .created, "\(added.text)")
        #expect(try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 2}"#).status == .ok)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func anOrderIsPaidOnceAndItsKeyGivesTheSameOrderAgain(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            try await Self.ready(client, token)
            let created = try await client.order(token, key: "order-1", json: "{}")
            #expect(created.status == .created, "\(created.text)")
            let number = try #require(created.json["number"] as? String)
            #expect(created.json["status"] as? String == "paid")
            #expect((created.json["total"] as? [String: Any])?["currency"] as? String == "USD")
            #expect((created.json["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == ["placed", "charged"])
            #expect(try await client.call(.get, "/v1/cart", token: token).json["itemCount"] as? Int == 0, "the cart is bought")

            let again = try await client.order(token, key: "order-1", json: "{}")
            #expect(again.status == .created)
            #expect(again.json["number"] as? String == number, "the same key and body: the same order")
            let other = try await client.order(token, key: "order-1", json: #"{"shippingMethod": "express"}"#)
            #expect(other.status == .unprocessableContent)
            #expect(other.problemType == "urn:storefront:problem:idempotency-key-reused")

            let list = try await client.call(.get, "/v1/orders", token: token)
            #expect(list.json["totalCount"] as? Int == 1)
            let shown = try await client.call(.get, "/v1/orders/\(number)", token: token)
            #expect(shown.json["status"] as? String == "paid")
        }
        #expect(try await api.orders.count(customer: "ssh:SHA256:shopper") == 1, "one order, charged once")
        #expect(
            try await api.processor.recordedCharge(forKey: "api_" + Encodings.sha256Hex("ssh:SHA256:shopper\norder-1").prefix(32))?.outcome
                == .succeeded)
    }

    /// The address decides the market, as on the sheet: a Berlin address buys in euros at the catalog's rates, the
    /// order keeps its rate, and the `Accept-Language` it was bought with, for its mails.
    @Test func anOrderToBerlinIsChargedInEurosAndKeepsItsBuyersLanguage() async throws {
        let api = try await APIHarness(.sqlite)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let berlin =
                #"{"name": "Max Müller", "email": "max@example.de", "street": "Torstraße 5", "city": "Berlin", "postalCode": "10119", "countryCode": "DE"}"#
            #expect(try await client.call(.post, "/v1/addresses", token: token, json: berlin).status == .created)
            #expect(try await client.call(.post, "/v1/cards", token: token, json: #"{"testCard": "card_ok_visa_4242"}"#).status == .created)
            #expect(try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1}"#).status == .ok)
            let created = try await client.order(token, key: "berlin-1", json: "{}", language: "de-DE,de;q=0.9,en;q=0.5")
            #expect(created.status == .created, "\(created.text)")
            // $64.00 in the Europe market: €56 (whole euros), DHL €15, VAT included.
            let total = created.json["total"] as? [String: Any]
            #expect(total?["currency"] as? String == "EUR" && total?["amount"] as? Int == 7_100, "\(created.text)")
            let number = try #require(created.json["number"] as? String)
            let order = try #require(try await api.storage.orders.order(number: number))
            #expect(order.language == "de-DE")
            #expect(order.exchange?.rate == "0.86430424" && order.totals.total == Money(minorUnits: 7_100, currency: .eur))
            let cart = try await client.call(.get, "/v1/cart", token: token)
            #expect(cart.json["itemCount"] as? Int == 0, "the cart is bought")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aDeclinedCardIsA402AndTheCartStays(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            try await Self.ready(client, token, card: "card_insufficientFunds_visa_9995")
            let refused = try await client.order(token, key: "k", json: "{}")
            #expect(refused.status.code == 402, "\(refused.text)")
            #expect(refused.problemType == "urn:storefront:problem:payment-failed")
            #expect((refused.json["detail"] as? String)?.contains("insufficient funds") == true)
            #expect(try await client.call(.get, "/v1/cart", token: token).json["itemCount"] as? Int == 2)
            #expect(try await client.call(.get, "/v1/orders", token: token).json["totalCount"] as? Int == 0, "a declined order is not shown")

            // Asked in German, the decline is in the shopper's German, and says so; a refused code too.
            let german = try await client.order(token, key: "k-de", json: "{}", language: "de-DE")
            #expect(german.status.code == 402 && german.headers[.contentLanguage] == "de", "\(german.text)")
            #expect(german.json["detail"] as? String == "Ihre Karte ist nicht ausreichend gedeckt.", "\(german.text)")
            #expect(german.json["title"] as? String == "The payment did not go through", "the API's own words stay English")
            let code = try await client.order(token, key: "k-de-code", json: #"{"discountCode": "NOSUCH"}"#, language: "de-DE")
            #expect(code.json["detail"] as? String == "discountCode: Diesen Code gibt es in diesem Shop nicht.", "\(code.text)")
            let errors = code.json["errors"] as? [[String: Any]]
            #expect(errors?.first?["message"] as? String == "That code is not one this shop has.", "a field's message stays the API's own")
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func whatAnOrderNeedsIsNamedWhenItIsMissing(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let empty = try await client.order(token, key: "a", json: "{}")
            #expect(empty.status == .unprocessableContent)
            #expect((empty.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "cart")
            _ = try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1}"#)
            let noAddress = try await client.order(token, key: "b", json: "{}")
            #expect((noAddress.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "addressId")
            _ = try await client.call(.post, "/v1/addresses", token: token, json: Self.address)
            let noCard = try await client.order(token, key: "c", json: "{}")
            #expect((noCard.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "cardId")
            let noKey = try await client.call(.post, "/v1/orders", token: token, json: "{}")
            #expect(noKey.status == .badRequest, "Idempotency-Key is required")
            #expect(noKey.problemType == "urn:storefront:problem:invalid-request")
        }
        #expect(try await api.orders.count(customer: nil) == 0)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func anAddressIsCheckedAsTheShopsFormChecksIt(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        try await api.run { client async throws in
            let abroad = try await client.call(
                .post, "/v1/addresses", token: token,
                json:
                    #"{"name": "Jo", "email": "jo@example.com", "street": "Laugavegur 7", "city": "Reykjavik", "postalCode": "101", "countryCode": "IS"}"#
            )
            #expect(abroad.status == .unprocessableContent)
            #expect((abroad.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "countryCode")
            let bad = try await client.call(
                .post, "/v1/addresses", token: token,
                json: #"{"name": "", "email": "nope", "street": "1 Loop", "city": "X", "postalCode": "9", "countryCode": "US"}"#)
            let fields = Set((bad.json["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["name", "email", "region", "postalCode"])
            // The form takes "Germany"; the API's field is the code its schema names.
            let named = try await client.call(
                .post, "/v1/addresses", token: token,
                json:
                    #"{"name": "Max", "email": "max@example.de", "street": "Hauptstr. 1", "city": "Berlin", "postalCode": "10115", "countryCode": "Germany"}"#
            )
            #expect(named.status == .unprocessableContent)
            #expect(
                (named.json["errors"] as? [[String: Any]])?.map { "\($0["field"] ?? ""): \($0["message"] ?? "")" }
                    == ["countryCode: Enter the country's two-letter code (ISO 3166-1), such as US or DE."])
            let unknown = try await client.call(
                .post, "/v1/addresses", token: token,
                json:
                    #"{"name": "Max", "email": "max@example.de", "street": "Hauptstr. 1", "city": "Berlin", "postalCode": "10115", "countryCode": "XX"}"#
            )
            #expect(
                (unknown.json["errors"] as? [[String: Any]])?.map { "\($0["field"] ?? ""): \($0["message"] ?? "")" }
                    == ["countryCode: Enter the country's two-letter code (ISO 3166-1), such as US or DE."],
                "not the form's words, which offer a name")
            let card = try await client.call(.post, "/v1/cards", token: token, json: #"{"testCard": "4242424242424242"}"#)
            #expect(card.status == .badRequest, "a card number is never taken: only a test card's name")
            #expect((try await client.call(.get, "/v1/addresses", token: token).json["data"] as? [Any])?.isEmpty == true)
            #expect(try await client.call(.delete, "/v1/addresses/addr_nothing", token: token).status == .notFound)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func savedEntriesAreListedDefaultFirstAndRemovedOnlyByTheirOwner(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let token = try await api.makeToken()
        let stranger = try await api.makeToken(owner: "ssh:SHA256:stranger")
        try await api.run { client async throws in
            let address = try #require(try await client.call(.post, "/v1/addresses", token: token, json: Self.address).json["id"] as? String)
            let first = try await client.call(.post, "/v1/cards", token: token, json: #"{"testCard": "card_ok_visa_4242"}"#)
            #expect(first.json["isDefault"] as? Bool == true, "the first card becomes the default")
            let second = try await client.call(
                .post, "/v1/cards", token: token, json: #"{"testCard": "card_ok_mastercard_4444", "makeDefault": true}"#)
            #expect(second.json["isDefault"] as? Bool == true)
            let cards = try await client.call(.get, "/v1/cards", token: token)
            #expect((cards.json["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["card_ok_mastercard_4444", "card_ok_visa_4242"])
            #expect((cards.json["data"] as? [[String: Any]])?.first?["lastFour"] as? String == "4444")

            #expect(try await client.call(.delete, "/v1/cards/card_ok_visa_4242", token: stranger).status == .notFound, "not theirs")
            #expect(try await client.call(.delete, "/v1/cards/card_ok_visa_4242", token: token).status == .noContent)
            #expect(try await client.call(.delete, "/v1/addresses/\(address)", token: token).status == .noContent)
            #expect((try await client.call(.get, "/v1/addresses", token: token).json["data"] as? [Any])?.isEmpty == true)
            #expect((try await client.call(.get, "/v1/cards", token: token).json["data"] as? [Any])?.count == 1)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func theMerchantShipsAPaidOrderAndTheShopperSeesItsTracking(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let shopper = try await api.makeToken()
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let stranger = try await api.makeToken(owner: "ssh:SHA256:stranger")
        try await api.run { client async throws in
            try await Self.ready(client, shopper)
            let number = try #require(try await client.order(shopper, key: "k", json: "{}").json["number"] as? String)
            let queue = try await client.call(.get, "/v1/merchant/orders?status=paid", token: merchant)
            #expect((queue.json["data"] as? [[String: Any]])?.compactMap { $0["number"] as? String } == [number])

            let blank = try await client.call(
                .post, "/v1/merchant/orders/\(number)/ship", token: merchant, json: #"{"carrier": " ", "trackingNumber": "1Z999"}"#)
            #expect(blank.status == .unprocessableContent)
            let shipped = try await client.call(
                .post, "/v1/merchant/orders/\(number)/ship", token: merchant, json: #"{"carrier": "UPS", "trackingNumber": "1Z999"}"#)
            #expect(shipped.status == .ok, "\(shipped.text)")
            #expect(shipped.json["status"] as? String == "shipped")
            let twice = try await client.call(
                .post, "/v1/merchant/orders/\(number)/ship", token: merchant, json: #"{"carrier": "UPS", "trackingNumber": "1Z999"}"#)
            #expect(twice.status == .conflict)
            #expect(
                try await client.call(
                    .post, "/v1/merchant/orders/SF-999999/ship", token: merchant, json: #"{"carrier": "UPS", "trackingNumber": "1"}"#
                ).status == .notFound)

            let seen = try await client.call(.get, "/v1/orders/\(number)", token: shopper)
            let tracking = try #require(seen.json["tracking"] as? [String: Any])
            #expect(tracking["trackingNumber"] as? String == "1Z999")
            let events = try #require(seen.json["events"] as? [[String: Any]])
            #expect(events.last?["type"] as? String == "shipped")
            #expect(events.last?["actor"] as? String == "merchant:ssh:SHA256:admin", "recorded as the token's owner")
            #expect(
                try await client.call(.get, "/v1/orders/\(number)", token: stranger).status == .notFound, "another shopper's order is unknown to them"
            )
        }
    }
}

extension TestClientProtocol {
    /// `POST /v1/orders` under `key`, asking for `language` where one is given.
    func order(_ token: PersonalAccessToken, key: String, json: String, language: String? = nil) async throws -> APIReply {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token.secret)"
        headers[.contentType] = "application/json"
        headers[HTTPField.Name("Idempotency-Key")!] = key
        if let language { headers[.acceptLanguage] = language }
        return try await execute(uri: "/v1/orders", method: .post, headers: headers, body: ByteBuffer(string: json)) { response in
            APIReply(status: response.status, headers: response.headers, body: Data(buffer: response.body))
        }
    }
}
