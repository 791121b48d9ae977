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

/// The console's discount codes (`storefront admin`, key 5) on the shop's database: made in a form checked as the
/// command checks its options, paused and resumed, and deleted only while no order used them.
@MainActor
@Suite("The console's discount codes")
struct DiscountConsoleTests {
    let shopStack = TestStack()

    func console(size: Size = Size(columns: 80, rows: 24)) async -> ScriptedDriver {
        var stack = shopStack
        stack.console = .merchant(name: "local:ada")
        stack.backOffice = stack.liveBackOffice
        return await ScriptedDriver(stack: stack, size: size)
    }

    /// An order of one mug begun with `code` on the shop's database, holding one of its uses.
    func holdUse(of code: DiscountCode) async throws -> Order {
        let mug = try #require(try await shopStack.catalog.product(id: "mug-stdout"))
        return try await shopStack.orders.begin(
            mug, code: code, customer: "acct_a", key: "use-\(code.code)", shop: shopStack.catalog.shop, at: Fixtures.fixedDates.now()
        ).get()
    }

    func fill(_ driver: ScriptedDriver, _ values: [String]) async throws {
        for value in values {
            if !value.isEmpty { await driver.type(value) }
            try await driver.press("enter")
        }
    }

    @Test func aCodeIsMadePausedAndKeptOnceAnOrderUsedIt() async throws {
        let admin = await console()
        try await admin.press("5")
        #expect(admin.state.screen == .merchantDiscounts)
        #expect(admin.frameText.contains("No discount codes: n makes one."))
        // "How much" that is not a percentage is told by its field, and nothing is made.
        try await admin.press("n")
        try await fill(admin, ["spring", "", "lots", "", "", "", "", "", ""])
        let field = try #require(admin.state.form?.fields.first { $0.id == "value" })
        #expect(field.error?.description.hasPrefix("How much must be more than 0 and at most 100") == true, "\(field)")
        try await admin.press("esc,n")
        try await fill(admin, ["spring", "", "15", "", "2027-01-01", "100", "1", "", ""])
        #expect(admin.state.form == nil, "\(admin.state.form?.fields.compactMap(\.error) ?? [])")
        #expect(admin.state.notice?.text == "Made SPRING: 15% off; 100 uses, 1 a customer; until 2027-01-01 00:00 UTC.")
        #expect(admin.state.merchant?.discounts.codes.map(\.code.code) == ["SPRING"])
        #expect(admin.frameText.contains("SPRING") && admin.frameText.contains("15% off"))

        try await admin.press("p")
        let discounts = SQLDiscountCodes(database: shopStack.database)
        #expect(try await discounts.code("SPRING")?.isPaused == true)
        #expect(admin.frameText.contains("1 code, 1 paused"))
        try await admin.press("p")
        #expect(try await discounts.code("SPRING")?.isPaused == false)

        // An order holds a use: the code stays, and the console says to pause it instead.
        let spring = try #require(try await discounts.code("SPRING"))
        _ = try await holdUse(of: spring)
        try await admin.press("x")
        #expect(admin.state.notice?.text == .lookup(DiscountCodeError.used("SPRING").description))
        #expect(try await discounts.code("SPRING") != nil)
        #expect(admin.frameText.contains("SPRING"))
    }

    @Test func anUnusedCodeIsDeleted() async throws {
        let discounts = SQLDiscountCodes(database: shopStack.database)
        try await discounts.create(DiscountCode(code: "GONE", kind: .freeShipping), at: Fixtures.fixedDates.now())
        let admin = await console()
        try await admin.press("5,x")
        #expect(admin.state.notice?.text == "Deleted GONE.")
        #expect(try await discounts.code("GONE") == nil)
        #expect(admin.state.merchant?.discounts.codes.isEmpty == true)
    }

    @Test("discount codes at 80x24, 40x12 and 200x60", arguments: SnapshotTests.sizes)
    func snapshot(size: Size) async throws {
        let discounts = SQLDiscountCodes(database: shopStack.database)
        let usd = Currency.usd
        for code in [
            DiscountCode(code: "LAUNCH-10", kind: .percentage(basisPoints: 1_000), totalUses: 100, usesPerCustomer: 1),
            DiscountCode(
                code: "FIVE-OFF", kind: .fixed(Money(minorUnits: 500, currency: usd)), minimumSubtotal: Money(minorUnits: 3_000, currency: usd)),
            DiscountCode(code: "SHIPFREE", kind: .freeShipping, onlyFor: ["mug-stdout"], isPaused: true),
        ] {
            try await discounts.create(code, at: Fixtures.fixedDates.now())
        }
        _ = try await holdUse(of: try #require(try await discounts.code("LAUNCH-10")))
        let admin = await console(size: size)
        try await admin.press("5")
        assertSnapshot(of: admin.frameText, as: .lines, named: "discounts-\(size)")
    }
}
