import Foundation
import HummingbirdTesting
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

@testable import ShopAPI

/// The merchant's subscriptions through the API: by state and paged, one with its history, the renewals to come with
/// their goods, and a cancel; a shopper's token reaches none of it.
@Suite("API subscriptions")
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
}
