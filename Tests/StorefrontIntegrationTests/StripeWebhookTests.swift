import Foundation
import GRDB
import LiveObjects
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import ShopStripe
import ShopWebhookServer
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Stripe's webhooks over real HTTP: localstripe delivers its own signed `payment_intent.succeeded` to the shop's
/// listener; the events localstripe does not send (refunds made in the dashboard, disputes) are signed here with
/// the same scheme. Every refusal leaves the order as it was.
@Suite("Stripe webhooks", .ownThreads)
struct StripeWebhookTests {
    static let secret = "whsec_storefront_test_secret_9b1f"

    /// The shop's side: orders in an in-memory database, records in memory, the listener on a loopback port, and each event as it is applied.
    final class Shop: Sendable, LiveObject {
        let database = Fixtures.bundledShop()
        let orders: SQLOrderRepository
        let references: InMemoryProviderReferences
        let events: SQLProviderEvents
        let outcomes: AsyncStream<ProviderEventDesk.Outcome>
        let port: Int
        private let server: WebhookServer
        private let worker: ProviderEventWorker
        private let task: Task<Void, any Error>

        init(client: StripeClient, processor: StripeChargeProcessor, references shared: InMemoryProviderReferences) async throws {
            references = shared
            orders = SQLOrderRepository(database: database, currency: .usd)
            events = SQLProviderEvents(database: database)
            let desk = ProviderEventDesk(
                webhook: StripeWebhook(secrets: [StripeWebhookTests.secret], client: client, references: shared), events: events,
                backend: LiveMerchantBackend(processor: processor, orders: orders, dates: .system), orders: orders, dates: .system
            )
            let (outcomes, heard) = AsyncStream.makeStream(of: ProviderEventDesk.Outcome.self)
            self.outcomes = outcomes
            // Passes only when a delivery asks: nothing ticks.
            let worker = ProviderEventWorker(desk: desk, ticks: AsyncStream { _ in }, log: { Issue.record("\($0)") }, processed: { heard.yield($0) })
            self.worker = worker
            let (bound, binding) = AsyncStream.makeStream(of: Int.self)
            server = WebhookServer(host: "127.0.0.1", port: 0, bodyLimit: 64 * 1024, log: { _ in }, listening: { binding.yield($0) }) {
                payload, signature in
                let reply = await worker.receive(payload: payload, signature: signature)
                return WebhookServer.Answer(status: reply.httpStatus, log: reply.logLine)
            }
            task = Task { [server] in try await server.run() }
            var listening = 0
            for await port in bound {
                listening = port
                break
            }
            port = listening
        }

        /// The ids of the provider's events the shop recorded as handled, in the order it handled them.
        func recordedEvents() throws -> [String] {
            try database.pool.read { try String.fetchAll($0, sql: "SELECT id FROM provider_event ORDER BY rowid") }
        }

        /// Stops the listener, answering what is under way.
        func stop() async {
            await server.stop()
            _ = try? await task.value
            await worker.stop()
        }

        /// What the worker made of the next event it applied: awaited, not polled; the test's time limit is what ends a
        /// wait for one that never comes.
        func nextOutcome() async throws -> ProviderEventDesk.Outcome {
            for await outcome in outcomes { return outcome }
            Issue.record("the listener stopped before a webhook arrived")
            throw TmuxError(message: "no webhook")
        }

        /// POSTs `body` to the listener; the status and the body of the answer.
        func post(_ body: [UInt8], headers: [String: String], path: String = WebhookServer.stripePath) throws -> (Int, String) {
            var request = "POST \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers { request += "\(name): \(value)\r\n" }
            let answer = try LocalStripe.exchange(request + "\r\n" + String(decoding: body, as: UTF8.self), port: port)
            let status = Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
            return (status, answer.components(separatedBy: "\r\n\r\n").dropFirst().joined())
        }

        /// POSTs an event signed as Stripe signs it, `age` seconds ago.
        func deliver(_ event: [String: Any], secret: String = StripeWebhookTests.secret, age: TimeInterval = 0) throws -> (Int, String) {
            let payload = Array(try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]))
            let header = StripeWebhookSignature.header(for: payload, secret: secret, at: Date().addingTimeInterval(-age))
            return try post(payload, headers: ["Content-Type": "application/json; charset=utf-8", "Stripe-Signature": header])
        }
    }

    /// An event as Stripe shapes it, about `object`.
    static func event(_ id: String, _ type: String, _ object: [String: Any]) -> [String: Any] {
        ["id": id, "object": "event", "type": type, "created": Int(Date().timeIntervalSince1970), "livemode": false, "data": ["object": object]]
    }

    /// Registers the shop's listener with localstripe, for `events`.
    static func register(_ shop: Shop, with server: LocalStripe, events: [String]) throws {
        let body = try JSONSerialization.data(withJSONObject: [
            "url": "http://127.0.0.1:\(shop.port)\(WebhookServer.stripePath)", "secret": secret, "events": events,
        ])
        let answer = try LocalStripe.exchange(
            "POST /_config/webhooks/storefront HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                + String(decoding: body, as: UTF8.self), port: server.port
        )
        #expect(answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.0 200"), "localstripe took the webhook: \(answer.prefix(200))")
    }

    /// An order charged on localstripe whose process stopped before it recorded the charge: still `.charging`.
    static func chargedAndLost(_ shop: Shop, _ provider: StripePaymentProvider, _ processor: StripeChargeProcessor) async throws -> (Order, String) {
        let order = try await shop.orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 2), idempotencyKey: "k-webhook", tokenID: "t", paymentDescription: "Visa",
            placedAt: Date())
        let method = try await provider.vault(try PaymentProviderContractTests.card("4242424242424242"), forCustomer: "guest")
        let token = try await provider.createToken(for: PaymentProviderContractTests.payment(with: method))
        let charge = try await processor.charge(
            ChargeRequest(
                tokenID: token.id, amount: order.totals.total, idempotencyKey: "k-webhook", orderNumber: order.number, customerID: "local:jane"))
        #expect(charge.outcome == .succeeded)
        return (order, try #require(try shop.references.paymentReference(forOrderKey: "k-webhook")))
    }

    @Test(.timeLimit(.minutes(10))) func localstripesOwnSignedEventSettlesAChargeWhoseAnswerWasLost() async throws {
        let server = try LocalStripe()
        let references = InMemoryProviderReferences()
        try await StripeAdapterTests.withStripe(base: server.base, references: references) { provider, processor, client in
            let shop = try await Shop(client: client, processor: processor, references: references)
            try Self.register(shop, with: server, events: ["payment_intent.succeeded"])
            let (order, _) = try await Self.chargedAndLost(shop, provider, processor)
            #expect(try await shop.orders.order(number: order.number)?.status == .charging)

            let reply = try await shop.nextOutcome()
            guard case .applied(let header, let number, let outcome) = reply else {
                Issue.record("applied, got \(reply)")
                return
            }
            #expect(header.type == "payment_intent.succeeded" && header.id.hasPrefix("evt_"))
            #expect(number == order.number && outcome == "settled as paid")
            #expect(try await shop.orders.order(number: order.number)?.status == .paid)
            #expect(try await shop.orders.events(orderNumber: order.number).map(\.actor) == [.shopper("local:jane"), .provider])
            #expect(try StripeAdapterTests.intents(server, key: "k-webhook").count == 1, "settled from Stripe's record, never charged again")
            #expect(try shop.recordedEvents() == [header.id])
            await shop.stop()
        }
    }

    @Test(.timeLimit(.minutes(10))) func aRefundMadeInStripesDashboardAndADisputeReachTheOrderAndEveryBadDeliveryChangesNothing() async throws {
        let server = try LocalStripe()
        let references = InMemoryProviderReferences()
        try await StripeAdapterTests.withStripe(base: server.base, references: references) { provider, processor, client in
            let shop = try await Shop(client: client, processor: processor, references: references)
            let (order, intent) = try await Self.chargedAndLost(shop, provider, processor)
            try await shop.orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: Date())
            // Made in the dashboard: straight at Stripe, with none of the shop's metadata.
            let made = try LocalStripe.exchange(
                "POST /v1/refunds HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(LocalStripe.secretKey)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \("payment_intent=\(intent)&amount=2500".utf8.count)\r\n\r\npayment_intent=\(intent)&amount=2500",
                port: server.port
            )
            #expect(made.contains("\"re_"), "localstripe refunded: \(made.prefix(300))")
            let refunded = Self.event(
                "evt_dashboard_refund", "charge.refunded",
                ["id": "ch_dashboard", "object": "charge", "payment_intent": intent, "amount_refunded": 2500])
            let before = try await shop.orders.events(orderNumber: order.number)

            // Refused, each with nothing changed: a forged signature, a stale one, the wrong type, too big a body.
            #expect(try shop.deliver(refunded, secret: "whsec_someone_else_secret_0").0 == 400)
            #expect(try shop.deliver(refunded, age: 301).0 == 400)
            let payload = Array(try JSONSerialization.data(withJSONObject: refunded))
            let signature = StripeWebhookSignature.header(for: payload, secret: Self.secret, at: Date())
            #expect(try shop.post(payload, headers: ["Content-Type": "text/plain", "Stripe-Signature": signature]).0 == 415)
            #expect(
                try shop.post(
                    Array(repeating: UInt8(ascii: " "), count: 70_000), headers: ["Content-Type": "application/json", "Stripe-Signature": signature]
                ).0 == 413)
            #expect(try shop.post(payload, headers: ["Content-Type": "application/json"]).0 == 400, "no signature at all")
            #expect(try await shop.orders.events(orderNumber: order.number) == before)
            #expect(try shop.recordedEvents().isEmpty)

            let (status, body) = try shop.deliver(refunded)
            #expect(status == 200 && body.contains("kept, to be applied"), "answered once kept: \(body)")
            let recorded = try await shop.nextOutcome()
            #expect(recorded.logLine.contains("recorded re_"), "\(recorded)")
            let history = try await shop.orders.events(orderNumber: order.number)
            #expect(history.last?.actor == .provider)
            #expect(history.last?.change == .refunded(Money(minorUnits: 2_500, currency: .usd), reason: RefundAsk.madeAtProviderReason))
            #expect(try await shop.orders.order(number: order.number)?.status == .partiallyRefunded)
            #expect(
                try await SQLOutbox(database: shop.database).entries(orderNumber: order.number).map(\.kind) == [.receipt, .refunded],
                "the shopper is told")

            // Stripe sends an event again until it hears 2xx: the replay is acknowledged and applied once.
            #expect(try shop.deliver(refunded).0 == 200)
            #expect(try await shop.orders.events(orderNumber: order.number).count == history.count)

            let dispute = Self.event(
                "evt_dispute", "charge.dispute.created",
                [
                    "id": "dp_test_1", "object": "dispute", "amount": 1_000, "currency": "usd", "reason": "product_not_received",
                    "payment_intent": intent, "charge": "ch_dashboard",
                ])
            #expect(try shop.deliver(dispute).0 == 200)
            _ = try await shop.nextOutcome()
            #expect(
                try await shop.orders.events(orderNumber: order.number).last?.change
                    == .disputed(Money(minorUnits: 1_000, currency: .usd), reason: "product not received", reference: "dp_test_1"))

            let unknown = Self.event("evt_other", "customer.created", ["id": "cus_1", "object": "customer"])
            #expect(try shop.deliver(unknown).0 == 200)
            let other = try await shop.nextOutcome()
            #expect(other.logLine.contains("not acted on"), "\(other)")
            #expect(try shop.recordedEvents() == ["evt_dashboard_refund", "evt_dispute", "evt_other"])
            await shop.stop()
        }
    }
}
