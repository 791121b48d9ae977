import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import ShopStripe
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Refunds on localstripe through the back office: one Stripe refund of the right amount, also when the first
/// answer is lost, and a refusal that leaves the order as it was with Stripe's reason.
@Suite("Stripe refunds", .ownThreads)
struct StripeRefundTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)

    /// A paid order, charged on Stripe under its own key; its PaymentIntent's id is filed in `references`.
    func paidOrder(_ orders: SQLOrderRepository, _ provider: StripePaymentProvider, _ processor: StripeChargeProcessor, key: String) async throws
        -> Order
    {
        let draft = Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 2)
        let order = try await orders.begin(draft, idempotencyKey: key, tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
        let method = try await provider.vault(try PaymentProviderContractTests.card("4242424242424242"), forCustomer: "guest")
        let token = try await provider.createToken(for: PaymentProviderContractTests.payment(with: method))
        let charge = try await processor.charge(
            ChargeRequest(tokenID: token.id, amount: order.totals.total, idempotencyKey: key, orderNumber: order.number, customerID: "local:jane"))
        #expect(charge.outcome == ChargeOutcome.succeeded)
        try await orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: placedAt)
        return try #require(try await orders.order(number: order.number))
    }

    /// Stripe's refunds of the order's PaymentIntent.
    func refunds(_ server: LocalStripe, _ references: InMemoryProviderReferences, key: String) throws -> [[String: Any]] {
        let intent = try #require(try references.paymentReference(forOrderKey: key))
        return try #require(try server.get("/v1/refunds?payment_intent=\(intent)")["data"] as? [[String: Any]])
    }

    /// "after-no-retry": Stripe made the refund, then answered 500 with `Stripe-Should-Retry: false` and keeps that 500
    /// under the key; the shop must not call it declined, and finds the refund by asking.
    @Test(
        "a refund makes one Stripe refund of the amount, also when its first answer is lost or a 5xx",
        arguments: ["none", "after", "after-no-retry"])
    func oneRefundOfTheRightAmount(fault: String) async throws {
        let server = try LocalStripe()
        let proxy = try StripeFaultProxy(
            upstream: server.base, rules: fault == "none" ? [] : ["POST:^/v1/refunds$:1:\(fault)"], honoursIdempotencyKeys: fault == "after-no-retry")
        let references = InMemoryProviderReferences()
        let database = Fixtures.bundledShop()
        let orders = SQLOrderRepository(database: database, currency: .usd)
        let key = "order-refund-\(fault)"
        try await StripeAdapterTests.withStripe(base: proxy.base, references: references) { provider, processor, _ in
            let order = try await paidOrder(orders, provider, processor, key: key)
            let office = LiveBackOffice(orders: orders, processor: processor, dates: Fixtures.fixedDates, currency: .usd)
            let amount = order.refundAmount(for: ["hoodie-root": 1])
            let refunded = try await office.refund(
                order.number, RefundAsk(amount: amount, reason: "arrived torn"), by: .merchant("ops"), expecting: .paid)
            #expect(refunded.status == .partiallyRefunded)
            let made = try refunds(server, references, key: key)
            #expect(made.count == 1, "\(made)")
            #expect((made.first?["amount"] as? NSNumber)?.int64Value == amount.minorUnits)
            #expect((made.first?["metadata"] as? [String: String])?["refund_id"] == "RF-000001")
            let reference = try #require(made.first?["id"] as? String)
            #expect(try await orders.refunds(orderNumber: order.number).map(\.state) == [.refunded(reference: reference)])
        }
        if fault != "none" {
            #expect(
                try proxy.log().filter { $0.hasPrefix("POST /v1/refunds") } == ["POST /v1/refunds 500"],
                "sent once; the retry found the refund instead of sending again")
        }
    }

    /// Stripe answers a card refund `pending` until the bank confirms it: the shop keeps it pending, tells the shopper
    /// nothing and changes nothing on the order until Stripe says how it ended.
    @Test func aRefundStripeHasNotFinishedStaysPendingAndNoOneIsToldItWasRefunded() async throws {
        let server = try LocalStripe()
        let proxy = try StripeFaultProxy(upstream: server.base, rules: ["POST:^/v1/refunds$:1:pending"])
        let references = InMemoryProviderReferences()
        let database = Fixtures.bundledShop()
        let orders = SQLOrderRepository(database: database, currency: .usd)
        try await StripeAdapterTests.withStripe(base: proxy.base, references: references) { provider, processor, _ in
            let order = try await paidOrder(orders, provider, processor, key: "order-refund-pending")
            let office = LiveBackOffice(
                orders: orders, processor: processor, mail: SQLOutbox(database: database), dates: Fixtures.fixedDates, currency: .usd)
            var failure: BackOfficeError?
            do throws(BackOfficeError) {
                _ = try await office.refund(
                    order.number, RefundAsk(amount: Money(minorUnits: 500, currency: .usd), reason: "goodwill"), by: .merchant("ops"),
                    expecting: .paid)
            } catch {
                failure = error
            }
            guard case .refund(.unfinished(let why))? = failure else {
                Issue.record("left unfinished, got \(String(describing: failure))")
                return
            }
            #expect(why.contains("is pending"), "\(why)")
            #expect(try await orders.order(number: order.number)?.status == .paid, "not called refunded")
            #expect(try await orders.refunds(orderNumber: order.number).map(\.state) == [.pending])
            #expect(!(try await orders.events(orderNumber: order.number)).contains { if case .refunded = $0.change { true } else { false } })
            #expect(
                try await SQLOutbox(database: database).entries(orderNumber: order.number).allSatisfy { $0.kind != .refunded },
                "no refund notice to the shopper")
        }
    }

    /// A 5xx with `Stripe-Should-Retry: false` where nothing was done: not knowing, the shop leaves the refund pending
    /// (a later command or Stripe's event decides), never "declined" (sent again under a new key, it would refund twice).
    @Test func aRefundAnsweredWithA5xxThatSaysNotToRetryStaysPendingNeverDeclined() async throws {
        let server = try LocalStripe()
        let proxy = try StripeFaultProxy(upstream: server.base, rules: ["POST:^/v1/refunds$:1:before-no-retry"], honoursIdempotencyKeys: true)
        let references = InMemoryProviderReferences()
        let database = Fixtures.bundledShop()
        let orders = SQLOrderRepository(database: database, currency: .usd)
        try await StripeAdapterTests.withStripe(base: proxy.base, references: references) { provider, processor, _ in
            let order = try await paidOrder(orders, provider, processor, key: "order-refund-5xx")
            let office = LiveBackOffice(orders: orders, processor: processor, dates: Fixtures.fixedDates, currency: .usd)
            var failure: BackOfficeError?
            do throws(BackOfficeError) {
                _ = try await office.refund(
                    order.number, RefundAsk(amount: Money(minorUnits: 500, currency: .usd), reason: "goodwill"), by: .merchant("ops"),
                    expecting: .paid)
            } catch {
                failure = error
            }
            guard case .refund(let refundFailure)? = failure, case .unanswered = refundFailure else {
                Issue.record("left unanswered, got \(String(describing: failure))")
                return
            }
            #expect(try await orders.refunds(orderNumber: order.number).map(\.state) == [.pending])
            #expect(try await orders.order(number: order.number)?.status == .paid)
            #expect(try refunds(server, references, key: "order-refund-5xx").isEmpty)
            // Each try asked Stripe first; the repeats under the key met the kept 500, and none was made under another.
            #expect(try proxy.log().filter { $0.hasPrefix("POST /v1/refunds") }.allSatisfy { $0 == "POST /v1/refunds 500" })
        }
    }

    @Test func aRefundStripeRefusesLeavesTheOrderAsItWasWithTheReason() async throws {
        let server = try LocalStripe()
        // A restricted key without the refunds permission: Stripe answers 403 and refunds nothing.
        let proxy = try StripeFaultProxy(upstream: server.base, rules: ["POST:^/v1/refunds$:1:forbidden"])
        let references = InMemoryProviderReferences()
        let database = Fixtures.bundledShop()
        let orders = SQLOrderRepository(database: database, currency: .usd)
        try await StripeAdapterTests.withStripe(base: proxy.base, references: references) { provider, processor, _ in
            let order = try await paidOrder(orders, provider, processor, key: "order-refund-refused")
            let office = LiveBackOffice(orders: orders, processor: processor, dates: Fixtures.fixedDates, currency: .usd)
            var failure: BackOfficeError?
            do throws(BackOfficeError) {
                _ = try await office.refund(
                    order.number, RefundAsk(amount: Money(minorUnits: 500, currency: .usd), reason: "goodwill"), by: .merchant("ops"),
                    expecting: .paid)
            } catch {
                failure = error
            }
            guard case .refund(.declined(let why))? = failure else {
                Issue.record("refused as declined, got \(String(describing: failure))")
                return
            }
            #expect(why.contains("permission") && !why.contains(LocalStripe.secretKey), "Stripe's reason, without the key: \(why)")
            #expect(try await orders.order(number: order.number)?.status == .paid)
            #expect(try await orders.events(orderNumber: order.number).map(\.change) == [.placed(total: order.totals.total), .charged])
            #expect(try refunds(server, references, key: "order-refund-refused").isEmpty)
        }
    }
}
