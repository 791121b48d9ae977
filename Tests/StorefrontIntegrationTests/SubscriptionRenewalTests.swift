import Foundation
import ShopApplication
import ShopBootstrap
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontTesting
import Testing

/// Subscriptions renewed over simulated periods with a moving clock, on SQLite and PostgreSQL: one order per period
/// whichever workers run, skips, pauses and changes taking effect on the right period, and a card that needs the bank's
/// check off-session retried on the schedule and then canceled.
@Suite("Subscription renewals", .ownThreads)
struct SubscriptionRenewalTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let week = RenewalSchedule.week

    /// A worker named `name` over `storage`, charging through a sandbox whose records are the storage's ledger (every
    /// host's workers reach the same provider).
    func worker(_ storage: ShopStorage, _ name: String) -> RenewalWorker {
        let processor = SandboxProcessor(ledger: storage.ledger)
        return RenewalWorker(
            store: storage.subscriptions, catalog: storage.catalog, wallets: storage.wallets, provider: SandboxPaymentProvider(processor: processor),
            backend: LiveMerchantBackend(processor: processor, orders: storage.orders, dates: DateSource { self.start }),
            methodData: SandboxProcessor.paymentData(for:), name: name, batch: 7)
    }

    /// A subscription to one Dusk Keycap Set every `weeks` weeks for `customer`, paid with `card`, first renewal at `start`.
    func subscribe(_ storage: ShopStorage, _ customer: String, card: SandboxCard = SandboxCard.all[0], weeks: Int = 2) async throws -> Subscription {
        // Enough keycaps for every delivery of every test: a renewal of something sold out fails, as an order would.
        _ = try await storage.stock.setStock(of: "keycap-dusk", onHand: 10_000)
        try await storage.wallets.addCard(card.paymentMethod, forCustomer: customer, makeDefault: true)
        let subscription = Subscription(
            id: "sub_\(customer)", customerID: customer, productID: "keycap-dusk", quantity: 1, intervalWeeks: weeks, renewsAt: start,
            cardID: card.walletID, cardDescription: card.paymentMethod.shortName, shipTo: Fixtures.jane, shippingMethodID: "standard")
        try await storage.subscriptions.create(
            subscription, event: SubscriptionEvent(at: start, actor: "shopper:\(customer)", kind: "created", detail: ""))
        return subscription
    }

    func paidOrders(_ storage: ShopStorage, _ customer: String) async throws -> [Order] {
        try await storage.orders.orders(customer: customer, offset: 0, limit: 100).filter { $0.status == .paid }
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func theCatalogKeepsTheIntervalsAProductIsSoldAsASubscriptionAt(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, other, _) = try await CodeSignInTests().storages(kind)
        #expect(try await storage.catalog.product(id: "coffee-beans")?.subscriptionWeeks == [1, 2, 4])
        #expect(try await other.catalog.product(id: "coffee-beans")?.subscriptionWeeks == [1, 2, 4], "as another host reads it")
        #expect(try await storage.catalog.product(id: "keycap-dusk")?.subscriptionWeeks == [])
    }

    /// Sold in the euro market (shipped to Berlin, told €56.00), a subscription renews in euros at the rates, however
    /// the worker's own catalog is priced: the order is in EUR and keeps its rate.
    @Test func aSubscriptionSoldInEurosRenewsInEuros() async throws {
        let (raw, _, _) = try await CodeSignInTests().storages(.sqlite)
        let storage = try ShopConfiguration().pricingMarkets(of: raw)
        _ = try await storage.stock.setStock(of: "keycap-dusk", onHand: 100)
        let card = SandboxCard.all[0]
        try await storage.wallets.addCard(card.paymentMethod, forCustomer: "acct_lena", makeDefault: true)
        let berlin = Contact(
            id: "lena", name: "Lena Vogel", email: "lena@example.de", phone: "",
            address: PostalAddress(street: "Hauptstraße 1", city: "Berlin", postalCode: "10115", countryCode: "DE"))
        var subscription = Subscription(
            id: "sub_lena", customerID: "acct_lena", productID: "keycap-dusk", quantity: 1, intervalWeeks: 2, renewsAt: start,
            cardID: card.walletID, cardDescription: card.paymentMethod.shortName, shipTo: berlin, shippingMethodID: "standard")
        subscription.unitPrice = Money(minorUnits: 5_600, currency: .eur)
        try await storage.subscriptions.create(
            subscription, event: SubscriptionEvent(at: start, actor: "shopper:acct_lena", kind: "created", detail: ""))
        #expect(try await worker(storage, "host").pass(at: start.addingTimeInterval(60)).renewed == ["sub_lena"])
        let order = try #require(try await paidOrders(storage, "acct_lena").first)
        #expect(order.totals.total == Money(minorUnits: 5_600 + 1_500, currency: .eur), "the keycaps and DHL's €15.00, VAT included")
        #expect(order.exchange?.rate == "0.86430424" && order.isRenewal)
        #expect(
            try await storage.subscriptions.subscription(id: "sub_lena")?.unitPrice == Money(minorUnits: 5_600, currency: .eur),
            "no price change told")
    }

    @Test func twoWorkersOnOnePostgresDatabaseMakeExactlyOneOrderPerPeriod() async throws {
        let (one, two, _) = try await CodeSignInTests().storages(.postgres)
        let customers = (0..<20).map { "acct_\($0)" }
        for customer in customers { _ = try await subscribe(one, customer) }
        let (first, second) = (worker(one, "host-a"), worker(two, "host-b"))
        for period in 0..<6 {
            let now = start.addingTimeInterval(Double(period) * 2 * week + 60)
            async let a = first.pass(at: now)
            async let b = second.pass(at: now)
            let (passA, passB) = try await (a, b)
            #expect(Set(passA.renewed).isDisjoint(with: passB.renewed), "no subscription renewed by both")
            #expect(passA.renewed.count + passB.renewed.count == 20, "period \(period + 2): every subscription once")
            // A repeated tick at the same moment finds nothing due, and charges nothing.
            #expect(try await first.pass(at: now).claimed == 0)
        }
        for customer in customers {
            let orders = try await paidOrders(two, customer)
            #expect(orders.count == 6, "\(customer): one order per period")
            #expect(try await one.subscriptions.subscription(id: "sub_\(customer)")?.period == 8)
        }
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func aWorkerThatStopsAfterItsClaimLeavesTheRenewalToTheNextOnceItsLeaseRunsOut(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, _, _) = try await CodeSignInTests().storages(kind)
        let subscription = try await subscribe(storage, "acct_crash")
        // A worker claims it and stops before charging: nobody else may take it while its lease holds.
        let taken = try await storage.subscriptions.claimDue(at: start, limit: 10, worker: "dead", leaseUntil: start.addingTimeInterval(300))
        #expect(taken.map(\.id) == [subscription.id])
        let other = worker(storage, "alive")
        #expect(try await other.pass(at: start.addingTimeInterval(60)).claimed == 0)
        // The dead worker had charged under the renewal's key before it stopped: the next charge under it finds that one.
        let processor = SandboxProcessor(ledger: storage.ledger)
        let product = try #require(try await storage.catalog.product(id: "keycap-dusk"))
        var cart = Cart(currency: storage.currency)
        _ = cart.add(product)
        let draft = try PlaceOrder.draft(
            lines: cart.lines, shippingMethodID: "standard", contact: Fixtures.jane, customerID: "acct_crash", shop: storage.catalog.shop,
            offSession: true)
        let card = SandboxCard.all[0].paymentMethod
        let payment = Payment(
            method: card, methodData: SandboxProcessor.paymentData(for: card), shippingContact: draft.shippingContact,
            shippingMethod: draft.shippingMethod, transactionIdentifier: subscription.renewalKey)
        let (charged, _) = await PlaceOrder(
            provider: SandboxPaymentProvider(processor: processor),
            backend: LiveMerchantBackend(processor: processor, orders: storage.orders, dates: DateSource { self.start })
        ).charge(draft, paying: payment, key: subscription.renewalKey, token: nil)
        guard case .paid(let first) = charged else {
            Issue.record("the dead worker's charge: \(charged)")
            return
        }
        let renewal = try #require(try await other.pass(at: start.addingTimeInterval(301)).renewed.first)
        #expect(renewal == subscription.id)
        #expect(try await paidOrders(storage, "acct_crash").map(\.number) == [first.orderNumber], "the dead worker's order, and no other")
        #expect(try await paidOrders(storage, "acct_crash").map(\.isRenewal) == [true], "a renewal, as its receipt will say")
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func skipPauseAndChangesTakeEffectOnTheRightPeriodAndAFailingCardEndsInCancel(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, _, _) = try await CodeSignInTests().storages(kind)
        let renewals = worker(storage, "host")
        let subscription = try await subscribe(storage, "acct_jane")
        let id = subscription.id
        func change(_ what: String, _ body: @escaping @Sendable (Subscription) -> Subscription) async throws {
            _ = try await storage.subscriptions.update(
                id, worker: nil, event: SubscriptionEvent(at: start, actor: "shopper:acct_jane", kind: "changed", detail: what), body)
        }
        let (start, week) = (start, week)
        @Sendable func at(_ weeks: Double) -> Date { start.addingTimeInterval(weeks * week + 60) }

        // Period 2 renews at once; period 3 is skipped: no order, the schedule keeps its dates.
        #expect(try await renewals.pass(at: at(0)).renewed == [id])
        try await change("skip the next delivery") {
            var s = $0
            s.skipsNext = true
            return s
        }
        #expect(try await renewals.pass(at: at(2)).skipped == [id])
        #expect(try await paidOrders(storage, "acct_jane").count == 1)
        // Paused over period 4: nothing renews; resumed, period 4 is due at the next date of the schedule.
        try await change("paused") {
            var s = $0
            s.status = .paused
            return s
        }
        #expect(try await renewals.pass(at: at(4)).claimed == 0)
        try await change("resumed") { $0.resumed(at: at(5)) }
        var now = try #require(try await storage.subscriptions.subscription(id: id))
        #expect(now.renewsAt == start.addingTimeInterval(6 * week) && now.period == 4)
        // A new address and interval before period 4: period 4 ships there, and period 5 comes 4 weeks after it.
        var elsewhere = Fixtures.jane
        elsewhere.address.street = "2 Infinite Loop"
        try await change("address and interval") { [elsewhere] in
            var s = $0
            s.shipTo = elsewhere
            s.intervalWeeks = 4
            return s
        }
        #expect(try await renewals.pass(at: at(6)).renewed == [id])
        let fourth = try #require(try await paidOrders(storage, "acct_jane").first)
        #expect(fourth.shipTo.contains("2 Infinite Loop"))
        now = try #require(try await storage.subscriptions.subscription(id: id))
        #expect(now.renewsAt == start.addingTimeInterval(10 * week) && now.period == 5)

        // From period 5 the card has too little on it, a decline that may pass later: past due, retried 1, 3 and 5 days
        // after each failure, then canceled; no order is paid meanwhile.
        let strict = SandboxCard.all.first { $0.outcome == .declines(.insufficientFunds) }!
        try await storage.wallets.addCard(strict.paymentMethod, forCustomer: "acct_jane", makeDefault: false)
        try await change("card") {
            var s = $0
            s.cardID = strict.walletID
            s.cardDescription = strict.paymentMethod.shortName
            return s
        }
        var moment = at(10)
        for retry in 0...RenewalSchedule.retryDays.count {
            #expect(try await renewals.pass(at: moment).failed == [id], "try \(retry + 1)")
            now = try #require(try await storage.subscriptions.subscription(id: id))
            if retry < RenewalSchedule.retryDays.count {
                #expect(now.status == .pastDue && now.failedAttempts == retry + 1)
                #expect(now.dueAt == moment.addingTimeInterval(Double(RenewalSchedule.retryDays[retry]) * RenewalSchedule.day))
                moment = now.dueAt
            }
        }
        #expect(now.status == .canceled)
        #expect(try await renewals.pass(at: moment.addingTimeInterval(100 * week)).claimed == 0)
        #expect(try await paidOrders(storage, "acct_jane").count == 2)
        let kinds = try await storage.subscriptions.history(of: id).map(\.kind)
        #expect(
            kinds == [
                "created", "renewed", "changed", "skipped", "changed", "changed", "changed", "renewed", "changed", "failed", "failed", "failed",
                "canceled",
            ])
        // Each failure and the cancel wait in the outbox for the subscriber, written with their events; sent, they are due no more.
        let due = try await storage.subscriptions.dueMail(at: moment, limit: 10)
        #expect(due.map(\.event.kind) == ["failed", "failed", "failed", "canceled"] && due.allSatisfy { $0.recipient.address == "jane@example.com" })
        for entry in due { try await storage.subscriptions.recordMail(.sent, subscription: id, sequence: entry.sequence, at: moment) }
        #expect(try await storage.subscriptions.dueMail(at: moment, limit: 10).isEmpty)
    }
}
