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

/// The "Code" row of the payment sheet: Enter opens a field, a code that applies shows as its own line of the summary
/// with the total after it in the same frame, one that does not says why in one line, and the order keeps it.
@MainActor
@Suite("Discount code on the payment sheet")
struct DiscountCodeSheetTests {
    /// A stack whose shop has `codes`, and a driver on its payment sheet for one keycap ($64.00), on the "Code" row.
    func sheet(with codes: [DiscountCode], size: Size = Size(columns: 80, rows: 24), provider: (any PaymentProvider)? = nil) async throws
        -> ScriptedDriver
    {
        var stack = TestStack()
        if let provider { stack.paymentProvider = provider }
        let discounts = SQLDiscountCodes(database: stack.database)
        for code in codes { try await discounts.create(code, at: Fixtures.fixedDates.now()) }
        let driver = await ScriptedDriver(stack: stack, size: size)
        try await driver.press("a,c,enter,down,down,down,down")
        #expect(driver.state.paymentSheet?.selectedRow == .discountCode)
        return driver
    }

    func enter(_ code: String, on driver: ScriptedDriver) async throws {
        try await driver.press("enter")
        #expect(driver.state.form?.purpose == .discountCode)
        for _ in 0..<40 { await driver.press(Key.backspace, settle: false) }
        await driver.type(code)
        try await driver.press("enter")
    }

    @Test func aCodeThatAppliesIsALineOfTheSummaryAndTheTotalFollowsInTheSameFrame() async throws {
        let driver = try await sheet(with: [DiscountCode(code: "LAUNCH10", kind: .percentage(basisPoints: 1_000))])
        try await enter("launch10", on: driver)
        #expect(driver.state.form == nil)
        let summary = try #require(driver.state.paymentSheet?.summaryItems)
        // $64.00 less $6.40; California's 7.25 % on the $57.60 paid is $4.18.
        #expect(summary.map(\.label) == ["Subtotal", "Discount LAUNCH10", "Shipping (Standard)", "Sales tax", "Storefront"])
        #expect(summary.map(\.amount.minorUnits) == [6_400, -640, 0, 418, 6_178])
        #expect(driver.state.paymentSheet?.rowValues[.discountCode] == "LAUNCH10 · $6.40 off")
        // The first frame drawn with the discount's line has the new total in it too.
        let first = try #require(driver.renderer.frameTexts.first { $0.contains("Discount LAUNCH10") })
        #expect(first.contains("-$6.40") && first.contains("$61.78"))
        try await driver.press("p,enter")
        let number = try #require(driver.state.confirmation?.orderNumber)
        let order = try #require(try await driver.stack.orders.order(number: number))
        #expect(order.discount?.code == "LAUNCH10" && order.totals.discount.minorUnits == 640 && order.totals.total.minorUnits == 6_178)
        let uses = try await SQLDiscountCodes(database: driver.stack.database).uses(of: "LAUNCH10", customer: order.customerID)
        #expect(uses == (1, 1))
    }

    /// A code that leaves nothing to pay, or less than the provider's smallest charge, makes an order no card can pay:
    /// refused in the field, the sheet as it was, before Pay.
    @Test func aCodeThatLeavesTooLittleToPayIsRefusedBeforePay() async throws {
        let driver = try await sheet(with: [DiscountCode(code: "FREE", kind: .percentage(basisPoints: 10_000))])
        let before = driver.state.paymentSheet?.summaryItems
        try await enter("free", on: driver)
        let nothing = DiscountRefusal.leavesTooLittle(total: .zero(.usd), why: nil)
        #expect(driver.state.form?.fields.first?.error == .lookup(nothing.line))
        #expect(nothing.line == "With that code the order would be $0.00, which a card cannot pay: the shop does not give orders away.")
        #expect(driver.state.paymentSheet?.summaryItems == before && driver.state.paymentSheet?.rowValues[.discountCode] == "Add a code")
        // What is left is under the smallest charge the provider takes (Stripe's $0.50 in USD): its words are added.
        let smallest = "The smallest card payment in USD is $0.50."
        let stripeLike = try await sheet(
            with: [DiscountCode(code: "ALMOST", kind: .fixed(Money(minorUnits: 6_370, currency: .usd)))],
            provider: PaymentProviderStub(refusingCharges: smallest))
        try await enter("almost", on: stripeLike)
        #expect(stripeLike.state.form?.fields.first?.error == "With that code the order would be $0.32. \(smallest)")
        #expect(stripeLike.state.paymentSheet?.summaryItems == before && stripeLike.state.paymentSheet?.rowValues[.discountCode] == "Add a code")
    }

    @Test func aCodeThatDoesNotApplySaysWhyInOneLineAndChangesNothing() async throws {
        let usd = Currency.usd
        let now = Fixtures.fixedDates.now()
        let driver = try await sheet(with: [
            DiscountCode(code: "OLD", kind: .freeShipping, endsAt: now.addingTimeInterval(-1)),
            DiscountCode(code: "SOON", kind: .freeShipping, startsAt: now.addingTimeInterval(3_600)),
            DiscountCode(
                code: "BIG", kind: .fixed(Money(minorUnits: 500, currency: usd)), minimumSubtotal: Money(minorUnits: 100_000, currency: usd)),
            DiscountCode(code: "MUGS", kind: .percentage(basisPoints: 500), onlyFor: ["mug-stdout"]),
            DiscountCode(code: "PAUSED", kind: .percentage(basisPoints: 500), isPaused: true),
        ])
        let before = driver.state.paymentSheet?.summaryItems
        let cases: [(String, DiscountRefusal)] = [
            ("old", .expired), ("soon", .notYet), ("big", .belowMinimum(Money(minorUnits: 100_000, currency: usd))), ("mugs", .otherProducts),
            ("paused", .unknown), ("nosuch", .unknown), ("no such!", .unknown),
        ]
        for (typed, refusal) in cases {
            try await enter(typed, on: driver)
            #expect(driver.state.form?.fields.first?.error == .lookup(refusal.line), "\(typed)")
            #expect(driver.frameText.contains(refusal.line), "\(typed): \(driver.frameText)")
            try await driver.press("esc")
        }
        #expect(driver.state.paymentSheet?.summaryItems == before)
        #expect(driver.state.paymentSheet?.rowValues[.discountCode] == "Add a code")
        // A paused code and one the shop never had read the same: nothing tells a guesser which exists.
        #expect(DiscountRefusal.unknown.line == "That code is not one this shop has.")
    }

    @Test func anEmptyFieldTakesTheCodeOff() async throws {
        let driver = try await sheet(with: [DiscountCode(code: "SHIPFREE", kind: .freeShipping)])
        try await enter("shipfree", on: driver)
        #expect(driver.state.paymentSheet?.summaryItems.contains { $0.label == "Discount SHIPFREE" } == true)
        try await enter("", on: driver)
        #expect(driver.state.paymentSheet?.summaryItems.map(\.label) == ["Subtotal", "Shipping (Standard)", "Sales tax", "Storefront"])
        #expect(driver.state.notice?.text == "Took the code SHIPFREE off.")
    }

    @Test func tooManyUnknownCodesStopTheField() async throws {
        let driver = try await sheet(with: [DiscountCode(code: "REAL", kind: .freeShipping)])
        for attempt in 0..<CheckoutFeature.unknownCodeTries {
            try await enter("GUESS\(attempt)", on: driver)
            try await driver.press("esc")
        }
        try await enter("REAL", on: driver)
        #expect(driver.state.form?.fields.first?.error == "Too many codes that are not this shop's: try again in a new session.")
    }

    /// The code's field, a refusal in it, and the sheet with the code's line, at three sizes.
    @Test(
        "discount code screens at 80x24, 40x12 and 200x60", arguments: ["discount-field", "discount-refused", "discount-applied"],
        SnapshotTests.sizes)
    func snapshot(name: String, size: Size) async throws {
        let driver = try await sheet(
            with: [
                DiscountCode(code: "LAUNCH10", kind: .percentage(basisPoints: 1_000)),
                DiscountCode(code: "MUGS", kind: .percentage(basisPoints: 500), onlyFor: ["mug-stdout"]),
            ], size: size)
        switch name {
        case "discount-field":
            try await driver.press("enter")
            await driver.type("launch")
        case "discount-refused": try await enter("mugs", on: driver)
        default: try await enter("launch10", on: driver)
        }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }
}
