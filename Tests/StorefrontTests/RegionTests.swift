import AddressFormats
import Foundation
import PropertyBased
import ShopApplication
import ShopBundledCatalog
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// Where the shop ships, with what tax and shipping: the bundled shop's regions quoted for the issue's cases, the
/// catalog's `regions` checked field by field, and the payment sheet recomputing when its address changes.
@Suite("Regions, tax and shipping")
struct RegionTests {
    /// The bundled shop's regions with every amount in its own currency: its markets left out, which `MarketTests` prices.
    static let shop: ShopProfile = {
        do {
            var root = try #require(try JSONSerialization.jsonObject(with: Data(BundledCatalog.json.utf8)) as? [String: Any])
            var store = try #require(root["store"] as? [String: Any])
            store["markets"] = nil
            root["store"] = store
            return try CatalogLoader.load(data: try JSONSerialization.data(withJSONObject: root), source: "bundled").shop
        } catch { preconditionFailure("\(error)") }
    }()
    static let keycaps = Cart(
        currency: .usd,
        lines: [CartLine(productID: "keycap-dusk", name: "Dusk Keycap Set", unitPrice: Money(minorUnits: 6_400, currency: .usd), quantity: 1)])

    static func address(_ country: String, _ region: String = "") -> PostalAddress {
        PostalAddress(street: "1 Main St", city: "Town", region: region, postalCode: "1", countryCode: country)
    }

    /// The issue's buyers: Ontario sees HST, Germany prices "incl. VAT 19%", Texas its own rate; each with the shipping
    /// of its region, priced for the cart.
    @Test(arguments: [
        ("CA", "CA-ON", "HST", "CA-ON", 1_200, 832, 8_432),
        ("DE", "", "incl. VAT 19%", "DE", 1_500, 1_261, 7_900),
        ("US", "US-TX", "Sales tax", "US-TX", 0, 400, 6_800),
        ("US", "US-OR", "Sales tax", "US-OR", 0, 0, 6_400),
        ("CA", "CA-AB", "GST", "CA", 1_200, 320, 7_920),
    ])
    func eachBuyerIsQuotedTheirRegionsTaxAndShipping(
        country: String, region: String, label: String, jurisdiction: String, shipping: Int64, tax: Int64, total: Int64
    ) throws {
        let quote = try #require(Self.shop.quote(for: Self.keycaps, to: Self.address(country, region)))
        let totals = Self.keycaps.totals(shipping: quote.methods.first, tax: quote.tax)
        #expect(quote.tax.summaryLabel == label && quote.tax.jurisdiction == jurisdiction)
        #expect([totals.shipping.minorUnits, totals.tax.minorUnits, totals.total.minorUnits] == [shipping, tax, total])
    }

    @Test func anAddressOutsideEveryRegionIsToldWhereTheShopShips() {
        #expect(Self.shop.quote(for: Self.keycaps, to: Self.address("IS")) == nil)
        #expect(
            Self.shop.shippingRefusal(address: Self.address("IS"))
                == "Storefront ships only to the United States, Canada, the European Union, the United Kingdom and Japan.")
        #expect(Self.shop.shippingRefusal(address: Self.address("FR")) == nil)
    }

    /// Canada Post's bands: 500 g, 2 kg, 10 kg; past the last nothing ships there, and the sheet says so on the address.
    @Test func weightBandsPriceByTheCartsWeightAndStopAtTheLast() throws {
        func line(grams: Int, quantity: Int) -> CartLine {
            CartLine(productID: "b", name: "Beans", unitPrice: Money(minorUnits: 1_700, currency: .usd), quantity: quantity, unitGrams: grams)
        }
        let toronto = Self.address("CA", "CA-ON")
        let costs = [(250, 2), (250, 3), (1_000, 10), (1_000, 11)].map { (grams: Int, quantity: Int) -> Int64? in
            Self.shop.quote(for: Cart(currency: .usd, lines: [line(grams: grams, quantity: quantity)]), to: toronto)?.methods.first?.amount.minorUnits
        }
        #expect(costs == [1_200, 1_900, 3_400, nil])
        let heavy = [line(grams: 1_000, quantity: 11)]
        let contact = Contact(
            id: "p", name: "Priya", email: "p@example.ca", phone: "",
            address: PostalAddress(
                street: "100 Queen St W", city: "Toronto", region: "CA-ON", postalCode: "M5H 2N2", countryCode: "CA"))
        #expect(throws: PlaceOrder.DraftRefusal.noSuchMethod(offered: [])) {
            try PlaceOrder.draft(lines: heavy, shippingMethodID: nil, contact: contact, customerID: "g", shop: Self.shop)
        }
    }

    /// The European Union's bands by subtotal, and its free shipping from €150 (the shop's one currency, here USD).
    @Test func subtotalBandsAndFreeShipping() {
        let costs = [6_400, 7_500, 15_000].map { cents in
            let cart = Cart(
                currency: .usd, lines: [CartLine(productID: "k", name: "K", unitPrice: Money(minorUnits: Int64(cents), currency: .usd), quantity: 1)])
            return Self.shop.quote(for: cart, to: Self.address("FR"))?.methods.first.map { $0.cost(forSubtotal: cart.subtotal).minorUnits }
        }
        #expect(costs == [1_500, 900, 0])
    }

    @Test func includedTaxIsThePartOfThePriceThatIsTaxRoundedHalfUp() {
        let vat = TaxPolicy(label: "VAT", basisPoints: 1_900, rule: .included)
        #expect(vat.includedTax(in: Money(minorUnits: 11_900, currency: .usd)).minorUnits == 1_900)
        #expect(vat.includedTax(in: Money(minorUnits: 7_900, currency: .usd)).minorUnits == 1_261)
        #expect(vat.includedTax(in: Money(minorUnits: .max, currency: .usd)).minorUnits == 1_472_639_232_775_132_272)
        #expect(vat.includedTax(in: Money(minorUnits: -7_900, currency: .usd)).minorUnits == -1_261)
        #expect([1_900, 825, 650, 2_550, 5].map { TaxPolicy(basisPoints: $0).percent } == ["19%", "8.25%", "6.5%", "25.5%", "0.05%"])
        #expect(TaxPolicy(label: "GST", basisPoints: 500, rule: .none).basisPoints == 0, "no tax has no rate")
    }

    /// `catalog validate` lists every problem in the regions, by path.
    @Test func everyProblemInTheRegionsIsListed() {
        let json = """
            {"store": {"taxBasisPoints": 825, "regions": [
              {"id": "us", "name": "the United States", "places": ["US", "XX", "US-ZZ"],
               "tax": {"rule": "sometimes", "label": "Sales tax"},
               "shipping": [{"id": "a", "label": "A", "amount": 100, "weightBands": [{"upToGrams": 10, "amount": 1}]},
                            {"id": "b", "label": "B", "weightBands": [{"upToGrams": 500, "amount": 1}, {"upToGrams": 100, "amount": 2}]},
                            {"id": "c", "label": "C", "subtotalBands": [{"from": 100, "amount": 1}]}]},
              {"id": "us", "name": "", "places": ["US"], "tax": {"rule": "included", "rates": {"FR": 2000, "DE": 30000}}, "shipping": []}
            ]}, "products": []}
            """
        #expect(throws: CatalogError.self) { try CatalogLoader.load(data: Data(json.utf8), source: "t") }
        let issues = ((try? CatalogLoader.load(data: Data(json.utf8), source: "t")) == nil ? validationIssues(json) : [])
        #expect(
            issues == [
                "$.store.taxBasisPoints: goes in a region's shipping or tax where the store has regions",
                "$.store.regions[0].places[1]: \"XX\" is not an ISO 3166 country (\"DE\") or subdivision (\"US-TX\")",
                "$.store.regions[0].places[2]: \"US-ZZ\" is not an ISO 3166 country (\"DE\") or subdivision (\"US-TX\")",
                "$.store.regions[0].tax.rule: must be \"added\" (sales tax at the checkout), \"included\" (VAT in prices) or \"none\"",
                "$.store.regions[0].shipping[0]: needs exactly one of amount, weightBands or subtotalBands (it has amount, weightBands)",
                "$.store.regions[0].shipping[1].weightBands: must be bands {\"upToGrams\": 500, \"amount\": 1200} with limits from 1 g, each higher than the last",
                "$.store.regions[0].shipping[2].subtotalBands: must be bands {\"from\": 0, \"amount\": 900}, the first from 0, each from more than the last",
                "$.store.regions[1].id: repeats the region id \"us\"",
                "$.store.regions[1].name: must be a string of 1 to 60 characters without control characters, such as \"the United States\"",
                "$.store.regions[1].places[0]: US is already in the region \"us\"",
                "$.store.regions[1].tax.rates.DE: DE is not a place of this region (its places are US)",
                "$.store.regions[1].tax.rates.FR: FR is not a place of this region (its places are US)",
                "$.store.regions[1].shipping: must be a non-empty array of shipping methods",
                "$.products: has no products",
            ])
    }

    func validationIssues(_ json: String) -> [String] {
        do {
            _ = try CatalogLoader.load(data: Data(json.utf8), source: "t")
            return []
        } catch let error as CatalogError {
            return error.issues.map { "\($0.path): \($0.message)" }
        } catch {
            return ["\(error)"]
        }
    }

    /// Over every country of the table: an address written with its own examples (its first region, its first postal
    /// code) is accepted, keeps its region's ISO code, and the bundled shop ships there exactly when a region names it.
    @Test func everyCountrysOwnAddressIsAcceptedAndShippedByItsRegion() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...(AddressFormats.all.count - 1))) { index in
            let format = AddressFormats.all[index]
            let postal = format.postalExamples.first ?? ""
            // The region the example postal code is in, where the shop can tell (it must agree); else the first.
            let region =
                PostalRegions.regions(country: format.code, postalCode: postal).flatMap { codes in format.regions.first { codes.contains($0.code) } }
                ?? format.regions.first
            let entry = AddressEntry(
                name: "A Person", street: "1 Main Street", city: "Capital", region: region?.name ?? "",
                postalCode: postal, country: format.code.lowercased(), email: "a@example.com", phone: "+1 555 0100")
            #expect(entry.problems().isEmpty, "\(format.code): \(entry.problems())")
            let contact = entry.contact(id: "x")
            #expect(contact?.address.region == (region?.code ?? ""), "\(format.code)")
            #expect(contact.map { AddressEntry($0).contact(id: "x") } == contact, "\(format.code): read back the same")
            let named = Self.shop.regions.contains { $0.places.contains(format.code) }
            #expect((Self.shop.shippingRefusal(address: entry.destination) == nil) == named, "\(format.code)")
        }
    }

    /// A session in German keeps its locale with the order it pays, so the order's mails are in German.
    @Test @MainActor func anOrderKeepsTheLocaleItWasBoughtIn() async throws {
        var stack = TestStack()
        stack.language = .german
        stack.region = "AT"
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        let number = try #require(driver.state.confirmation?.orderNumber)
        let order = try #require(try await driver.stack.orders.order(number: number))
        #expect(order.language == "de-AT")
        #expect(order.totals.total.currency == .usd, "the wallet's address is in the US, and the address decides the market")
    }

    /// Choosing another ship-to address changes the methods, shipping, tax and total in the frame that shows it, as
    /// Apple Pay's sheet does.
    @Test @MainActor func switchingTheAddressOnTheSheetRepricesInTheSameFrame() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,enter")
        #expect(driver.state.paymentSheet?.summaryItems.map(\.label) == ["Subtotal", "Shipping (Standard)", "Sales tax", "Storefront"])
        let before = driver.renderer.frameTexts.count
        // Priya in Toronto (the wallet's fourth address).
        try await driver.press("down,enter,down,down,down,enter")
        let sheet = try #require(driver.state.paymentSheet)
        #expect(sheet.summaryItems.map(\.label) == ["Subtotal", "Shipping (Canada Post)", "HST", "Storefront"])
        // Toronto buys in the Canada market: the keycaps' $64.00 at the rates, up to .99, and HST on it.
        #expect(sheet.summaryItems.map(\.amount) == [8_999, 1_200, 1_170, 11_369].map { Money(minorUnits: $0, currency: .cad) })
        #expect(sheet.rowValues[.shippingMethod] == "Canada Post · 5–8 business days" && sheet.isPayEnabled)
        let shown = driver.renderer.frameTexts.dropFirst(before).filter { $0.contains("Priya Nair, 100 Queen St W") }
        #expect(
            !shown.isEmpty && shown.allSatisfy { $0.contains("HST") && $0.contains("CA$113.69") }, "no frame shows the new address with old totals")
        // Lena in Berlin: VAT is in the prices.
        try await driver.press("enter,down,enter")
        #expect(driver.state.paymentSheet?.summaryItems.map(\.label) == ["Subtotal", "Shipping (DHL Parcel)", "incl. VAT 19%", "Storefront"])
        // Berlin buys in euros, rounded up to whole euros.
        #expect(driver.state.paymentSheet?.summaryItems.map(\.amount) == [5_600, 1_500, 1_134, 7_100].map { Money(minorUnits: $0, currency: .eur) })
        try await driver.press("p,enter")
        #expect(driver.state.paymentSheet?.failure == nil)
        #expect(driver.state.confirmation?.total == Money(minorUnits: 7_100, currency: .eur))
        // The order keeps its currency, the rate it was sold at and its total in dollars at that rate.
        let number = try #require(driver.state.confirmation?.orderNumber)
        let order = try #require(try await driver.stack.orders.order(number: number))
        #expect(order.totals.total == Money(minorUnits: 7_100, currency: .eur))
        #expect(order.exchange == Order.Exchange(rate: "0.86430424", day: "2026-11-27", baseTotal: 8_215))
        #expect(order.language == "en-US", "the session's locale, which the order's mails are written in")
        // The merchant's sales keep euros apart from dollars, with what they came to in dollars at the rate sold.
        let sales = try await driver.stack.liveBackOffice.salesSummary()
        #expect(sales.lastSevenDays.orders == 0 && sales.inOtherCurrencies.count == 1)
        let euros = try #require(sales.inOtherCurrencies.first?.lastSevenDays)
        #expect(euros.orders == 1 && euros.revenue == Money(minorUnits: 7_100, currency: .eur))
        #expect(euros.baseRevenue == Money(minorUnits: 8_215, currency: .usd))
        #expect(euros.taxes.map(\.jurisdiction) == ["DE"])
    }
}
