import Clocks
import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopApplication
import ShopBootstrap
import ShopModels
import ShopPorts
import ShopSandbox
import ShopServices
import ShopStripe
import StorefrontTesting
import Testing

@testable import ShopAPI

/// A card whose bank wants its check (3-D Secure) bought through the API on the Stripe fake: a 202 naming the bank's
/// page, the order followed until the check passes, and an order whose check is never done given up with its stock.
@Suite("API bank checks", .serialized, .ownThreads)
struct APIBankCheckTests {
    @Test func theBanksPageIsNamedTheOrderIsPaidOnceTheCheckPassesAndAnAbandonedOneIsVoided() async throws {
        let fake = try StripeFake()
        // SQLite: the orders and the stock they hold are one database, as in a shop.
        let api = try await APIHarness(.sqlite)
        let token = try await api.makeToken()
        let owner = "ssh:SHA256:shopper"
        let key = try StripeSecretKey(StripeFake.secretKey)
        let client = StripeClient(key: key, base: try #require(URL(string: fake.base)), connectTimeout: .milliseconds(300), clock: ImmediateClock())
        let references = InMemoryProviderReferences()
        let returnURL = try #require(URL(string: "https://shop.example/thanks"))
        let provider = StripePaymentProvider(
            client: client, key: key, references: references, cardPage: (.usd, returnURL), rawCardData: false, onTypedCardsRefused: { _ in })
        let processor = StripeChargeProcessor(client: client, key: key, references: references, returnURL: returnURL)
        let payments = PaymentStack(provider: provider, processor: processor, refunds: processor, close: {})
        let commerce = api.storage.apiCommerce(payments, environment: [:], dates: DateSource { api.now })
        let backend = api.storage.merchantBackend(payments, environment: [:], dates: DateSource { api.now })
        // The card comes from Stripe's page, as it does for a shopper with a real Stripe account.
        let pages = try #require(provider.hostedCardSetup)
        let link = try await pages.startCardSetup(forCustomer: owner)
        try fake.completeCheckoutSession(link.id, card: "4000002500003155")
        guard case .completed(let card) = try await pages.cardSetupState(link) else {
            Issue.record("the page completed")
            return
        }
        try await api.wallets.addCard(card, forCustomer: owner, makeDefault: true)
        let before = try #require(try await api.stock.stockLevels().first { $0.productID == "keycap-dusk" })

        try await api.run(commerce: commerce) { client async throws in
            #expect(try await client.call(.post, "/v1/addresses", token: token, json: APIOrdersTests.address).status == .created)
            #expect(try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1}"#).status == .ok)
            let waiting = try await client.order(token, key: "checked", json: "{}")
            #expect(waiting.status == .accepted, "\(waiting.text)")
            #expect(waiting.json["status"] as? String == "charging")
            let next = try #require(waiting.json["nextAction"] as? [String: Any])
            #expect(next["type"] as? String == "redirectToUrl" && (next["url"] as? String)?.hasPrefix("http") == true, "\(next)")
            let number = try #require(waiting.json["number"] as? String)
            #expect(try await client.call(.get, "/v1/orders/\(number)", token: token).json["status"] as? String == "charging")

            let intent = try #require(try fake.objects("payment_intents").last?["id"] as? String)
            try fake.authenticate(intent, succeed: true)
            #expect(try await client.call(.get, "/v1/orders/\(number)", token: token).json["status"] as? String == "paid", "followed to paid")

            // A second order whose check is never done: given up at the window, its stock back.
            #expect(try await client.call(.put, "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 2}"#).status == .ok)
            let abandoned = try await client.order(token, key: "never-checked", json: "{}")
            #expect(abandoned.status == .accepted)
            let second = try #require(abandoned.json["number"] as? String)
            let held = try #require(try await api.stock.stockLevels().first { $0.productID == "keycap-dusk" })
            #expect(held.onHand == before.onHand - 3, "both orders hold their stock while they wait")
            let swept = try await backend.reconcile(minimumAge: .zero)
            #expect(swept.settled.map(\.0) == [second])
            #expect(try await client.call(.get, "/v1/orders/\(second)", token: token).json["status"] as? String == "voided")
        }
        let after = try #require(try await api.stock.stockLevels().first { $0.productID == "keycap-dusk" })
        #expect(after.onHand == before.onHand - 1, "the abandoned order's stock is released")
        try await client.shutdown()
    }
}
