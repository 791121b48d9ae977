import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontTesting
import Testing

@Suite("Provider events", .ownThreads)
struct ProviderEventDeskTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)

    /// An order of two root Hoodies charged in the sandbox's ledger; its own process stopped before recording the
    /// charge (`settled: false`), or it was recorded paid.
    func chargedOrder(_ orders: any LiveBackOffice.Orders, _ processor: SandboxProcessor, settled: Bool) async throws -> Order {
        let order = try await orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 2), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: placedAt)
        _ = try await processor.ledger.record(LedgerCharge(key: "k", tokenID: "t", amount: order.totals.total, outcome: .succeeded))
        if settled { try await orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: placedAt) }
        return try #require(try await orders.order(number: order.number))
    }

    func desk(
        _ fixture: any StockedOrderRepository, _ processor: SandboxProcessor, _ webhook: ScriptedWebhook, dates: DateSource = Fixtures.fixedDates
    ) -> ProviderEventDesk {
        ProviderEventDesk(
            webhook: webhook, events: fixture.providerEvents,
            backend: LiveMerchantBackend(processor: processor, orders: fixture.orders, dates: dates), orders: fixture.orders, dates: dates
        )
    }

    @Test("a charge whose answer was lost is settled by the provider's event, once", arguments: StockedRepositoryKind.allCases)
    func lostAnswerSettled(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: false)
        #expect(order.status == .charging)
        let desk = desk(fixture, processor, ScriptedWebhook(notices: ["evt_1": .chargeEnded(orderNumber: order.number)]))

        let reply = await desk.receive(payload: ScriptedWebhook.payload("evt_1", type: "payment_intent.succeeded"), signature: "valid")
        let header = ProviderEventHeader(id: "evt_1", type: "payment_intent.succeeded")
        #expect(reply == .accepted(header))
        #expect(reply.httpStatus == 200)
        #expect(try await fixture.orders.order(number: order.number)?.status == .charging, "kept and answered; applied by the next pass")
        #expect(try await desk.processDue() == [.applied(header, orderNumber: order.number, outcome: "settled as paid")])
        #expect(try await desk.processDue() == [], "applied once")
        #expect(try await fixture.orders.order(number: order.number)?.status == .paid)
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2), "the reserved hoodies were sold")
        #expect(await processor.allCharges.count == 1, "settled from the record, never charged again")

        let again = await desk.receive(payload: ScriptedWebhook.payload("evt_1", type: "payment_intent.succeeded"), signature: "valid")
        #expect(again == .duplicate(header))
        #expect(try await fixture.orders.events(orderNumber: order.number).map(\.change) == [.placed(total: order.totals.total), .charged])
        #expect(try await fixture.providerEvents.handledEvent("evt_1", provider: "scripted"))
    }

    @Test(
        "a refund made at the provider joins the order's history as the provider's, with the shopper's notice, once",
        arguments: StockedRepositoryKind.allCases)
    func refundMadeElsewhere(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: true)
        let amount = Money(minorUnits: 2_500, currency: .usd)
        let refund = ProviderRefund(reference: "re_dashboard_1", amount: amount, shopRefundID: nil, succeeded: true)
        let pending = ProviderRefund(reference: "re_pending", amount: amount, shopRefundID: nil, succeeded: false)
        // The provider sends one refund in two events (charge.refunded, then charge.refund.updated): one record.
        let desk = desk(
            fixture, processor,
            ScriptedWebhook(notices: [
                "evt_a": .refunds(orderNumber: order.number, [refund, pending]), "evt_b": .refunds(orderNumber: order.number, [refund]),
            ]))

        let first = try await desk.deliver("evt_a", type: "charge.refunded")
        #expect(
            first == [
                .applied(
                    ProviderEventHeader(id: "evt_a", type: "charge.refunded"), orderNumber: order.number, outcome: "recorded re_dashboard_1 of $25.00"
                )
            ])
        let second = try await desk.deliver("evt_b", type: "charge.refund.updated")
        #expect(
            second == [
                .applied(ProviderEventHeader(id: "evt_b", type: "charge.refund.updated"), orderNumber: order.number, outcome: "no new refunds")
            ])

        let events = try await fixture.orders.events(orderNumber: order.number)
        #expect(
            events.last
                == OrderEvent(at: Fixtures.fixedDates.now(), actor: .provider, change: .refunded(amount, reason: RefundAsk.madeAtProviderReason)))
        #expect(events.count == 3)
        #expect(try await fixture.orders.order(number: order.number)?.status == .partiallyRefunded)
        #expect(try await fixture.orders.refunds(orderNumber: order.number).map(\.state) == [.refunded(reference: "re_dashboard_1")])
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2), "the merchant decides about stock; a provider's refund puts none back")
        #expect(try await fixture.outbox.entries(orderNumber: order.number).map(\.kind) == [.receipt, .refunded])
        #expect(await processor.allRefunds.isEmpty, "recorded, never refunded a second time")
    }

    @Test("the shop's own refund whose answer was lost is settled by the provider's event", arguments: StockedRepositoryKind.allCases)
    func ownPendingRefundSettled(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: true)
        let ask = RefundAsk(amount: Money(minorUnits: 1_000, currency: .usd), reason: "goodwill")
        let filed = try await fixture.orders.fileRefund(ask, toOrder: order.number, by: .merchant("ops"), at: placedAt, expecting: .paid)
        let made = ProviderRefund(reference: "re_ours", amount: ask.amount, shopRefundID: filed.id, succeeded: true)
        let desk = desk(fixture, processor, ScriptedWebhook(notices: ["evt_r": .refunds(orderNumber: order.number, [made])]))

        let reply = try await desk.deliver("evt_r")
        #expect(
            reply == [
                .applied(ProviderEventHeader(id: "evt_r", type: "test.event"), orderNumber: order.number, outcome: "settled \(filed.id) as re_ours")
            ])
        #expect(try await fixture.orders.refunds(orderNumber: order.number).map(\.state) == [.refunded(reference: "re_ours")])
        #expect(
            try await fixture.orders.events(orderNumber: order.number).last?.actor == .merchant("ops"),
            "the merchant's refund, heard from the provider")
    }

    @Test(
        "a refund made elsewhere while the shop's cancel is pending waits: asked again later, nothing recorded",
        arguments: StockedRepositoryKind.allCases)
    func refundElsewhereWaitsForThePendingOne(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: true)
        let cancel = RefundAsk(kind: .cancel, amount: order.totals.total, reason: "changed mind")
        _ = try await fixture.orders.fileRefund(cancel, toOrder: order.number, by: .merchant("ops"), at: placedAt, expecting: .paid)
        let elsewhere = ProviderRefund(reference: "re_dashboard_9", amount: order.totals.total, shopRefundID: nil, succeeded: true)
        let desk = desk(fixture, processor, ScriptedWebhook(notices: ["evt_x": .refunds(orderNumber: order.number, [elsewhere])]))

        let reply = try await desk.deliver("evt_x", type: "charge.refunded")
        guard case .postponed(let header, let reason, let next) = reply.first else {
            Issue.record("not tried again later: \(reply)")
            return
        }
        #expect(header.id == "evt_x" && reason.contains("RF-000001"), "\(reason)")
        #expect(next == Fixtures.fixedDates.now().addingTimeInterval(30), "the first retry 30 s on")
        #expect(try await fixture.orders.refunds(orderNumber: order.number).map(\.state) == [.pending], "nothing recorded beside the pending cancel")
        #expect(try await fixture.orders.order(number: order.number)?.status == .paid)
        #expect(try await fixture.providerEvents.handledEvent("evt_x", provider: "scripted") == false, "asked again, not marked handled")
    }

    @Test(
        "the shop's own refund the provider gave up on is closed as declined with why, and the order left as it was",
        arguments: StockedRepositoryKind.allCases)
    func ownPendingRefundFailedAtTheProvider(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: true)
        let ask = RefundAsk(amount: Money(minorUnits: 1_000, currency: .usd), reason: "goodwill")
        let filed = try await fixture.orders.fileRefund(ask, toOrder: order.number, by: .merchant("ops"), at: placedAt, expecting: .paid)
        let failed = ProviderRefund(
            reference: "re_ours", amount: ask.amount, shopRefundID: filed.id, succeeded: false, failure: "failed: expired_or_canceled_card")
        let desk = desk(fixture, processor, ScriptedWebhook(notices: ["evt_f": .refunds(orderNumber: order.number, [failed])]))

        let reply = try await desk.deliver("evt_f", type: "charge.refund.updated")
        #expect(
            reply == [
                .applied(
                    ProviderEventHeader(id: "evt_f", type: "charge.refund.updated"), orderNumber: order.number,
                    outcome: "declined \(filed.id): re_ours failed: expired_or_canceled_card")
            ])
        #expect(
            try await fixture.orders.refunds(orderNumber: order.number).map(\.state) == [
                .declined(reason: "re_ours failed: expired_or_canceled_card")
            ])
        #expect(try await fixture.orders.order(number: order.number)?.status == .paid)
        #expect(try await fixture.outbox.entries(orderNumber: order.number).map(\.kind) == [.receipt], "the shopper was told nothing of it")
    }

    @Test("a dispute flags the order once and leaves its status", arguments: StockedRepositoryKind.allCases)
    func disputeFlagsTheOrder(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: true)
        #expect(
            try await LiveBackOffice(orders: fixture.orders, processor: processor, dates: Fixtures.fixedDates, currency: .usd).queue(
                .disputed, offset: 0, limit: 10
            )
            .total == 0)
        let notice = ProviderNotice.disputed(orderNumber: order.number, amount: order.totals.total, reason: "product not received", reference: "dp_1")
        let desk = desk(fixture, processor, ScriptedWebhook(notices: ["evt_d": notice, "evt_d2": notice]))

        #expect(try await desk.deliver("evt_d").count == 1)
        let again = try await desk.deliver("evt_d2")
        #expect(
            again == [
                .applied(ProviderEventHeader(id: "evt_d2", type: "test.event"), orderNumber: order.number, outcome: "dispute dp_1 recorded already")
            ])
        let changes = try await fixture.orders.events(orderNumber: order.number).map(\.change)
        #expect(
            changes == [
                .placed(total: order.totals.total), .charged, .disputed(order.totals.total, reason: "product not received", reference: "dp_1"),
            ])
        #expect(try await fixture.orders.order(number: order.number)?.status == .paid)
        let office = LiveBackOffice(orders: fixture.orders, processor: processor, dates: Fixtures.fixedDates, currency: .usd)
        #expect(try await office.queue(.disputed, offset: 0, limit: 10).rows.map(\.number) == [order.number], "the console's Disputed tab")
        #expect(try await office.queue(.paid, offset: 0, limit: 10).rows.map(\.number) == [order.number], "still to ship")
    }

    @Test(
        "a dispute's end is recorded once with its outcome; an end heard before its start records the start from it",
        arguments: StockedRepositoryKind.allCases)
    func disputeClosedRecordsItsOutcome(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: true)
        let total = order.totals.total
        let opened = ProviderNotice.disputed(orderNumber: order.number, amount: total, reason: "fraudulent", reference: "dp_7")
        let closed = ProviderNotice.disputeClosed(orderNumber: order.number, amount: total, reason: "fraudulent", reference: "dp_7", outcome: "won")
        // Stripe does not keep its events in order: dp_9's end comes first, its start after.
        let earlyEnd = ProviderNotice.disputeClosed(orderNumber: order.number, amount: total, reason: "duplicate", reference: "dp_9", outcome: "lost")
        let lateStart = ProviderNotice.disputed(orderNumber: order.number, amount: total, reason: "duplicate", reference: "dp_9")
        let desk = desk(
            fixture, processor, ScriptedWebhook(notices: ["evt_o": opened, "evt_c": closed, "evt_c2": closed, "evt_x": earlyEnd, "evt_y": lateStart]))

        func applied(_ id: String, _ type: String) async throws -> [ProviderEventDesk.Outcome] { try await desk.deliver(id, type: type) }
        /// The one outcome a delivery of `id` as `type` should come to: applied to this order, saying `text`.
        func outcome(_ text: String, _ id: String, _ type: String) -> [ProviderEventDesk.Outcome] {
            [.applied(ProviderEventHeader(id: id, type: type), orderNumber: order.number, outcome: text)]
        }
        let (closedType, createdType) = ("charge.dispute.closed", "charge.dispute.created")
        #expect(
            try await applied("evt_x", closedType)
                == outcome("flagged: dispute dp_9 of \(total.formatted); dispute dp_9 closed: lost", "evt_x", closedType))
        #expect(try await applied("evt_y", createdType) == outcome("dispute dp_9 recorded already", "evt_y", createdType))
        #expect(try await desk.deliver("evt_o", type: createdType).count == 1)
        #expect(try await applied("evt_c", closedType) == outcome("dispute dp_7 closed: won", "evt_c", closedType))
        #expect(try await applied("evt_c2", closedType) == outcome("dispute dp_7 closed already", "evt_c2", closedType))
        let changes = try await fixture.orders.events(orderNumber: order.number).map(\.change)
        #expect(
            changes.suffix(4) == [
                .disputed(total, reason: "duplicate", reference: "dp_9"), .disputeClosed(reference: "dp_9", outcome: "lost"),
                .disputed(total, reason: "fraudulent", reference: "dp_7"), .disputeClosed(reference: "dp_7", outcome: "won"),
            ])
        #expect(try await fixture.orders.order(number: order.number)?.status == .paid)
        #expect(OrderChange.disputeClosed(reference: "dp_7", outcome: "warning_closed").shopperSummary == "The bank's dispute closed: warning closed")
    }

    @Test("a card finished on the provider's page after its session was gone is kept in the shopper's wallet, once")
    func aCardFinishedLaterIsKept() async throws {
        let fixture = try await StockedRepositoryKind.sqlite.make()
        let processor = SandboxProcessor()
        let wallets = InMemoryWalletRepository()
        let card = PaymentMethod(
            id: "pm_late", network: .mastercard, lastFour: "4444", expiry: CardExpiry(month: 12, year: 2030), displayName: "Expires 12/30")
        let desk = ProviderEventDesk(
            webhook: ScriptedWebhook(notices: [
                "evt_s": .cardSaved(customer: "ssh:SHA256:ada", card: card), "evt_s2": .cardSaved(customer: "ssh:SHA256:ada", card: card),
                "evt_g": .cardSaved(customer: "ssh-guest:0123456789abcdef", card: card),
            ]),
            events: fixture.providerEvents, backend: LiveMerchantBackend(processor: processor, orders: fixture.orders, dates: Fixtures.fixedDates),
            orders: fixture.orders, dates: Fixtures.fixedDates, wallets: wallets
        )
        let saved = try await desk.deliver("evt_s", type: "checkout.session.completed")
        #expect(saved.first?.logLine.hasSuffix("card pm_late (Mastercard ••4444) saved for ssh:SHA256:ada") == true, "\(saved)")
        let again = try await desk.deliver("evt_s2", type: "checkout.session.completed")
        #expect(again.first?.logLine.hasSuffix("card pm_late saved already") == true, "\(again)")
        let wallet = try wallets.wallet(forCustomer: "ssh:SHA256:ada")
        #expect(wallet.cards.map(\.id) == ["pm_late"] && wallet.defaultCardID == "pm_late", "the first card is the default")
        let guest = try await desk.deliver("evt_g", type: "checkout.session.completed")
        #expect(guest.first?.logLine.hasSuffix("ignored: card pm_late of a guest") == true, "\(guest)")
        #expect(try wallets.wallet(forCustomer: "ssh-guest:0123456789abcdef").cards.isEmpty)
    }

    @Test("a bad signature, an unreadable provider and an event for nobody change nothing", arguments: StockedRepositoryKind.allCases)
    func refusalsChangeNothing(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let processor = SandboxProcessor()
        let order = try await chargedOrder(fixture.orders, processor, settled: false)
        let desk = desk(
            fixture, processor,
            ScriptedWebhook(
                notices: ["evt_other": .ignored("not this shop's")], unreachable: ["evt_down"]
            ))

        let forged = await desk.receive(payload: ScriptedWebhook.payload("evt_forged"), signature: "forged")
        #expect(forged == .refused(.badSignature("not signed \"valid\"")))
        #expect(forged.httpStatus == 400)
        let down = try await desk.deliver("evt_down")
        guard case .postponed = down.first else {
            Issue.record("tried again later: \(down)")
            return
        }
        #expect(try await !fixture.providerEvents.handledEvent("evt_down", provider: "scripted"), "not logged, so a later pass applies it")
        let other = try await desk.deliver("evt_other")
        #expect(other == [.applied(ProviderEventHeader(id: "evt_other", type: "test.event"), orderNumber: nil, outcome: "ignored: not this shop's")])

        #expect(try await fixture.orders.order(number: order.number)?.status == .charging)
        #expect(try await fixture.orders.events(orderNumber: order.number).count == 1)
    }
}
