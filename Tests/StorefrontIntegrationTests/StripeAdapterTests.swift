import Clocks
import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import ShopStripe
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// The Stripe adapter against a running localstripe: what the contract does not cover — refusals,
/// 3-D Secure, a server that stops or fails, and a process that died between the steps.
@Suite("Stripe adapter", .ownThreads)
struct StripeAdapterTests {
    typealias Contract = PaymentProviderContractTests

    /// A provider and processor on one client, pointed at `base`; closed however the body ends.
    static func withStripe(
        base: String, references: any ProviderReferenceRepository = InMemoryProviderReferences(),
        _ body: (StripePaymentProvider, StripeChargeProcessor, StripeClient) async throws -> Void
    ) async throws {
        let key = try StripeSecretKey(LocalStripe.secretKey)
        // A short connect timeout: the HTTP client waits that long for a port nobody listens on.
        let client = StripeClient(key: key, base: try #require(URL(string: base)), connectTimeout: .milliseconds(300), clock: ImmediateClock())
        do {
            try await body(
                StripePaymentProvider(client: client, key: key, references: references, cardPage: nil),
                StripeChargeProcessor(client: client, key: key, references: references), client
            )
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    static func intents(_ server: LocalStripe, key: String) throws -> [[String: Any]] {
        try server.paymentIntents().filter { ($0["metadata"] as? [String: String])?["idempotency_key"] == key }
    }

    @Test func aCardRefusedAtAttachShowsTheReasonAndIsNotKept() async throws {
        let server = try LocalStripe()
        try await Self.withStripe(base: server.base) { provider, _, _ in
            await #expect(throws: PaymentProviderError.cardRejected(.generic)) {
                try await provider.vault(try Contract.card("4000000000000002"), forCustomer: "guest")
            }
        }
    }

    @Test func aCardThatNeedsThreeDSecureIsRefusedWithWordsForATerminal() async throws {
        let server = try LocalStripe()
        let key = "order-3ds"
        try await Self.withStripe(base: server.base) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4000002500003155"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            let charge = try await processor.charge(Contract.request(token, key: key))
            #expect(charge.outcome == .declined(.authenticationRequired))
        }
        #expect(
            DeclineReason.authenticationRequired.message == "This card needs a check in a browser, which a terminal cannot show; choose another card."
        )
        #expect(
            try Self.intents(server, key: key).map { $0["status"] as? String } == ["canceled"],
            "the PaymentIntent is canceled, so it can never be completed later")
    }

    /// A 409 with `Stripe-Should-Retry: true` (a request with the key still under way at Stripe) is asked again
    /// with the same key, not taken as a refusal: the order is paid, once.
    @Test func aConflictStripeAsksToRetryIsRetriedWithTheSameKey() async throws {
        let server = try LocalStripe()
        let proxy = try StripeFaultProxy(upstream: server.base, rules: ["POST:^/v1/payment_intents$:1:conflict"])
        let key = "order-conflict"
        try await Self.withStripe(base: proxy.base) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            #expect(try await processor.charge(Contract.request(token, key: key)).outcome == .succeeded)
        }
        #expect(
            try proxy.log().filter { $0.hasPrefix("POST /v1/payment_intents ") } == ["POST /v1/payment_intents 409", "POST /v1/payment_intents 200"])
        #expect(try Self.intents(server, key: key).count == 1)
    }

    @Test func aStoppedServerChargesNothingAndTheRetryAfterARestartPaysOnce() async throws {
        let server = try LocalStripe()
        try await Self.withStripe(base: server.base) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            server.stop()
            await #expect(throws: MerchantBackendError.providerUnreachable) {
                try await processor.charge(Contract.request(token, key: "order-before-restart"))
            }
            await #expect(throws: PaymentProviderError.unavailable("the payment service is not answering")) {
                try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            }
            try server.restart()
            #expect(try Self.intents(server, key: "order-before-restart").isEmpty, "nothing reached the server")
            // The shop pays again with a new key: the first order was settled as not charged.
            #expect(try await processor.charge(Contract.request(token, key: "order-after-restart")).outcome == .succeeded)
        }
        let succeeded = try server.paymentIntents().filter { $0["status"] as? String == "succeeded" }
        #expect(succeeded.count == 1)
    }

    @Test("500 twice, then 200: paid once", arguments: ["before", "after"])
    func failuresThenSuccessPayOnce(when: String) async throws {
        let server = try LocalStripe()
        // Create and confirm each fail twice; "after" means the server did the work and the answer was lost.
        let proxy = try StripeFaultProxy(
            upstream: server.base,
            rules: [
                "POST:^/v1/payment_intents$:2:\(when)", "POST:/confirm$:2:\(when)",
            ])
        let key = "order-flaky-\(when)"
        try await Self.withStripe(base: proxy.base) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            #expect(try await processor.charge(Contract.request(token, key: key)).outcome == .succeeded)
            #expect(
                try await processor.charge(Contract.request(token, key: key)).outcome == .succeeded, "asking again is answered from the PaymentIntent"
            )
        }
        let log = try proxy.log()
        #expect(log.filter { $0.hasSuffix(" 500") }.count == 4, "each call failed twice first: \(log)")
        #expect(try Self.intents(server, key: key).filter { $0["status"] as? String == "succeeded" }.count == 1)
    }

    /// Stripe answers a retried create with the PaymentIntent the first one made, by its Idempotency-Key: without
    /// the key, every retry after a lost answer would leave another PaymentIntent behind.
    @Test func aCreateRetriedAfterALostAnswerYieldsTheSamePaymentIntent() async throws {
        let server = try LocalStripe()
        let proxy = try StripeFaultProxy(upstream: server.base, rules: ["POST:^/v1/payment_intents$:1:after"], honoursIdempotencyKeys: true)
        let key = "order-create-retried"
        try await Self.withStripe(base: proxy.base) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            #expect(try await processor.charge(Contract.request(token, key: key)).outcome == .succeeded)
        }
        let creates = try proxy.log().filter { $0.hasPrefix("POST /v1/payment_intents ") }
        #expect(creates == ["POST /v1/payment_intents 500", "POST /v1/payment_intents 200"], "the answer lost, then replayed")
        #expect(try Self.intents(server, key: key).count == 1, "one PaymentIntent for the order, however often its create was sent")
    }

    /// Stripe's refusals of a key quote it, whole or masked: none of it is passed on, and a 401 says what it means.
    @Test("a refusal that quotes the secret key is passed on without it", arguments: ["unauthorized", "forbidden"])
    func aRefusalQuotingTheKeyIsRedacted(kind: String) async throws {
        let server = try LocalStripe()
        let proxy = try StripeFaultProxy(upstream: server.base, rules: ["GET:^/v1/balance$:1:\(kind)"])
        try await Self.withStripe(base: proxy.base) { _, _, client in
            do {
                try await client.verifyKey()
                Issue.record("the key was accepted")
            } catch {
                let said = "\(error)"
                #expect(!said.contains(LocalStripe.secretKey) && !said.contains("sk_test_") && !said.contains("4f9a27"), "\(said)")
                if kind == "unauthorized" {
                    guard case .refused(401, let refusal)? = error as? StripeFailure else {
                        Issue.record("not a 401 refusal: \(error)")
                        return
                    }
                    #expect(refusal.message == "Stripe did not accept the secret key")
                } else {
                    #expect(said.contains("[secret key]") && said.contains("does not have the required permissions"), "\(said)")
                }
            }
        }
    }

    @Test func aConfirmCarriedOutButUnansweredIsNeverCalledNotCharged() async throws {
        let server = try LocalStripe()
        let references = InMemoryProviderReferences()
        let key = "order-vanished"
        try await Self.withStripe(base: server.base, references: references) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            // The confirm reaches Stripe, then the network goes: the retries are refused, but the charge happened.
            let vanishing = try StripeFaultProxy(upstream: server.base, rules: ["POST:/confirm$:1:vanish"])
            try await Self.withStripe(base: vanishing.base, references: references) { _, first, _ in
                await #expect(throws: MerchantBackendError.timedOut, "not providerUnreachable: nothing-was-charged would be false") {
                    try await first.charge(Contract.request(token, key: key))
                }
            }
            #expect(try await processor.charge(Contract.request(token, key: key)).outcome == .succeeded, "the retry finds the charge")
        }
        #expect(try Self.intents(server, key: key).map { $0["status"] as? String } == ["succeeded"])
    }

    @Test func aProcessThatDiedBeforeConfirmingIsResumedWithoutASecondPaymentIntent() async throws {
        let server = try LocalStripe()
        let references = InMemoryProviderReferences()
        let key = "order-resumed"
        try await Self.withStripe(base: server.base, references: references) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            // A proxy that refuses every confirm stands in for a process that died after filing the PaymentIntent.
            let dying = try StripeFaultProxy(upstream: server.base, rules: ["POST:/confirm$:99:before"])
            try await Self.withStripe(base: dying.base, references: references) { _, first, _ in
                await #expect(throws: MerchantBackendError.timedOut) { try await first.charge(Contract.request(token, key: key)) }
            }
            #expect(try Self.intents(server, key: key).map { $0["status"] as? String } == ["requires_confirmation"])
            // localstripe ignores Idempotency-Key: only the filed id keeps this from being a second PaymentIntent.
            #expect(try await processor.charge(Contract.request(token, key: key)).outcome == .succeeded)
        }
        #expect(try Self.intents(server, key: key).map { $0["status"] as? String } == ["succeeded"])
    }

    @Test func theSettlementAsksStripeAndNeverChargesTwice() async throws {
        let server = try LocalStripe()
        let fixture = try SQLiteFixture()
        let references = SQLProviderReferences(database: fixture.database)
        let longAgo = Date(timeIntervalSince1970: 1_700_000_000)
        try await Self.withStripe(base: server.base, references: references) { provider, processor, _ in
            let method = try await provider.vault(try Contract.card("4242424242424242"), forCustomer: "guest")
            let token = try await provider.createToken(for: Contract.payment(with: method))
            let draft = Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1)
            // Paid, but the process died before recording it.
            let paid = try await fixture.orders.begin(draft, idempotencyKey: "paid", tokenID: token.id, paymentDescription: "Visa", placedAt: longAgo)
            _ = try await processor.charge(
                ChargeRequest(tokenID: token.id, amount: paid.totals.total, idempotencyKey: "paid", orderNumber: paid.number, customerID: "guest"))
            // A PaymentIntent filed, never confirmed.
            let filed = try await fixture.orders.begin(
                draft, idempotencyKey: "filed", tokenID: token.id, paymentDescription: "Visa", placedAt: longAgo)
            let dying = try StripeFaultProxy(upstream: server.base, rules: ["POST:/confirm$:99:before"])
            try await Self.withStripe(base: dying.base, references: references) { _, first, _ in
                _ = try? await first.charge(
                    ChargeRequest(
                        tokenID: token.id, amount: filed.totals.total, idempotencyKey: "filed", orderNumber: filed.number, customerID: "guest"))
            }
            // Nothing reached Stripe.
            let never = try await fixture.orders.begin(
                draft, idempotencyKey: "never", tokenID: token.id, paymentDescription: "Visa", placedAt: longAgo)

            let backend = LiveMerchantBackend(processor: processor, orders: fixture.orders, dates: Fixtures.fixedDates)
            let settlement = try await backend.reconcile()
            #expect(settlement.settled.map(\.number) == [paid.number, filed.number, never.number])
            #expect(settlement.leftOpen.isEmpty)
            #expect(try await fixture.orders.order(number: paid.number)?.status == .paid)
            #expect(try await fixture.orders.order(number: filed.number)?.status == .voided)
            #expect(try await fixture.orders.order(number: never.number)?.status == .voided)
            #expect(try await references.paymentReference(forOrderKey: "never") == "void")
            // A late charge of a settled order gets nothing.
            #expect(
                try await processor.charge(
                    ChargeRequest(
                        tokenID: token.id, amount: filed.totals.total, idempotencyKey: "filed", orderNumber: filed.number, customerID: "guest")
                ).outcome == .declined(.voided))
        }
        #expect(try Self.intents(server, key: "paid").map { $0["status"] as? String } == ["succeeded"])
        #expect(try Self.intents(server, key: "filed").map { $0["status"] as? String } == ["canceled"])
        #expect(try Self.intents(server, key: "never").isEmpty)
    }

    @Test func aKeyIsCheckedBeforeAnyCallAndNeverPrinted() throws {
        #expect(throws: StripeSecretKey.Problem.empty) { try StripeSecretKey(" \n") }
        #expect(throws: StripeSecretKey.Problem.malformed(kind: "11 characters starting \"pk\"")) { try StripeSecretKey("pk_test_abc") }
        let key = try StripeSecretKey("sk_live_abcdef123\n")
        #expect(key.mode == .live)
        #expect(try StripeSecretKey("rk_test_abc").mode == .test)
        for text in ["\(key)", String(reflecting: key), "\(Mirror(reflecting: key).children.map { "\($0)" })"] {
            #expect(!text.contains("abcdef123"), "the key does not print: \(text)")
        }
    }

    @Test func customersAndPaymentReferencesAreFiledFirstWinsInEachRepository() async throws {
        let fixture = try SQLiteFixture()
        let postgres = try await PostgresStockFixture()
        for orders in [fixture.orders, postgres.orders] {
            _ = try await orders.begin(
                Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 1), idempotencyKey: "k", tokenID: "pm_1", paymentDescription: "Visa",
                placedAt: Date())
        }
        let repositories: [any ProviderReferenceRepository] = [
            InMemoryProviderReferences(), SQLProviderReferences(database: fixture.database),
            SQLProviderReferences(database: postgres.server.database),
        ]
        for references in repositories {
            #expect(try await references.customerReference(for: "guest", account: "stripe:test") == nil)
            #expect(try await references.fileCustomerReference("cus_1", for: "guest", account: "stripe:test") == "cus_1")
            #expect(try await references.fileCustomerReference("cus_2", for: "guest", account: "stripe:test") == "cus_1", "first wins")
            #expect(try await references.customerReference(for: "guest", account: "stripe:live") == nil, "test and live customers are apart")
            #expect(try await references.paymentReference(forOrderKey: "k") == nil)
            #expect(try await references.filePaymentReference("pi_1", forOrderKey: "k") == "pi_1")
            #expect(try await references.filePaymentReference("void", forOrderKey: "k") == "pi_1", "a void loses to a filed PaymentIntent")
            #expect(try await references.paymentReference(forOrderKey: "k") == "pi_1")
        }
    }
}
