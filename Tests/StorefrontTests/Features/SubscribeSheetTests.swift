import Foundation
import ShopModels
import ShopPorts
import SnapshotTesting
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Subscribe on a product's page: the payment sheet with an "Every" row (the interval, the next date, what each
/// renewal costs), a prompt that says it repeats, and, once paid, a subscription on the card and address paid with.
@MainActor
@Suite("Subscribe from a product's page")
struct SubscribeSheetTests {
    static let customer = "acct_jane"

    /// A signed-in shopper (a guest when `signedIn` is false) on Compile-Time Coffee's page.
    func onCoffee(signedIn: Bool = true, size: Size = Size(columns: 100, rows: 30)) async throws -> ScriptedDriver {
        var stack = TestStack(guestID: Self.customer)
        if signedIn { stack.signedIn = SignedInAccount(provider: .sshKey, userID: "jane", customerID: Self.customer) }
        let driver = await ScriptedDriver(stack: stack, size: size)
        try await driver.press("/")
        await driver.type("compile-time")
        try await driver.press("enter,enter")
        #expect(driver.state.productDetail?.product.id == "coffee-beans")
        return driver
    }

    @Test func thePageOffersSubscribeBesideAddAndTheSheetShowsTheSchedule() async throws {
        let driver = try await onCoffee()
        #expect(driver.frameText.contains("Also by subscription: every 1, 2 or 4 weeks"), "\(driver.frameText)")
        #expect(driver.frameText.contains("r subscribe"), "the footer offers it")
        try await driver.press("r")
        let sheet = try #require(driver.state.paymentSheet)
        #expect(sheet.rows == PaymentSheetRow.subscribing)
        // $17.00 of beans, $4.99 standard shipping, California's 7.25 % on the beans: $23.22 now and at each renewal.
        #expect(sheet.summaryItems.last?.amount.minorUnits == 2_322)
        let next = UTCTime(Fixtures.fixedDates.now().addingTimeInterval(RenewalSchedule.week)).calendarDate
        #expect(sheet.rowValues[.schedule] == "week · next \(next) · then $23.22 each")
        // ↑ to the row, Enter for its choices, the second one: every 2 weeks.
        try await driver.press("up,enter")
        #expect(driver.state.paymentSheet?.chooser?.options.map(\.title) == ["Every week", "Every 2 weeks", "Every 4 weeks"])
        try await driver.press("down,enter")
        let later = UTCTime(Fixtures.fixedDates.now().addingTimeInterval(2 * RenewalSchedule.week)).calendarDate
        #expect(driver.state.paymentSheet?.rowValues[.schedule] == "2 weeks · next \(later) · then $23.22 each")
        try await driver.press("p")
        #expect(
            driver.state.paymentSheet?.authorizationPrompt
                == "Pay Storefront $23.22 now and every 2 weeks until you cancel? Enter to confirm, Esc to cancel")
    }

    @Test func payingStartsASubscriptionOnTheCardAndAddressPaidWith() async throws {
        let driver = try await onCoffee()
        try await driver.press("r,up,enter,down,enter,p,enter")
        let confirmation = try #require(driver.state.confirmation)
        let later = Fixtures.fixedDates.now().addingTimeInterval(2 * RenewalSchedule.week)
        #expect(confirmation.subscription == "Every 2 weeks · next on \(UTCTime(later).calendarDate) · u to change or cancel")
        #expect(driver.frameText.contains("Every 2 weeks"), "\(driver.frameText)")
        let store = SQLSubscriptions(database: driver.stack.database)
        let started = try await store.subscriptions(customer: Self.customer)
        let order = try #require(try await driver.stack.orders.order(number: confirmation.orderNumber))
        let wallet = try driver.stack.wallets.wallet(forCustomer: Self.customer)
        let card = try #require(wallet.cards.first { $0.shortName == order.paymentDescription })
        #expect(started.count == 1)
        let subscription = try #require(started.first)
        #expect(subscription.id == "sub_\(order.number)")
        #expect(subscription.productID == "coffee-beans" && subscription.variantSKU == "coffee-beans-whole-250g" && subscription.quantity == 1)
        #expect(subscription.intervalWeeks == 2 && subscription.period == 2 && subscription.renewsAt == later && subscription.status == .active)
        #expect(subscription.cardID == card.id && subscription.cardDescription == card.shortName)
        #expect(subscription.shipTo.shipToLine == order.shipTo && subscription.shippingMethodID == order.shippingMethodID)
        #expect(try await store.history(of: subscription.id).map(\.kind) == ["created"])
    }

    @Test func aGuestIsAskedToSignInFirst() async throws {
        let driver = try await onCoffee(signedIn: false)
        try await driver.press("r")
        #expect(driver.state.paymentSheet == nil)
        #expect(driver.state.notice?.text == "A subscription is kept on your account: sign in first (u, then i).")
    }

    @Test func aProductNotSoldBySubscriptionOffersNoSubscribe() async throws {
        var stack = TestStack(guestID: Self.customer)
        stack.signedIn = SignedInAccount(provider: .sshKey, userID: "jane", customerID: Self.customer)
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("enter,r")
        #expect(driver.state.productDetail?.product.id == "keycap-dusk")
        #expect(driver.state.paymentSheet == nil && !driver.frameText.contains("subscribe"))
    }

    /// The page with its note, the sheet with its "Every" row, and the "Thank you" that names the schedule, at three sizes.
    @Test("subscribe screens at 80x24, 40x12 and 200x60", arguments: ["subscribe-page", "subscribe-sheet", "subscribe-thanks"], SnapshotTests.sizes)
    func snapshot(name: String, size: Size) async throws {
        let driver = try await onCoffee(size: size)
        switch name {
        case "subscribe-page": break
        case "subscribe-sheet": try await driver.press("r")
        default: try await driver.press("r,p,enter")
        }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }
}
