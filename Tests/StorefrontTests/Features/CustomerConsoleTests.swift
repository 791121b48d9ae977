import Foundation
import ShopModels
import ShopPorts
import SnapshotTesting
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The console's customers (`storefront admin`, key 7): `/` finds a buyer by what the merchant remembers, the list names
/// them by name and email, Enter opens their page (spend, orders, addresses, notes), `n` writes a note there, and Enter
/// on an order opens it. A search of one character is refused in the form, as the command line refuses it.
@MainActor
@Suite("The console's customers")
struct CustomerConsoleTests {
    func console(size: Size = Size(columns: 120, rows: 34)) async throws -> (ScriptedDriver, TestStack, Order) {
        let (stack, order) = try await MerchantConsoleTests.stackWithPaidOrder(console: .merchant(name: "local:ada"))
        return (await ScriptedDriver(stack: stack, size: size), stack, order)
    }

    /// `7`, then the words typed in the search form and Enter.
    func search(_ admin: ScriptedDriver, _ words: String) async throws {
        try await admin.press("7")
        #expect(admin.state.screen == .form && admin.frameText.contains("Find a customer"))
        await admin.send(.textInput(words))
        try await admin.press("enter")
    }

    @Test func slashFindsTheBuyerEnterOpensTheirPageAndANoteStaysOnIt() async throws {
        let (admin, stack, order) = try await console()
        try await search(admin, "JANE@example")
        #expect(admin.state.screen == .merchantCustomers)
        let found = try #require(admin.state.merchant?.customers.matches)
        #expect(found.map(\.customerID) == ["guest"] && found.first?.email == "jane@example.com" && found.first?.matchedBy == .email)
        #expect(admin.frameText.contains("Jane Appleseed") && admin.frameText.contains("jane@example.com"), "\(admin.frameText)")

        try await admin.press("enter")
        #expect(admin.state.screen == .merchantCustomer)
        let page = try #require(admin.state.merchant?.customers.page)
        #expect(page.orders.map(\.number) == [order.number] && page.orderCount == 1)
        #expect(page.spend.map(\.charged) == [order.totals.total])
        #expect(admin.frameText.contains(order.number) && admin.frameText.contains("1 order · $192.69 paid · $0.00 refunded"), "\(admin.frameText)")

        // A note: checked as `customers note` checks it, kept, and shown with who wrote it.
        try await admin.press("n")
        try await admin.press("enter")
        #expect(admin.state.form?.fields.first?.error == "Write the note: 1 to 500 characters.", "an empty note is refused in place")
        await admin.send(.textInput("Prefers deliveries after 5 pm"))
        try await admin.press("enter")
        #expect(admin.state.screen == .merchantCustomer)
        #expect(admin.state.merchant?.customers.page?.notes.map(\.text) == ["Prefers deliveries after 5 pm"])
        #expect(try await stack.storage.customers.notes(customer: "guest").map(\.author) == ["merchant:local:ada"])
        #expect(admin.frameText.contains("Prefers deliveries after 5 pm") && admin.frameText.contains("· local:ada"), "\(admin.frameText)")

        // Enter on an order opens it; Esc comes back to the page, then to the list.
        try await admin.press("enter")
        #expect(admin.state.screen == .merchantOrder && admin.state.merchant?.dossier?.order.number == order.number)
        try await admin.press("esc")
        #expect(admin.state.screen == .merchantCustomer, "back on the page it was opened from")
    }

    @Test func aSearchOfOneCharacterIsRefusedInTheFormAndNobodyMatchingSaysSo() async throws {
        let (admin, _, _) = try await console()
        try await search(admin, "j")
        #expect(admin.state.screen == .form)
        #expect(admin.state.form?.fields.first?.error == "Type at least two characters to search for.")
        try await admin.press("esc")
        try await admin.press("/")
        await admin.send(.textInput("nobody-here"))
        try await admin.press("enter")
        #expect(admin.frameText.contains("Nobody matches \"nobody-here\": / searches again."), "\(admin.frameText)")
    }

    @Test("customers and a customer's page at 80x24, 120x34 and 200x60", arguments: MerchantSnapshotTests.sizes)
    func snapshot(size: Size) async throws {
        let (admin, stack, _) = try await console(size: size)
        try await stack.storage.customers.add(
            CustomerNote(author: "merchant:local:ada", at: Fixtures.fixedDates.now(), text: "Asked for gift wrapping"), customer: "guest")
        try await search(admin, "jane")
        assertSnapshot(of: admin.frameText, as: .lines, named: "customers-\(size)")
        try await admin.press("enter")
        assertSnapshot(of: admin.frameText, as: .lines, named: "customer-\(size)")
    }
}
