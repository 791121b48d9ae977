import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import Testing

/// The payment sheet charges the catalog's price, not the one the cart was filled at: a price the merchant raised
/// while the sheet was open is shown on the sheet and in the cart, and charged only once the buyer pays again; a
/// product withdrawn meanwhile is refused by name, and nothing is charged.
@MainActor
@Suite("The sheet charges the catalog's price")
struct CatalogAtPlacementTests {
    /// The first product on the sheet, ready to pay, and the merchant's desk over the same database.
    func onTheSheet() async throws -> (ScriptedDriver, SQLCatalogEditor, EditableProduct) {
        let driver = await ScriptedDriver()
        try await driver.press("enter,a,c,enter")
        #expect(driver.state.paymentSheet != nil, "\(driver.frameText)")
        let editor = SQLCatalogEditor(database: driver.stack.database, shop: driver.stack.catalog.shop)
        let line = try #require(driver.state.cart.lines.first)
        let product = try #require(try await editor.products().first { $0.id == line.productID })
        return (driver, editor, product)
    }

    @Test func aPriceRaisedWhileTheSheetIsOpenIsShownThenChargedWhenPaidAgain() async throws {
        let (driver, editor, product) = try await onTheSheet()
        let before = try #require(driver.state.cart.lines.first).unitPrice
        let raised = Money(minorUnits: before.minorUnits + 3_500, currency: before.currency)
        let document = product.document.replacingOccurrences(
            of: "\"price\":\(before.minorUnits)", with: "\"price\":\(raised.minorUnits)")
        #expect(document != product.document, "the document names its price: \(product.document)")
        _ = try await editor.apply(
            CatalogEdit(productID: product.id, change: .update(document: document), expectedVersion: product.version, actor: "local:ops"),
            at: Date())

        try await driver.press("p,enter")
        let sheet = try #require(driver.state.paymentSheet, "the sheet stays: \(driver.frameText)")
        #expect(
            sheet.failure
                == "The price changed since you saw it: \(product.name): \(raised.formatted) each, was \(before.formatted). Check the new total and pay again."
        )
        #expect(driver.state.cart.lines.first?.unitPrice == raised, "the cart holds today's price")
        #expect(sheet.summaryItems.first?.amount == raised, "\(sheet.summaryItems)")
        #expect(try await driver.stack.orders.count(customer: nil) == 0, "nothing charged")

        try await driver.press("p,enter")
        let confirmation = try #require(driver.state.confirmation, "\(driver.frameText)")
        let order = try #require(try await driver.stack.orders.order(number: confirmation.orderNumber))
        #expect(order.lines.first?.unitPrice == raised)
    }

    @Test func aProductWithdrawnWhileTheSheetIsOpenIsRefusedByName() async throws {
        let (driver, editor, product) = try await onTheSheet()
        _ = try await editor.apply(
            CatalogEdit(productID: product.id, change: .setStatus(.unpublished), expectedVersion: product.version, actor: "local:ops"), at: Date())
        try await driver.press("p,enter")
        #expect(driver.state.paymentSheet?.failure == "\(product.name) is no longer sold: remove it from the cart to pay for the rest.")
        #expect(try await driver.stack.orders.count(customer: nil) == 0, "nothing charged")
    }

    /// A saved cart that comes back holding a product the merchant withdrew since marks its line and says so, before
    /// the buyer reaches Pay.
    @Test func aSavedCartsWithdrawnLineIsMarkedWhenTheCartComesBack() async throws {
        var stack = TestStack(guestID: "local:jane")
        stack.carts = InMemoryCartRepository()
        let first = await ScriptedDriver(stack: stack)
        try await first.press("enter,a")
        let line = try #require(first.state.cart.lines.first)
        let editor = SQLCatalogEditor(database: first.stack.database, shop: first.stack.catalog.shop)
        let product = try #require(try await editor.products().first { $0.id == line.productID })
        _ = try await editor.apply(
            CatalogEdit(productID: product.id, change: .setStatus(.archived), expectedVersion: product.version, actor: "local:ops"), at: Date())

        let next = await ScriptedDriver(stack: first.stack)
        #expect(await next.waitUntil { $0.notice?.text.description.contains("no longer sold") == true }, "\(next.frameText)")
        #expect(next.state.notice?.text == "\(product.name) is no longer sold: x removes a line; Pay takes the rest once it is gone.")
        try await next.press("c")
        #expect(next.state.screen == .cart && next.frameText.contains("no longer sold"), "the line is marked: \(next.frameText)")
    }

    /// In a session that stays open, the cart shown again after the merchant's edits marks what is withdrawn and takes
    /// today's prices, saying so, before the sheet; the cart as saved holds those prices.
    @Test func theCartShownAgainInAnOpenSessionMarksWithdrawnLinesAndTakesTodaysPrices() async throws {
        var stack = TestStack(guestID: "local:jane")
        let carts = InMemoryCartRepository()
        stack.carts = carts
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,down,a,c")
        let lines = driver.state.cart.lines
        try #require(lines.count == 2, "\(driver.frameText)")
        let editor = SQLCatalogEditor(database: driver.stack.database, shop: driver.stack.catalog.shop)
        let products = try await editor.products()
        let raised = try #require(products.first { $0.id == lines[0].productID })
        let withdrawn = try #require(products.first { $0.id == lines[1].productID })
        let was = lines[0].unitPrice
        let now = Money(minorUnits: was.minorUnits + 600, currency: was.currency)
        _ = try await editor.apply(
            CatalogEdit(
                productID: raised.id,
                change: .update(
                    document: raised.document.replacingOccurrences(of: "\"price\":\(was.minorUnits)", with: "\"price\":\(now.minorUnits)")),
                expectedVersion: raised.version, actor: "local:ops"), at: Date())
        #expect(driver.state.cart.lines[0].unitPrice == was, "an open cart is not changed behind the shopper's back")

        // Only the price: the cart shown again holds today's price and says what changed.
        try await driver.press("s,c")
        #expect(await driver.waitUntil { $0.cart.lines.first?.unitPrice == now }, "\(driver.frameText)")
        #expect(
            driver.state.notice?.text
                == "The price changed since you put it in your cart: \(raised.name): \(now.formatted) each, was \(was.formatted).")
        #expect(driver.frameText.contains(now.formatted), "\(driver.frameText)")
        #expect(await driver.waitUntil { _ in driver.state.notice != nil }, "settled")
        #expect(try carts.lines(forCustomer: "local:jane").first?.unitPrice == now, "saved with it")

        // Then a withdrawal: marked, and said, while the price stays as it is now.
        _ = try await editor.apply(
            CatalogEdit(productID: withdrawn.id, change: .setStatus(.unpublished), expectedVersion: withdrawn.version, actor: "local:ops"), at: Date()
        )
        try await driver.press("s,c")
        #expect(await driver.waitUntil { $0.notice?.text.description.contains("no longer sold") == true }, "\(driver.frameText)")
        #expect(driver.state.notice?.text == "\(withdrawn.name) is no longer sold: x removes a line; Pay takes the rest once it is gone.")
        #expect(driver.state.cart.lines.map(\.unitPrice) == [now, lines[1].unitPrice])
        #expect(driver.frameText.contains("no longer sold"), "\(driver.frameText)")
    }
}
