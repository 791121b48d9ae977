import Foundation
import ShopModels
import SnapshotTesting
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The payment sheet's Items row: what is being bought, each line with its variant, quantity and price, listed under
/// the row where the sheet has room and folded to a count that Enter opens where it has not.
@Suite("Items on the payment sheet")
@MainActor
struct SheetItemsTests {
    /// Six lines on the sheet: the first four products, and two variants of the coffee (one of them twice).
    static func fillCart(_ driver: ScriptedDriver) async throws {
        try await driver.press("a,down,a,down,a,down,a")
        try await coffeePage(driver)
        try await driver.press("right,down,right,a,left,up,right,a,a,c,enter")
    }

    static func coffeePage(_ driver: ScriptedDriver) async throws {
        try await driver.press("/")
        await driver.type("compile-time")
        try await driver.press("enter,enter")
        #expect(driver.state.productDetail?.product.id == "coffee-beans")
    }

    @Test func theSheetListsEachLineWithItsVariantQuantityAndPrice() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 120, rows: 34))
        try await Self.fillCart(driver)
        let sheet = try #require(driver.state.paymentSheet)
        #expect(
            sheet.items.map { "\($0.title) \($0.amount)" } == [
                "1 × Dusk Keycap Set $64.00", "1 × stdout Mug $18.00", "1 × Aurora Desk Lamp $49.00", "1 × Grid Notebook $14.00",
                "1 × Compile-Time Coffee — Filter · 1 kg $54.00", "2 × Compile-Time Coffee — Espresso · 250 g $34.00",
            ], "\(driver.frameText)")
        #expect(sheet.itemQuantity == 7 && sheet.rows.first == .items)
        #expect(sheet.summaryItems.first?.amount == Money(minorUnits: 23_300, currency: .usd), "the lines add up to the subtotal")
        // Listed under the row, which says how many.
        #expect(driver.frameText.contains("Items     7 items"), "\(driver.frameText)")
        #expect(driver.frameText.contains("2 × Compile-Time Coffee — Espresso · 250 g"))
    }

    @Test func whereTheSheetIsSmallTheRowFoldsAndEnterOpensItsListThenClosesIt() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 80, rows: 24))
        try await Self.fillCart(driver)
        #expect(driver.frameText.contains("Items     7 items"))
        #expect(!driver.frameText.contains("stdout Mug"), "folded: the lines are not drawn")
        try await driver.press("up")
        #expect(driver.state.paymentSheet?.selectedRow == .items)
        try await driver.press("enter")
        let chooser = try #require(driver.state.paymentSheet?.chooser)
        #expect(chooser.row == .items && chooser.options.count == 6 && chooser.addTitle == nil)
        #expect(driver.frameText.contains("In this order") && driver.frameText.contains("1 × stdout Mug"), "\(driver.frameText)")
        #expect(driver.frameText.contains("Enter close"), "a list to read: Enter closes it")
        let before = driver.state.paymentSheet.map { ($0.rowValues, $0.summaryItems, $0.items) }
        try await driver.press("down,enter")
        let after = try #require(driver.state.paymentSheet)
        #expect(after.phase == .reviewing && after.selectedRow == .items)
        #expect(before?.0 == after.rowValues && before?.1 == after.summaryItems && before?.2 == after.items, "nothing on the sheet changed")
    }

    @Test func aSubscriptionsLineSaysItsSchedule() async throws {
        var stack = TestStack(guestID: "acct_jane")
        stack.signedIn = SignedInAccount(provider: .sshKey, userID: "jane", customerID: "acct_jane")
        let driver = await ScriptedDriver(stack: stack, size: Size(columns: 120, rows: 34))
        try await Self.coffeePage(driver)
        try await driver.press("r")
        let item = try #require(driver.state.paymentSheet?.items.first)
        let next = UTCTime(Fixtures.fixedDates.now().addingTimeInterval(RenewalSchedule.week)).calendarDate
        #expect(item.schedule?.description == "every week, next on \(next)", "\(driver.frameText)")
        #expect(driver.frameText.contains("every week, next on \(next)"), "drawn under its line")
    }

    @Test(
        "the Items row at 80x24, 120x34 and 200x60", arguments: ["items", "items-open"],
        [Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60)])
    func snapshots(name: String, size: Size) async throws {
        let driver = await ScriptedDriver(size: size)
        try await Self.fillCart(driver)
        if name == "items-open" { try await driver.press("up,enter") }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }
}
