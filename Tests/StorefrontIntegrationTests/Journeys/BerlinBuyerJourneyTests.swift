import Foundation
import StorefrontTesting
import Testing

/// The Berlin buyer, over SSH in a real terminal: two variants of one coffee, a German address typed in the account
/// (the form asks for a postal code before the city), VAT included on the sheet, then a switch to a Toronto address
/// typed on the sheet itself, HST added, paid; the receipt arrives at the email typed with that address and lists both
/// variants, the HST line and where it ships.
@Suite("Journey: the Berlin buyer", .ownThreads)
struct BerlinBuyerJourneyTests {
    let root = TemporaryDirectory.make().path

    @Test func variantsABerlinAddressWithVATThenTorontoAndTheReceipt() async throws {
        let mail = try JourneyMail(in: root)
        let shop = try ServeProcess()
        let key = try shop.makeClientKey("lena")
        let terminal = try TmuxTerminal(columns: 120, rows: 34)
        try shop.connect(terminal, key: key)

        // Two variants of one product: each is its own line, named by its options.
        try terminal.selectRow(containing: "Compile-Time Coffee")
        try terminal.press("Enter")
        try terminal.waitFor("› Grind   [Whole bean]")
        try terminal.press("Right", "Down", "Right")
        try terminal.waitFor("› Weight   250 g  [1 kg]")
        try terminal.press("a")
        try terminal.waitFor("Added Compile-Time Coffee — Filter · 1 kg to your cart.")
        try terminal.press("Left", "Up", "Right")
        try terminal.waitFor("› Grind    Whole bean   Filter  [Espresso]")
        try terminal.press("a")
        try terminal.waitFor("Added Compile-Time Coffee — Espresso · 250 g to your cart.")

        // A German address: the country first, and the form becomes Germany's (postal code, then city; no state).
        try terminal.press("u")
        try terminal.waitFor("Your account")
        try terminal.press("d")
        try terminal.waitFor("Add an address")
        try terminal.press("Up", "BSpace", "BSpace")
        try terminal.write("DE")
        try terminal.press("Enter")
        let german = try terminal.waitFor("Postal code   e.g. 26133")
        #expect(!german.contains("    State "), "Germany's form asks for no state:\n\(german)")
        try terminal.fill(["Max Müller", "Torstraße 5", "", "10119", "Berlin", "max@example.de", "+49 30 1234567"])
        try terminal.waitFor("Max Müller               Torstraße 5, 10119 Berlin, DE")

        // The sheet, shipped to Berlin: VAT is in the prices, so the total is the goods and the shipping, no more.
        try terminal.press("c")
        try terminal.waitFor("Compile-Time Coffee — Espresso · 250 g")
        try terminal.press("Enter")
        try terminal.waitFor("Pay with Storefront")
        try terminal.press("Down", "Enter")
        try terminal.waitFor("Choose where it ships")
        try terminal.selectRow(containing: "Max Müller")
        try terminal.press("Enter")
        let berlin = try terminal.waitFor("incl. VAT 19%")
        #expect(berlin.contains("Ship to   Max Müller, Torstraße 5, 10119 Berlin, DE"), "\(berlin)")
        let inBerlin = amounts(in: berlin)
        let subtotal = try #require(inBerlin["Subtotal"])
        let dhl = try #require(inBerlin["Shipping (DHL Parcel)"], "\(berlin)")
        // Berlin buys in the Europe market: $54.00 and $17.00 at the bundled rates, rounded up to whole euros.
        #expect(berlin.contains("Prices are in EUR now: Germany buys in Europe."), "\(berlin)")
        #expect(subtotal == 4_700 + 1_500, "the two variants' own prices, in euros")
        #expect(inBerlin["Pay Storefront"] == subtotal + dhl, "VAT included, not added:\n\(berlin)")
        #expect(inBerlin["incl. VAT 19%"] == ((subtotal + dhl) * 19 + 59) / 119, "the VAT inside the total, rounded to the cent")

        // A switch to Toronto, typed on the sheet with an email of its own: HST is added, and that email gets the receipt.
        try terminal.press("Enter")
        try terminal.waitFor("Choose where it ships")
        try terminal.selectRow(containing: "+ Add a new address")
        try terminal.press("Enter")
        try terminal.waitFor("Add an address")
        try terminal.press("Up", "BSpace", "BSpace")
        try terminal.write("CA")
        try terminal.press("Enter")
        try terminal.waitFor("Province")
        try terminal.fill(["Max Müller", "200 King St W", "", "Toronto", "ON", "M5H 3T4", "max@toronto.example", ""])
        let toronto = try terminal.waitFor("HST")
        #expect(toronto.contains("Ship to   Max Müller, 200 King St W, Toronto ON M5H 3T4, CA"), "\(toronto)")
        #expect(toronto.contains("Receipt to max@toronto.example"), "the address typed for Ship to is the contact:\n\(toronto)")
        #expect(!toronto.contains("VAT"), "\(toronto)")
        let inToronto = amounts(in: toronto)
        let post = try #require(inToronto["Shipping (Canada Post)"], "\(toronto)")
        let hst = try #require(inToronto["HST"])
        // Toronto buys in the Canada market: the same two, up to .99 in Canadian dollars.
        let cadSubtotal = 7_599 + 2_399
        #expect(inToronto["Subtotal"] == cadSubtotal, "\(toronto)")
        #expect(hst == (cadSubtotal * 13 + 50) / 100, "13% of the goods")
        #expect(inToronto["Pay Storefront"] == cadSubtotal + post + hst, "HST added:\n\(toronto)")

        let thanks = try terminal.payOnTheSheet()
        let number = String(try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1))
        #expect(thanks.contains("Ship to    Max Müller, 200 King St W, Toronto ON M5H 3T4, CA"), "\(thanks)")
        try shop.leave(terminal)

        // The receipt: to the Toronto address's email, each variant by name, the HST line, where it ships, the total.
        let received = try mail.deliver(dataDirectory: shop.dataDirectory)
        try #require(received.count == 1, "one receipt: \(received)")
        let receipt = received[0]
        #expect(receipt["to"]?.contains("max@toronto.example") == true, "\(receipt)")
        #expect(receipt["subject"] == "Your receipt for order \(number) from Storefront")
        let body = receipt["body"] ?? ""
        let lines = amounts(in: body)
        #expect(lines["1 × Compile-Time Coffee — Filter · 1 kg"] == 7_599, "\(body)")
        #expect(lines["1 × Compile-Time Coffee — Espresso · 250 g"] == 2_399, "\(body)")
        #expect(body.contains("CA$"), "the receipt is in the order's currency:\n\(body)")
        #expect(lines["Subtotal"] == cadSubtotal && lines["Shipping"] == post && lines["HST"] == hst, "\(body)")
        #expect(lines["Total"] == cadSubtotal + post + hst, "\(body)")
        #expect(!body.contains("VAT") && !body.contains("Berlin"), "nothing of the address it no longer ships to:\n\(body)")
        #expect(body.contains("Ships to: Max Müller, 200 King St W, Toronto ON M5H 3T4, CA"), "\(body)")
    }
}
