import Clocks
import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import ShopStripe
import StorefrontTesting
import Synchronization
import Testing

/// The Stripe adapter against the fake that holds what localstripe does not: Stripe's card page, raw card numbers
/// refused, idempotency keys, and Stripe's rules for amounts and customers.
@Suite("Stripe adapter on the fake", .ownThreads)
struct StripeFakeTests {
    typealias Contract = PaymentProviderContractTests
    static let returnURL = URL(string: "https://shop.example/thanks")!

    /// A provider and processor pointed at `fake`; `rawCardData` as the operator's setting.
    static func withStripe(
        _ fake: StripeFake, references: any ProviderReferenceRepository = InMemoryProviderReferences(), rawCardData: Bool = false,
        currency: Currency = .usd, log: @escaping @Sendable (String) -> Void = { _ in },
        _ body: (StripePaymentProvider, StripeChargeProcessor) async throws -> Void
    ) async throws {
        let key = try StripeSecretKey(StripeFake.secretKey)
        let client = StripeClient(key: key, base: try #require(URL(string: fake.base)), connectTimeout: .milliseconds(300), clock: ImmediateClock())
        let provider = StripePaymentProvider(
            client: client, key: key, references: references, cardPage: (currency, returnURL), rawCardData: rawCardData, onTypedCardsRefused: log
        )
        do {
            try await body(provider, StripeChargeProcessor(client: client, key: key, references: references))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test func aCardAddedOnStripesPageIsReadFromStripeAndCharged() async throws {
        let fake = try StripeFake()
        try await Self.withStripe(fake) { provider, processor in
            #expect(provider.cardCollection == .onTheProvidersPage)
            let pages = try #require(provider.hostedCardSetup)
            let link = try await pages.startCardSetup(forCustomer: "guest")
            #expect(link.url.hasPrefix(fake.base + "/c/pay/\(link.id)"))
            #expect(try await pages.cardSetupState(link) == .open)
            // The SetupIntent already names the card while Stripe's page is still open: not saved until it completes.
            try fake.fillCheckoutSession(link.id, card: "5555555555554444")
            #expect(try await pages.cardSetupState(link) == .open, "a session not complete saves no card")
            try fake.completeCheckoutSession(link.id, card: "5555555555554444")
            guard case .completed(let card) = try await pages.cardSetupState(link) else {
                Issue.record("the page was completed")
                return
            }
            #expect(card.network == .mastercard && card.lastFour == "4444" && card.expiry == CardExpiry(month: 12, year: 2030))
            let token = try await provider.createToken(for: Contract.payment(with: card))
            #expect(try await processor.charge(Contract.request(token, key: "order-page")).outcome == .succeeded)

            // Removed from the wallet, the card is detached from its Customer at Stripe too.
            let wallet = CardForgettingWalletRepository(InMemoryWalletRepository()) { await provider.forget(cardID: $0) }
            try await wallet.addCard(card, forCustomer: "guest", makeDefault: true)
            #expect(try fake.objects("payment_methods").first { $0["id"] as? String == card.id }?["customer"] is String)
            try await wallet.removeCard(id: card.id, forCustomer: "guest")
            #expect(try fake.objects("payment_methods").first { $0["id"] as? String == card.id }?["customer"] is NSNull, "detached at Stripe")
            #expect(try await wallet.wallet(forCustomer: "guest").cards.isEmpty)
        }
        let session = try #require(try fake.objects("checkout_sessions").first)
        #expect(session["mode"] as? String == "setup" && session["currency"] as? String == "usd")
        let expires = try #require(session["expires_at"] as? Int, "the page's lifetime is set: \(session)")
        #expect(abs(expires - Int(Date().timeIntervalSince1970) - 3_600) < 600, "an hour from now")
        #expect(session["success_url"] as? String == "https://shop.example/thanks?storefront=card-added")
        #expect(session["cancel_url"] as? String == "https://shop.example/thanks?storefront=card-not-added")
    }

    @Test func anExpiredPageSaysSoAndALeftPageIsClosedAtStripe() async throws {
        let fake = try StripeFake()
        try await Self.withStripe(fake) { provider, _ in
            let pages = try #require(provider.hostedCardSetup)
            let expiring = try await pages.startCardSetup(forCustomer: "guest")
            try fake.expireCheckoutSession(expiring.id)
            #expect(try await pages.cardSetupState(expiring) == .expired)
            let left = try await pages.startCardSetup(forCustomer: "guest")
            await pages.cancelCardSetup(left)
            #expect(try await pages.cardSetupState(left) == .expired, "closed at Stripe: its link no longer works")
        }
    }

    @Test func aTypedCardRefusedByTheAccountIsNotACardProblemAndTheLogSaysWhatToChange() async throws {
        let fake = try StripeFake()
        let logged = Mutex<[String]>([])
        try await Self.withStripe(fake, rawCardData: true, log: { line in logged.withLock { $0.append(line) } }) { provider, _ in
            #expect(provider.cardCollection == .typedInTheShop)
            for _ in 0..<2 {
                let card = try Contract.card("4242424242424242")
                do throws(PaymentProviderError) {
                    _ = try await provider.vault(card, forCustomer: "guest")
                    Issue.record("an account without raw card data access takes no typed card")
                } catch {
                    guard case .typedCardsRefused = error else {
                        Issue.record("a raw-card refusal is its own error, not the card's: \(error)")
                        return
                    }
                }
            }
        }
        let lines = logged.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.first?.contains("no raw card data access") == true && lines.first?.contains("Turn stripe-raw-card-data off") == true)
    }

    /// `checkout.session.completed` for the card page is read back from Stripe's records into the card it saved, for
    /// the customer the page was opened for; another session is not the shop's.
    @Test func aCompletedCardPageIsReadAsTheCardItSaved() async throws {
        let fake = try StripeFake()
        let references = InMemoryProviderReferences()
        try await Self.withStripe(fake, references: references) { provider, _ in
            let pages = try #require(provider.hostedCardSetup)
            let link = try await pages.startCardSetup(forCustomer: "ssh:SHA256:ada")
            try fake.completeCheckoutSession(link.id, card: "5555555555554444")
            let session = try #require(try fake.objects("checkout_sessions").first { $0["id"] as? String == link.id })
            let key = try StripeSecretKey(StripeFake.secretKey)
            let client = StripeClient(
                key: key, base: try #require(URL(string: fake.base)), connectTimeout: .milliseconds(300), clock: ImmediateClock())
            let webhook = StripeWebhook(secrets: ["whsec_test"], client: client, references: references)
            func event(_ object: [String: Any]) throws -> [UInt8] {
                Array(try JSONSerialization.data(withJSONObject: ["id": "evt_1", "type": "checkout.session.completed", "data": ["object": object]]))
            }
            let notice = try await webhook.notice(for: try event(session))
            guard case .cardSaved(let customer, let card) = notice else {
                Issue.record("not a saved card: \(notice)")
                return
            }
            #expect(customer == "ssh:SHA256:ada" && card.lastFour == "4444" && card.network == .mastercard && card.id.hasPrefix("pm_"))
            var payment = session
            payment["mode"] = "payment"
            guard case .ignored = try await webhook.notice(for: try event(payment)) else {
                Issue.record("a payment session is not the card page")
                return
            }
            // A session made for another Stripe Customer (another shop on the account) that names Ada adds nothing to hers.
            let eves = try await pages.startCardSetup(forCustomer: "ssh:SHA256:eve")
            try fake.completeCheckoutSession(eves.id, card: "4242424242424242")
            var forged = try #require(try fake.objects("checkout_sessions").first { $0["id"] as? String == eves.id })
            forged["metadata"] = ["storefront_customer": "ssh:SHA256:ada"]
            guard case .ignored(let why) = try await webhook.notice(for: try event(forged)) else {
                Issue.record("a card saved for another Stripe Customer reached Ada's wallet")
                return
            }
            #expect(why.contains("did not file for ssh:SHA256:ada"), "\(why)")
            try await client.shutdown()
        }
    }

    @Test func everyRequestCarriesStripesVersionAndEveryPostAnIdempotencyKey() async throws {
        let fake = try StripeFake(rawCardData: true)
        try await Self.withStripe(fake) { provider, processor in
            let pages = try #require(provider.hostedCardSetup)
            let link = try await pages.startCardSetup(forCustomer: "guest")
            try fake.completeCheckoutSession(link.id)
            guard case .completed(let card) = try await pages.cardSetupState(link) else { return }
            await pages.cancelCardSetup(try await pages.startCardSetup(forCustomer: "guest"))
            let token = try await provider.createToken(for: Contract.payment(with: card))
            _ = try await processor.charge(Contract.request(token, key: "order-headers"))
            // A card its bank declines is refused as it is saved (its SetupIntent), and not left on the customer.
            await #expect(throws: PaymentProviderError.cardRejected(.generic)) {
                try await provider.vault(try Contract.card("4000000000000002"), forCustomer: "guest")
            }
            let typed = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            _ = try await processor.charge(
                Contract.request(try await provider.createToken(for: Contract.payment(with: typed)), key: "order-typed"))
        }
        let declined = try fake.objects("payment_methods").filter { ($0["card"] as? [String: Any])?["last4"] as? String == "0002" }
        #expect(declined.count == 1 && declined.allSatisfy { $0["customer"] is NSNull }, "the declined card was detached")
        let requests = try fake.requests()
        #expect(requests.count >= 12)
        #expect(
            requests.allSatisfy { $0.stripeVersion == StripeClient.apiVersion },
            "\(requests.filter { $0.stripeVersion != StripeClient.apiVersion }.map(\.path))")
        #expect(
            requests.filter { $0.method == "POST" }.allSatisfy { !($0.idempotencyKey ?? "").isEmpty },
            "\(requests.filter { $0.method == "POST" && ($0.idempotencyKey ?? "").isEmpty }.map(\.path))")
        // Keys are per Stripe account, which two shops may share: each charge's keys carry this shop's install id.
        let customerKey = try #require(requests.first { $0.path == "/v1/customers" }?.idempotencyKey)
        let install = String(try #require(customerKey.firstMatch(of: /^storefront-(.+)-customer-/)?.output.1))
        let chargeKeys = requests.filter { $0.method == "POST" && $0.path.hasPrefix("/v1/payment_intents") }.compactMap(\.idempotencyKey)
        #expect(!chargeKeys.isEmpty && chargeKeys.allSatisfy { $0.hasPrefix("storefront-\(install)-order-") }, "\(chargeKeys)")
        #expect(
            Set(requests.map(\.path).map { $0.split(separator: "/").prefix(2).joined(separator: "/") }).isSuperset(of: [
                "v1/customers", "v1/checkout", "v1/setup_intents", "v1/payment_methods", "v1/payment_intents",
            ]))
    }

    @Test func twoShopsOnOneStripeAccountNeverShareACustomerAndOneShopNeverMakesTwo() async throws {
        let fake = try StripeFake()
        var made: [String] = []
        for install in ["shop-a", "shop-b", "shop-a"] {
            // A fresh record each time: as after a lost answer, only the idempotency key finds the customer again.
            try await Self.withStripe(fake, references: InMemoryProviderReferences(installID: install)) { provider, _ in
                let link = try await #require(provider.hostedCardSetup).startCardSetup(forCustomer: "guest")
                made.append(try #require(try fake.objects("checkout_sessions").first { $0["id"] as? String == link.id }?["customer"] as? String))
            }
        }
        #expect(made[0] != made[1], "two shops, two Stripe customers for their own guests")
        #expect(made[0] == made[2], "the same shop finds its customer by the same key")
        let customers = try fake.objects("customers")
        #expect(customers.count == 2)
        #expect(Set(customers.compactMap { ($0["metadata"] as? [String: String])?["storefront_install"] }) == ["shop-a", "shop-b"])
    }

    @Test func amountsGoInStripesUnitsAndWhatStripeCannotChargeIsNotSent() async throws {
        let fake = try StripeFake(rawCardData: true)
        try await Self.withStripe(fake, currency: .jpy) { provider, processor in
            let card = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: card))
            var yen = Contract.request(token, key: "order-yen")
            yen.amount = Money(minorUnits: 1_500, currency: .jpy)
            #expect(try await processor.charge(yen).outcome == .succeeded)
            var dinar = Contract.request(token, key: "order-dinar")
            dinar.amount = Money(minorUnits: 5_124, currency: .kwd)
            await #expect(throws: MerchantBackendError.self) { try await processor.charge(dinar) }
        }
        let intents = try fake.objects("payment_intents")
        #expect(
            intents.map { "\($0["amount"] ?? "") \($0["currency"] ?? "")" } == ["1500 jpy"],
            "¥1,500 is 1500 in Stripe's units; 5.124 KWD was never sent")
    }

    @Test func aRefusedKeyIsToldWithoutQuotingIt() async throws {
        let fake = try StripeFake()
        try fake.refuseTheKey()
        try await Self.withStripe(fake) { provider, _ in
            let pages = try #require(provider.hostedCardSetup)
            do throws(PaymentProviderError) {
                _ = try await pages.startCardSetup(forCustomer: "guest")
                Issue.record("a refused key opens no card page")
            } catch {
                #expect(error == .unavailable("Stripe refused the shop's key"))
                #expect(!"\(error)".contains(StripeFake.secretKey))
            }
        }
        #expect(try fake.requests().map(\.status) == [401], "the customer's creation was refused, and nothing after it was sent")
    }
}

/// Renewals against the fake: charged off-session (`off_session=true` on the confirm), a typed card set up for them by a
/// SetupIntent, a card that asks for the bank's check declined with `authentication_required` until it is set up, and a
/// repeat under the same key never a second charge.
@Suite("Stripe off-session renewals on the fake", .ownThreads)
struct StripeOffSessionTests {
    @Test func aTypedCardIsSetUpForRenewalsAndOneNeedingTheChecksIsDeclinedUntilItIs() async throws {
        let fake = try StripeFake(rawCardData: true)
        try await StripeFakeTests.withStripe(fake, rawCardData: true) { provider, processor in
            func card(_ number: String) async throws -> PaymentToken {
                let method = try await provider.vault(try StripeFakeTests.Contract.card(number), forCustomer: "ssh:SHA256:contract")
                return try await provider.createToken(for: StripeFakeTests.Contract.payment(with: method))
            }
            func renewal(_ token: PaymentToken, key: String) -> ChargeRequest {
                var request = StripeFakeTests.Contract.request(token, key: key)
                request.offSession = true
                return request
            }
            // The subscription's first order, with the shopper there: the card is set up for the renewals.
            var first = StripeFakeTests.Contract.request(try await card("4242424242424242"), key: "order_subscribing")
            first.savesCardForRenewals = true
            #expect(try await processor.charge(first).outcome == .succeeded)
            // A card typed in the shop was set up by a SetupIntent when it was saved: off-session it is charged.
            let typed = try await card("4242424242424242")
            #expect(try await processor.charge(renewal(typed, key: "sub_0_p2_t1")).outcome == .succeeded)
            // The worker asking again under the same key (it stopped before settling) gets the same charge.
            #expect(try await processor.charge(renewal(typed, key: "sub_0_p2_t1")).outcome == .succeeded)
            let strict = try await card("4000002760003184")
            #expect(try await processor.charge(renewal(strict, key: "sub_1_p2_t1")).outcome == .declined(.authenticationRequired))
            // Declined with nobody there, its PaymentIntent is canceled; read again, it is the decline it was.
            #expect(try await processor.recordedCharge(forKey: "sub_1_p2_t1")?.outcome == .declined(.authenticationRequired))
            // 3155's bank asks for its check to set it up: typed in the shop, it was not, so off-session it is declined.
            let unchecked = try await card("4000002500003155")
            #expect(try await processor.charge(renewal(unchecked, key: "sub_2_p2_t1")).outcome == .declined(.authenticationRequired))
        }
        struct Intent: Equatable {
            var savesCard: Bool, offSession: Bool, status: String
        }
        let intents = try fake.objects("payment_intents").map {
            Intent(
                savesCard: $0["setup_future_usage"] as? String == "off_session", offSession: $0["off_session"] as? Bool == true,
                status: $0["status"] as? String ?? "")
        }
        #expect(
            intents.filter { $0.savesCard } == [Intent(savesCard: true, offSession: false, status: "succeeded")], "the first order saves the card")
        let renewals = intents.filter { !$0.savesCard }
        #expect(renewals.count == 3, "one PaymentIntent per key")
        #expect(renewals.allSatisfy { $0.offSession }, "every renewal confirmed off-session")
        #expect(renewals.map(\.status) == ["succeeded", "canceled", "canceled"], "the declined ones canceled")
        let cards = try fake.objects("payment_methods").map {
            "\(($0["card"] as? [String: Any])?["last4"] as? String ?? "") \($0["set_up_off_session"] as? Bool == true)"
        }
        #expect(
            cards == ["4242 true", "4242 true", "3184 false", "3155 false"], "typed cards set up by SetupIntents, but for the two whose bank asks")
        let setUps = try fake.requests().filter { $0.path.hasPrefix("/v1/setup_intents") }.count
        #expect(setUps == 8, "each card: a SetupIntent made and confirmed")
    }
}
