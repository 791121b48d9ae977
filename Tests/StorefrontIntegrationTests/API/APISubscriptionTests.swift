import Foundation
import HummingbirdTesting
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

@testable import ShopAPI

/// The merchant's subscriptions through the API: by state and paged, one with its history, the renewals to come with
/// their goods, and a cancel; a shopper's token reaches none of it. A shopper subscribes with an order, and lists,
/// reads and changes their own subscriptions; another's reads as none.
@Suite("API subscriptions", .ownThreads)
struct APISubscriptionTests {
    @Test(arguments: AccountRepositoryKind.allCases)
    func theMerchantListsSeesOneCancelsItAndSeesTheRenewalsToCome(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        // Three subscriptions to a Dusk Keycap Set ($64.00) every two weeks, due 1, 2 and 3 days from the harness's now.
        for day in 1...3 {
            try await api.subscriptions.create(
                Subscription(
                    id: "sub_\(day)", customerID: "acct_\(day)", productID: "keycap-dusk", quantity: 1, intervalWeeks: 2,
                    renewsAt: api.now.addingTimeInterval(Double(day) * RenewalSchedule.day), cardID: "card_ok_visa_4242",
                    cardDescription: "Visa ••4242", shipTo: Fixtures.jane, shippingMethodID: "standard"),
                event: SubscriptionEvent(at: api.now, actor: "shopper:acct_\(day)", kind: "created", detail: ""))
        }
        try await api.run { client async throws in
            let first = try await client.call(.get, "/v1/merchant/subscriptions?status=active&limit=2", token: merchant)
            #expect(first.status == .ok, "\(first.text)")
            #expect((first.json["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["sub_1", "sub_2"])
            let cursor = try #require(first.json["nextCursor"] as? String)
            let second = try await client.call(.get, "/v1/merchant/subscriptions?status=active&limit=2&cursor=\(cursor)", token: merchant)
            #expect((second.json["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["sub_3"] && second.json["nextCursor"] == nil)
            #expect(try await client.call(.get, "/v1/merchant/subscriptions", token: shopper).status == .forbidden)

            // In 17 days: days 1 and 15, 2 and 16, and 3 (its next, day 17, is past the window): five renewals of $64.00.
            let upcoming = try await client.call(.get, "/v1/merchant/renewals?days=17", token: merchant)
            #expect((upcoming.json["data"] as? [[String: Any]])?.count == 5, "\(upcoming.text)")
            #expect((upcoming.json["goods"] as? [[String: Any]])?.first?["amount"] as? Int == 5 * 6_400)

            let canceled = try await client.call(.post, "/v1/merchant/subscriptions/sub_2/cancel", token: merchant, json: #"{"when": "now"}"#)
            #expect(canceled.status == .ok && canceled.json["status"] as? String == "canceled", "\(canceled.text)")
            #expect((canceled.json["history"] as? [[String: Any]])?.last?["actor"] as? String == "merchant:ssh:SHA256:admin")
            #expect(
                try await client.call(.post, "/v1/merchant/subscriptions/sub_2/cancel", token: merchant, json: #"{"when": "now"}"#).status
                    == .conflict)
            #expect(try await client.call(.get, "/v1/merchant/subscriptions/sub_none", token: merchant).status == .notFound)
            let shown = try await client.call(.get, "/v1/merchant/subscriptions/sub_2", token: merchant)
            #expect((shown.json["history"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["created", "canceled"])
            let listedCanceled = try await client.call(.get, "/v1/merchant/subscriptions?status=canceled", token: merchant)
            #expect((listedCanceled.json["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["sub_2"])
            #expect(try await client.call(.get, "/v1/merchant/renewals?days=0", token: merchant).status == .badRequest)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aShopperSubscribesWithAnOrderAndChangesTheirSubscription(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let shopper = try await api.makeToken()
        let mallory = try await api.makeToken(owner: "ssh:SHA256:mallory")
        try await api.run { client async throws in
            #expect(try await client.call(.post, "/v1/addresses", token: shopper, json: APIOrdersTests.address).status == .created)
            #expect(try await client.call(.post, "/v1/cards", token: shopper, json: #"{"testCard": "card_ok_visa_4242"}"#).status == .created)
            let other = try await client.call(.post, "/v1/cards", token: shopper, json: #"{"testCard": "card_ok_mastercard_4444"}"#)
            let otherCard = try #require(other.json["id"] as? String)
            let line = #"{"quantity": 1, "sku": "coffee-beans-filter-250g"}"#
            #expect(try await client.call(.put, "/v1/cart/lines/coffee-beans", token: shopper, json: line).status == .ok)
            // Every 3 weeks is not one of the coffee's intervals: refused before anything is charged.
            let odd = try await client.order(shopper, key: "sub-0", json: #"{"subscribeEveryWeeks": 3}"#)
            #expect(odd.status == .unprocessableContent, "\(odd.text)")
            #expect((odd.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "subscribeEveryWeeks")
            let paid = try await client.order(shopper, key: "sub-1", json: #"{"subscribeEveryWeeks": 2}"#)
            #expect(paid.status == .created, "\(paid.text)")
            let number = try #require(paid.json["number"] as? String)

            let listed = try await client.call(.get, "/v1/subscriptions", token: shopper)
            let data = try #require(listed.json["data"] as? [[String: Any]])
            #expect(data.count == 1 && data.first?["id"] as? String == "sub_\(number)" && data.first?["intervalWeeks"] as? Int == 2)
            #expect(data.first?["sku"] as? String == "coffee-beans-filter-250g" && data.first?["card"] as? String == "Visa ••4242")
            let id = "sub_\(number)"
            #expect((try await client.call(.get, "/v1/subscriptions", token: mallory).json["data"] as? [Any])?.isEmpty == true)
            #expect(try await client.call(.get, "/v1/subscriptions/\(id)", token: mallory).status == .notFound)
            let stolen = try await client.call(.post, "/v1/subscriptions/\(id)/changes", token: mallory, json: #"{"change": "cancel_now"}"#)
            #expect(stolen.status == .notFound)

            func change(_ json: String) async throws -> APIReply {
                try await client.call(.post, "/v1/subscriptions/\(id)/changes", token: shopper, json: json)
            }
            #expect(try await change(#"{"change": "skip_next"}"#).json["skipsNext"] as? Bool == true)
            #expect(try await change(#"{"change": "interval", "intervalWeeks": 4}"#).json["intervalWeeks"] as? Int == 4)
            let odder = try await change(#"{"change": "interval", "intervalWeeks": 3}"#)
            #expect(odder.status == .conflict && odder.text.contains("Choose every 1, 2, 4 weeks."), "\(odder.text)")
            #expect(try await change(#"{"change": "interval"}"#).status == .unprocessableContent)
            #expect(try await change(#"{"change": "card", "cardId": "\#(otherCard)"}"#).json["card"] as? String == "Mastercard ••4444")
            #expect(try await change(#"{"change": "card", "cardId": "card_nope"}"#).status == .unprocessableContent)
            // An address the shop does not ship to (saved before its regions changed, say): the subscription is not moved.
            let reykjavik = Contact(
                id: "addr-reykjavik", name: "Ada Lovelace", email: "ada@example.com", phone: "",
                address: PostalAddress(street: "Laugavegur 1", city: "Reykjavík", postalCode: "101", countryCode: "IS"))
            try await api.wallets.addAddress(reykjavik, forCustomer: "ssh:SHA256:shopper", makeDefault: false)
            let moved = try await change(#"{"change": "ship_to", "addressId": "addr-reykjavik"}"#)
            #expect(moved.status == .unprocessableContent && moved.text.contains("ships only to"), "\(moved.text)")
            #expect(try await change(#"{"change": "pause"}"#).json["status"] as? String == "paused")
            #expect(try await change(#"{"change": "pause"}"#).status == .conflict)
            #expect(try await change(#"{"change": "resume"}"#).json["status"] as? String == "active")
            let ending = try await change(#"{"change": "cancel_at_period_end"}"#)
            #expect(ending.json["endsAtPeriodEnd"] as? Bool == true)
            let shown = try await client.call(.get, "/v1/subscriptions/\(id)", token: shopper)
            #expect(
                (shown.json["history"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
                    == ["created", "changed", "changed", "changed", "paused", "resumed", "canceled"])
        }
        #expect(try await api.orders.count(customer: "ssh:SHA256:shopper") == 1, "the refused interval charged nothing")
    }
}
