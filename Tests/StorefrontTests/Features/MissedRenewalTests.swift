import Foundation
import LiveObjects
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import Synchronization
import Testing

/// A subscriber whose card starts needing the bank's check off-session in period 3: the renewal fails, the
/// subscription is past due and a message tells the subscriber where to pay; paying the missed delivery on the sheet
/// brings it back, charged to the card paid with. A card that keeps failing ends in a cancel and a message.
@MainActor
@Suite("A missed renewal, told and paid")
struct MissedRenewalTests {
    /// A transport that keeps what it was handed.
    final class KeptMail: MailTransport, LiveObject {
        let sent = Mutex<[MailMessage]>([])
        func send(_ message: MailMessage) throws(MailTransportError) { sent.withLock { $0.append(message) } }
    }

    static let shopURL = "https://shop.example/"

    func worker(_ stack: TestStack) -> RenewalWorker {
        RenewalWorker(
            store: SQLSubscriptions(database: stack.database), catalog: stack.catalog, wallets: stack.wallets, provider: stack.paymentProvider,
            backend: stack.merchantBackend, methodData: SandboxProcessor.paymentData(for:), name: "host")
    }

    func delivery(_ stack: TestStack, _ mail: KeptMail, at now: Date) -> MailDelivery {
        let store = SQLSubscriptions(database: stack.database)
        return MailDelivery(
            outbox: SQLOutbox(database: stack.database), orders: stack.orders, transport: mail, shop: stack.catalog.shop,
            sender: MailSender(from: MailAddress(name: "Storefront", address: "shop@example.com")), dates: DateSource { now },
            subscriptionMail: SubscriptionMailSource(mailbox: store, store: store, catalog: stack.catalog, manage: Self.shopURL))
    }

    /// Subscribed weekly with Visa ••4242, renewed once (period 2), then switched on the subscriptions screen to `card`
    /// (the card that needs the bank's check off-session unless told otherwise).
    func subscribedThenSwitchedCard(to card: String = "Charge Visa ••3184  Test: authenticate off-session") async throws -> (ScriptedDriver, String) {
        let driver = try await SubscribeSheetTests().onCoffee()
        try await driver.press("r,p,enter")
        let start = Fixtures.fixedDates.now()
        let id = try #require(
            try await SQLSubscriptions(database: driver.stack.database).subscriptions(customer: SubscribeSheetTests.customer).first?.id)
        #expect(try await worker(driver.stack).pass(at: start.addingTimeInterval(RenewalSchedule.week + 60)).renewed == [id])
        try await driver.press("u,r")
        try await SubscriptionsScreenTests().apply(card, on: driver)
        return (driver, id)
    }

    @Test func period3NeedsTheBanksCheckTheSubscriberIsToldAndPayingOnTheSheetResumesIt() async throws {
        let (driver, id) = try await subscribedThenSwitchedCard()
        let store = SQLSubscriptions(database: driver.stack.database)
        let period3 = Fixtures.fixedDates.now().addingTimeInterval(2 * RenewalSchedule.week + 60)
        #expect(try await worker(driver.stack).pass(at: period3).failed == [id])
        let pastDue = try #require(try await store.subscription(id: id))
        #expect(pastDue.status == .pastDue && pastDue.period == 3 && pastDue.failedAttempts == 1)
        // The bank wants the subscriber there: never tried off-session again, brought to the sheet instead.
        #expect(pastDue.dueAt == RenewalSchedule.waitsForSubscriber, "not tried again without the subscriber")
        #expect(try await worker(driver.stack).pass(at: period3.addingTimeInterval(30 * RenewalSchedule.day)).claimed == 0)

        let mail = KeptMail()
        let pass = try await delivery(driver.stack, mail, at: period3).deliverDue()
        #expect(pass.sent.contains("\(id)#4"), "\(pass)")
        let message = try #require(mail.sent.withLock { $0.first { $0.subject.contains("could not be renewed") } })
        #expect(message.to.address == "jane@example.com")
        #expect(message.subject == "Your Compile-Time Coffee — Whole bean · 250 g subscription could not be renewed")
        #expect(message.text.contains("We could not charge Visa ••3184"))
        #expect(message.text.contains(DeclineReason.authenticationRequired.message))
        #expect(message.text.contains("this card is not tried again: add another card, or pay the delivery yourself."), "\(message.text)")
        #expect(message.text.contains("Go to \(Self.shopURL), open your account (u), then your subscriptions (r)."))
        #expect(try await delivery(driver.stack, mail, at: period3).deliverDue().sent.isEmpty, "sent once")

        // The link's steps: the account, the subscriptions, "Pay the missed delivery now", and Pay on the sheet.
        try await driver.press("s,u,r")
        #expect(driver.frameText.contains("Past due: Visa ••3184 cannot be charged again without you"), "\(driver.frameText)")
        try await SubscriptionsScreenTests().apply("Pay the missed delivery now", on: driver)
        #expect(driver.state.paymentSheet?.rows == PaymentSheetRow.standard)
        try await driver.press("p,enter")
        #expect(driver.state.confirmation?.subscription == "Your subscription is active again, charged to this card · u to see it")
        let back = try #require(try await store.subscription(id: id))
        #expect(back.status == .active && back.period == 4 && back.failedAttempts == 0 && back.cardDescription == "Visa ••4242")
        // The card paid with is charged from now on: it was set up for off-session use as it paid, as the first order's was.
        #expect(await driver.stack.processor.keysSavingCardsForRenewals.count == 2, "the first order and the missed delivery")
        #expect(back.renewsAt > period3, "the next delivery is on the schedule, after now")
        #expect(try await store.history(of: id).last?.kind == "renewed")
        #expect(try await worker(driver.stack).pass(at: period3.addingTimeInterval(RenewalSchedule.day)).claimed == 0, "nothing due again")
    }

    /// The provider's own rule (its smallest charge) refuses a renewal before any card is tried: said as what it is on
    /// the subscription and in its history, never as a decline, and not left to the lease to be tried every 5 minutes.
    @Test func aRenewalTheProviderCannotChargeIsSaidAsItsRuleNotTheCards() async throws {
        let driver = try await SubscribeSheetTests().onCoffee()
        try await driver.press("r,p,enter")
        let store = SQLSubscriptions(database: driver.stack.database)
        let id = try #require(try await store.subscriptions(customer: SubscribeSheetTests.customer).first?.id)
        // Its address carries no email: the message goes to the account's verified one.
        let noEmail = SubscriptionEvent(at: Fixtures.fixedDates.now(), actor: "test", kind: "address", detail: "email cleared")
        _ = try await store.update(id, worker: nil, event: noEmail) { current in
            var next = current
            next.shipTo.email = ""
            return next
        }
        let rule = "The smallest card payment in USD is $50.00; this order is $18.00."
        var strict = worker(driver.stack)
        strict.provider = PaymentProviderStub(refusingCharges: rule)
        let customer = SubscribeSheetTests.customer
        strict.accountEmail = { $0 == customer ? MailAddress(name: "Jane", address: "jane.verified@example.com") : nil }
        let due = Fixtures.fixedDates.now().addingTimeInterval(RenewalSchedule.week + 60)
        let pass = try await strict.pass(at: due)
        #expect(pass.failed == [id] && pass.leftForLater.isEmpty)
        let after = try #require(try await store.subscription(id: id))
        #expect(after.lastFailure == rule && after.failedAttempts == 1)
        let told = try #require(try await store.history(of: id).last)
        #expect(told.kind == "undeliverable" && told.detail.contains(rule) && !told.detail.contains("declined"), "\(told)")
        let mail = KeptMail()
        _ = try await delivery(driver.stack, mail, at: due).deliverDue()
        let message = try #require(mail.sent.withLock { $0.first { $0.subject.contains("could not be sent") } })
        #expect(message.to.address == "jane.verified@example.com" && message.text.contains(rule), "\(message.text)")
        #expect(!message.text.contains("We could not charge"), "not blamed on the card: \(message.text)")
    }

    /// A decline that may pass later (insufficient funds) is tried again 1, 3 and 5 days on, then the subscription ends.
    @Test func aCardThatKeepsFailingEndsInACancelAndAMessage() async throws {
        let (driver, id) = try await subscribedThenSwitchedCard(to: "Charge Visa ••9995  Test: insufficient funds")
        let store = SQLSubscriptions(database: driver.stack.database)
        var now = Fixtures.fixedDates.now().addingTimeInterval(2 * RenewalSchedule.week + 60)
        for _ in 0...RenewalSchedule.retryDays.count {
            #expect(try await worker(driver.stack).pass(at: now).failed == [id])
            now = try #require(try await store.subscription(id: id)).dueAt
        }
        #expect(try await store.subscription(id: id)?.status == .canceled)
        let mail = KeptMail()
        _ = try await delivery(driver.stack, mail, at: now).deliverDue()
        let subjects = mail.sent.withLock { $0.map(\.subject) }
        #expect(subjects.filter { $0.hasSuffix("could not be renewed") }.count == RenewalSchedule.retryDays.count)
        #expect(subjects.contains("Your Compile-Time Coffee — Whole bean · 250 g subscription has ended"), "\(subjects)")
    }

    @Test func aNewPriceIsToldFirstAndChargedFromThePeriodAfter() async throws {
        let driver = try await SubscribeSheetTests().onCoffee()
        try await driver.press("r,p,enter")
        let stack = driver.stack
        let store = SQLSubscriptions(database: stack.database)
        let id = try #require(try await store.subscriptions(customer: SubscribeSheetTests.customer).first?.id)
        #expect(try await store.subscription(id: id)?.unitPrice?.minorUnits == 1_700, "the price paid when subscribing")
        // The merchant raises the 250 g bags to $20.00.
        let editor = SQLCatalogEditor(database: stack.database, shop: stack.catalog.shop)
        let coffee = try #require(try await editor.products().first { $0.id == "coffee-beans" })
        var document = try #require(try JSONSerialization.jsonObject(with: Data(coffee.document.utf8)) as? [String: Any])
        document["variants"] = (document["variants"] as? [[String: Any]])?.map { variant in
            var changed = variant
            if (variant["sku"] as? String)?.hasSuffix("250g") == true { changed["price"] = 2_000 }
            return changed
        }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
        _ = try await editor.apply(
            CatalogEdit(productID: "coffee-beans", change: .update(document: text), expectedVersion: coffee.version, actor: "local:owner"),
            at: Fixtures.fixedDates.now())
        let renewals = worker(stack)
        let week = RenewalSchedule.week
        let start = Fixtures.fixedDates.now()
        // Period 2 still costs what the subscriber was told; the new price is told at once, for period 3.
        #expect(try await renewals.pass(at: start.addingTimeInterval(week + 60)).renewed == [id])
        let orders = try await stack.orders.orders(customer: SubscribeSheetTests.customer, offset: 0, limit: 10)
        #expect(orders.first?.totals.subtotal.minorUnits == 1_700, "period 2 at the old price")
        #expect(try await store.subscription(id: id)?.unitPrice?.minorUnits == 2_000)
        let mail = KeptMail()
        _ = try await delivery(stack, mail, at: start.addingTimeInterval(week + 120)).deliverDue()
        let notice = try #require(mail.sent.withLock { $0.first { $0.subject.hasPrefix("The price of your") } })
        let period3 = UTCTime(start.addingTimeInterval(2 * week)).calendarDate
        #expect(notice.text.contains("From your delivery on \(period3), Compile-Time Coffee — Whole bean · 250 g costs $20.00 each (was $17.00)."))
        #expect(try await renewals.pass(at: start.addingTimeInterval(2 * week + 60)).renewed == [id])
        let later = try await stack.orders.orders(customer: SubscribeSheetTests.customer, offset: 0, limit: 10)
        #expect(later.first?.totals.subtotal.minorUnits == 2_000, "period 3 at the new price")
        #expect(try await store.history(of: id).map(\.kind) == ["created", "renewed", "price", "renewed"])
    }
}
