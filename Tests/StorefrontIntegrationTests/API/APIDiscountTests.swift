import Foundation
import HummingbirdTesting
import ShopModels
import ShopPorts
import Testing

@testable import ShopAPI

/// Discount codes through the API: the merchant makes, lists, pauses and deletes them, checked as the command checks
/// them; a shopper's order takes one and shows what it took off, and a code that does not apply is a 422 saying why.
@Suite("API discount codes", .ownThreads)
struct APIDiscountTests {
    @Test(arguments: AccountRepositoryKind.allCases)
    func theMerchantMakesACodeAndAShoppersOrderUsesIt(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            let made = try await client.call(
                .post, "/v1/merchant/discounts", token: merchant, json: #"{"code": "launch-10", "percent": "10", "usesPerCustomer": 1}"#)
            #expect(made.status == .created, "\(made.text)")
            #expect(
                made.json["code"] as? String == "LAUNCH-10" && made.json["basisPoints"] as? Int == 1_000 && made.json["status"] as? String == "active"
            )
            let again = try await client.call(.post, "/v1/merchant/discounts", token: merchant, json: #"{"code": "LAUNCH-10", "freeShipping": true}"#)
            #expect(again.status == .conflict)
            // The command's checks, each naming the API's field.
            let both = try await client.call(
                .post, "/v1/merchant/discounts", token: merchant, json: #"{"code": "TWO", "percent": "5", "amount": "1.00"}"#)
            #expect(both.status == .unprocessableContent && both.text.contains("one of percent, amount or freeShipping"), "\(both.text)")
            let late = try await client.call(
                .post, "/v1/merchant/discounts", token: merchant,
                json: #"{"code": "LATE", "freeShipping": true, "startsAt": "2027-01-02", "endsAt": "2027-01-01"}"#)
            #expect(late.status == .unprocessableContent && late.text.contains("endsAt must come after startsAt"), "\(late.text)")
            // A code only for a product the catalog does not have would never apply: refused, naming it.
            let nowhere = try await client.call(
                .post, "/v1/merchant/discounts", token: merchant, json: #"{"code": "GHOST", "percent": "5", "onlyFor": ["keycap-dusk", "no-such"]}"#)
            #expect(nowhere.status == .unprocessableContent && nowhere.text.contains("the catalog has no product no-such"), "\(nowhere.text)")
            // A shopper's token cannot make codes.
            #expect(
                try await client.call(.post, "/v1/merchant/discounts", token: shopper, json: #"{"code": "MINE", "percent": "100"}"#).status
                    == .forbidden)

            try await APIOrdersTests.ready(client, shopper)
            let unknown = try await client.order(shopper, key: "o-0", json: #"{"discountCode": "LAUNCH-11"}"#)
            #expect(unknown.status == .unprocessableContent && unknown.text.contains(DiscountRefusal.unknown.line), "\(unknown.text)")
            let bought = try await client.order(shopper, key: "o-1", json: #"{"discountCode": "launch-10"}"#)
            #expect(bought.status == .created, "\(bought.text)")
            // Two keycaps, $128.00: $12.80 off, shared across the one line.
            let discount = try #require(bought.json["discount"] as? [String: Any])
            #expect(discount["code"] as? String == "LAUNCH-10" && (discount["total"] as? [String: Any])?["amount"] as? Int == 1_280)
            let lines = try #require(bought.json["lines"] as? [[String: Any]])
            #expect((lines.first?["discount"] as? [String: Any])?["amount"] as? Int == 1_280)
            let totals = ["subtotal", "shipping", "tax", "total"].map { ((bought.json[$0] as? [String: Any])?["amount"] as? Int) ?? -1 }
            #expect(totals[3] == totals[0] + totals[1] - 1_280 + totals[2])

            // Used once by this customer: the next order is told so.
            #expect(try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: shopper, json: #"{"quantity": 1}"#).status == .ok)
            let twice = try await client.order(shopper, key: "o-2", json: #"{"discountCode": "LAUNCH-10"}"#)
            #expect(twice.status == .unprocessableContent && twice.text.contains(DiscountRefusal.usedByYou.line), "\(twice.text)")

            let listed = try await client.call(.get, "/v1/merchant/discounts", token: merchant)
            let codes = try #require(listed.json["data"] as? [[String: Any]])
            #expect(codes.map { $0["code"] as? String } == ["LAUNCH-10"] && codes.first?["uses"] as? Int == 1)
            let paused = try await client.call(.put, "/v1/merchant/discounts/launch-10/status", token: merchant, json: #"{"status": "paused"}"#)
            #expect(paused.status == .ok && paused.json["status"] as? String == "paused", "\(paused.text)")
            #expect(try await client.call(.delete, "/v1/merchant/discounts/LAUNCH-10", token: merchant).status == .conflict, "an order used it")
            #expect(try await client.call(.delete, "/v1/merchant/discounts/NOPE", token: merchant).status == .notFound)

            // A code that leaves nothing to pay makes no order: 422 on the code, before any charge.
            let free = try await client.call(.post, "/v1/merchant/discounts", token: merchant, json: #"{"code": "ALLFREE", "percent": "100"}"#)
            #expect(free.status == .created, "\(free.text)")
            let nothing = try await client.order(shopper, key: "o-3", json: #"{"discountCode": "ALLFREE"}"#)
            #expect(nothing.status == .unprocessableContent && nothing.text.contains("which a card cannot pay"), "\(nothing.text)")
            #expect(nothing.text.contains("discountCode"), "the field named: \(nothing.text)")
        }
        #expect(try await api.storage.discounts.code("LAUNCH-10")?.isPaused == true)
    }

    /// Guessing codes through the API meets the sheet's limit: ten unknown (or paused) codes, then the real one is
    /// refused too, 429 with how long to wait; tokens of another account from the same address buy no more tries; an
    /// hour later, guesses are back.
    @Test(arguments: AccountRepositoryKind.allCases)
    func tenUnknownCodesThenEvenTheRealOneWaits(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        let other = try await api.makeToken(owner: "ssh:SHA256:other")
        try await api.run { client async throws in
            #expect(
                try await client.call(.post, "/v1/merchant/discounts", token: merchant, json: #"{"code": "REAL-5", "percent": "5"}"#).status
                    == .created)
            #expect(
                try await client.call(.post, "/v1/merchant/discounts", token: merchant, json: #"{"code": "NAP", "percent": "5"}"#).status == .created)
            #expect(try await client.call(.put, "/v1/merchant/discounts/NAP/status", token: merchant, json: #"{"status": "paused"}"#).status == .ok)
            try await APIOrdersTests.ready(client, shopper)
            for guess in 0..<CodeGuesses.burst {
                let code = guess == 0 ? "NAP" : "GUESS-\(guess)"
                let wrong = try await client.order(shopper, key: "g-\(guess)", json: #"{"discountCode": "\#(code)"}"#)
                #expect(wrong.status == .unprocessableContent && wrong.text.contains(DiscountRefusal.unknown.line), "\(wrong.text)")
            }
            let real = try await client.order(shopper, key: "g-real", json: #"{"discountCode": "REAL-5"}"#)
            #expect(real.status == .tooManyRequests && real.headers[.retryAfter] != nil, "\(real.text)")
            #expect((real.json["detail"] as? String)?.contains("Too many discount codes") == true, "\(real.text)")
            try await APIOrdersTests.ready(client, other)
            let fromTheSameAddress = try await client.order(other, key: "o-real", json: #"{"discountCode": "REAL-5"}"#)
            #expect(fromTheSameAddress.status == .tooManyRequests, "another account, the same address: \(fromTheSameAddress.text)")

            api.advance(.seconds(3_600))
            let later = try await client.order(shopper, key: "g-later", json: #"{"discountCode": "REAL-5"}"#)
            #expect(later.status == .created, "\(later.text)")
        }
    }
}
