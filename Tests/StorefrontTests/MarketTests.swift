import Foundation
import ShopBundledCatalog
import ShopLanguages
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// Markets: the ECB's rates file, conversion and rounding, the markets a catalog names, and a session moving between
/// them.
@Suite("Markets and rates")
struct MarketTests {
    static let ecbDaily = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
        \t<gesmes:subject>Reference rates</gesmes:subject>
        \t<!-- a comment with <Cube currency='XXX' rate='9'/> in it -->
        \t<Cube>
        \t\t<Cube time='2026-11-27'>
        \t\t\t<Cube currency='USD' rate='1.1570'/>
        \t\t\t<Cube currency="JPY" rate="180.50"/>
        \t\t\t<Cube currency='GBP' rate='0.87800'/>
        \t\t</Cube>
        \t\t<Cube time='2026-11-26'>
        \t\t\t<Cube currency='USD' rate='2'/>
        \t\t</Cube>
        \t</Cube>
        </gesmes:Envelope>
        """

    static func rates() throws -> ExchangeRates { try ExchangeRates(ecbXML: Array(ecbDaily.utf8)) }

    @Test func theNewestDayOfAnECBFileIsRead() throws {
        let rates = try Self.rates()
        #expect(rates.day == "2026-11-27")
        #expect(rates.perEuro.mapValues(\.description) == ["EUR": "1", "USD": "1.1570", "JPY": "180.50", "GBP": "0.87800"])
        #expect(rates.age(on: "2026-11-30") == 3)
    }

    @Test(arguments: [
        ("<Cube><Cube currency='USD' rate='1.1'/></Cube>", "line 1: a rate comes before its day's <Cube time='…'>"),
        ("<Cube time='2026-02-31'>", "line 1: time \"2026-02-31\" is not a day (YYYY-MM-DD)"),
        ("<Cube time='2026-11-27'>\n<Cube currency='USD' rate='-1'/>", "line 2: USD's rate must be a positive decimal such as 1.0578"),
        ("<Cube time='2026-11-27'>\n<Cube currency='usd' rate='1'/>", "line 2: currency \"usd\" is not an ISO 4217 code"),
        ("<Cube time='2026-11-27'><Cube currency='USD' rate='1'/><Cube currency='USD' rate='2'/>", "line 1: USD is listed twice on one day"),
        ("<Cube time='2026-11-27'></Cube>", "line 1: the day 2026-11-27 lists no rates"),
        ("<html><body>Not found</body></html>", "has no <Cube time='…'> day: is it the ECB's eurofxref XML?"),
        ("<Cube time='2026-11-27'><Cube currency='USD' rate='1.1", "line 1: an attribute of <Cube> is not closed"),
        ("<!-- never closed", "line 1: a tag or comment is not closed"),
    ])
    func aRatesFileThatIsNotOneIsRefusedWithItsLine(text: String, message: String) {
        #expect(throws: ExchangeRates.FileError.self) { try ExchangeRates(ecbXML: Array(text.utf8)) }
        do { _ = try ExchangeRates(ecbXML: Array(text.utf8)) } catch { #expect(error.description == message) }
    }

    @Test func aFileOverTheLimitIsRefusedUnread() {
        let big = [UInt8](repeating: UInt8(ascii: " "), count: ExchangeRates.maximumFileBytes + 1)
        do {
            _ = try ExchangeRates(ecbXML: big)
            Issue.record("read a file over the limit")
        } catch { #expect(error.message.contains("more than a rates file holds")) }
    }

    @Test func conversionGoesThroughTheEuroAndRoundsHalfUpToTheMinorUnit() throws {
        let rates = try Self.rates()
        // $64.00 → €55.315... → €55.32; → ¥9,984.4 → ¥9,984; £48.57
        #expect(rates.convert(Money(minorUnits: 6_400, currency: .usd), to: .eur) == Money(minorUnits: 5_532, currency: .eur))
        #expect(rates.convert(Money(minorUnits: 6_400, currency: .usd), to: .jpy) == Money(minorUnits: 9_984, currency: .jpy))
        #expect(rates.convert(Money(minorUnits: 6_400, currency: .usd), to: .gbp) == Money(minorUnits: 4_857, currency: .gbp))
        #expect(rates.convert(Money(minorUnits: 1_000, currency: .jpy), to: .usd) == Money(minorUnits: 641, currency: .usd))
        #expect(rates.convert(Money(minorUnits: 100, currency: .usd), to: .cad) == nil, "no CAD rate")
        #expect(rates.convert(Money.maximum(.usd), to: .jpy) == nil, "past the largest amount")
    }

    @Test(arguments: [
        (PriceRounding.none, Currency.eur, Int64(5_532), Int64(5_532)),
        (.wholeUnits(1), .eur, 5_532, 5_600),
        (.wholeUnits(1), .eur, 5_600, 5_600),
        (.ending(1), .gbp, 4_857, 4_899),
        (.ending(1), .gbp, 4_899, 4_899),
        (.ending(1), .gbp, 4_900, 4_999),
        (.ending(5), .eur, 2_312, 2_395),
        (.ending(5), .eur, 2_396, 2_495),
        (.wholeUnits(100), .jpy, 9_984, 10_000),
        (.wholeUnits(100), .jpy, 10_000, 10_000),
    ])
    func roundingNeverGoesDown(rule: PriceRounding, currency: Currency, minorUnits: Int64, rounded: Int64) {
        #expect(rule.apply(minorUnits, in: currency) == rounded)
    }

    @Test func roundingIsSpelledAsTheCatalogWritesIt() {
        #expect(PriceRounding.spellings.map { PriceRounding(written: $0, currency: .eur)?.description } == PriceRounding.spellings)
        #expect(PriceRounding(written: ".99", currency: .jpy) == nil, "a currency without cents has no .99")
        #expect(PriceRounding(written: "5", currency: .eur) == nil)
    }

    @Test func aFixedAmountCodeTakesItsWorthInTheMarketsCurrency() throws {
        let rates = try Self.rates()
        let exchange = try #require(OrderExchange(rates: rates, base: .usd, currency: .eur))
        #expect(exchange.rate == "0.86430424" && exchange.day == "2026-11-27")
        let code = DiscountCode(
            code: "FIVE", kind: .fixed(Money(minorUnits: 500, currency: .usd)), minimumSubtotal: Money(minorUnits: 2_000, currency: .usd))
        let euros = code.priced(in: .eur, exchange: exchange)
        #expect(euros.kind == .fixed(Money(minorUnits: 432, currency: .eur)))
        #expect(euros.minimumSubtotal == Money(minorUnits: 1_729, currency: .eur))
        #expect(code.priced(in: .usd, exchange: nil) == code, "in the shop's own currency it is itself")
        let percent = DiscountCode(code: "TEN", kind: .percentage(basisPoints: 1_000))
        #expect(percent.priced(in: .eur, exchange: exchange) == percent)
        #expect(OrderExchange(rates: rates, base: .usd, currency: .usd) == nil)
    }

    static func bundledPricing() throws -> MarketPricing {
        let catalog = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        return try MarketPricing(shop: catalog.shop, rates: try ExchangeRates(ecbXML: Array(BundledRates.xml.utf8)))
    }

    @Test func theBundledCatalogSellsInFiveCurrencies() throws {
        let pricing = try Self.bundledPricing()
        #expect(pricing.markets.map(\.id) == ["us", "ca", "eu", "uk", "jp"])
        #expect(pricing.markets.map(\.currency.code) == ["USD", "CAD", "EUR", "GBP", "JPY"])
        #expect(pricing.home.id == "us")
        #expect(pricing.market(country: "DE")?.id == "eu" && pricing.market(country: "jp")?.id == "jp" && pricing.market(country: "IS") == nil)
        let keycaps = Product(id: "k", name: "Keycaps", summary: "", description: "", price: Money(minorUnits: 6_400, currency: .usd))
        let prices = pricing.markets.map { pricing.product(keycaps, in: $0).price }
        #expect(prices.map(\.description) == ["$64.00", "CA$89.99", "€56.00", "£48.99", "¥10,000"])
        // Priced again from another market's price, a product is priced from the catalog's, not converted twice.
        let japanese = pricing.product(keycaps, in: try #require(pricing.market(id: "jp")))
        #expect(pricing.product(japanese, in: try #require(pricing.market(id: "eu"))).price == Money(minorUnits: 5_600, currency: .eur))
        #expect(pricing.product(japanese, in: pricing.home) == keycaps)
        // Each market's profile: its currency, its regions first, the others' shipping converted into it.
        let europe = pricing.shop(in: try #require(pricing.market(id: "eu")))
        #expect(europe.currency == .eur && europe.regions.first?.id == "eu")
        #expect(europe.regions.allSatisfy { $0.rates.allSatisfy { $0.highest?.currency == .eur } })
    }

    @Test func ratesThatLackAMarketsCurrencyAreNamed() throws {
        let catalog = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        let rates = try Self.rates()
        #expect(throws: MarketPricing.Problem(message: "the rates of 2026-11-27 have no CAD, which the market \"ca\" needs")) {
            try MarketPricing(shop: catalog.shop, rates: rates)
        }
        #expect(throws: MarketPricing.Problem(message: "the market \"ca\" sells in CAD, and no rates file is set (shop.rates)")) {
            try MarketPricing(shop: catalog.shop, rates: nil)
        }
    }

    @Test func aCatalogsMarketsAreCheckedFieldByField() throws {
        let json = """
            {"store": {"currency": "USD", "regions": [
              {"id": "us", "name": "the United States", "places": ["US"], "tax": {"rule": "none", "label": "Tax"},
               "shipping": [{"id": "s", "label": "Post", "detail": "soon", "amount": 500}]}],
             "markets": [
              {"id": "eu", "name": "Europe", "currency": "EUR", "regions": ["eu"], "rounding": ".97"},
              {"id": "x y", "name": "", "currency": "XYZ", "regions": [], "colour": "red"}]},
             "products": [{"id": "a", "name": "A", "description": "A thing.", "price": 100}]}
            """
        #expect {
            try CatalogLoader.load(data: Data(json.utf8), source: "test")
        } throws: { error in
            let messages = (error as? ShopModels.CatalogError)?.issues.map { "\($0.path): \($0.message)" } ?? []
            return messages.contains(
                "$.store.markets[0].rounding: must be one of none, whole, 10, 100, 1000, .99, .95, .90 (.99 and the like for a currency with cents)")
                && messages.contains("$.store.markets[1].colour: is not a market's field")
                && messages.contains("$.store.markets[1].id: must be 1 to 40 letters, digits, - or _")
                && messages.contains { $0.hasPrefix("$.store.markets[1].currency: must be a currency the shop knows") }
                && messages.contains("$.store.markets[1].regions: must be a non-empty array of region ids")
        }
    }

    // MARK: Prices fixed per market

    /// The bundled catalog with prices the merchant fixed in the Europe market: the keycaps at €59 and one coffee variant
    /// at €39, with `extra` more where a test adds them.
    static func fixedInEurope(_ extra: [String: Any] = [:]) throws -> Catalog {
        var root = try #require(try JSONSerialization.jsonObject(with: Data(BundledCatalog.json.utf8)) as? [String: Any])
        var store = try #require(root["store"] as? [String: Any])
        var markets = try #require(store["markets"] as? [[String: Any]])
        let europe = try #require(markets.firstIndex { $0["id"] as? String == "eu" })
        markets[europe]["prices"] = ["keycap-dusk": 5_900, "coffee-beans-filter-1kg": 3_900].merging(extra) { $1 }
        store["markets"] = markets
        root["store"] = store
        return try CatalogLoader.load(data: try JSONSerialization.data(withJSONObject: root), source: "test")
    }

    @Test func aPriceFixedInAMarketIsSoldAtItselfNotConverted() throws {
        let catalog = try Self.fixedInEurope()
        let pricing = try MarketPricing(shop: catalog.shop, rates: try ExchangeRates(ecbXML: Array(BundledRates.xml.utf8)))
        let europe = try #require(pricing.market(id: "eu"))
        let keycaps = try #require(catalog.products.first { $0.id == "keycap-dusk" })
        #expect(pricing.product(keycaps, in: europe).price == Money(minorUnits: 5_900, currency: .eur), "fixed, where €56 is converted")
        #expect(pricing.product(keycaps, in: try #require(pricing.market(id: "uk"))).price == Money(minorUnits: 4_899, currency: .gbp))
        // One variant fixed, its siblings converted; the list's "from" price is the lowest of them.
        let coffee = pricing.product(try #require(catalog.products.first { $0.id == "coffee-beans" }), in: europe)
        let bySKU: [String: Int64] = Dictionary(uniqueKeysWithValues: coffee.variants.map { ($0.sku.rawValue, $0.price.minorUnits) })
        #expect(bySKU["coffee-beans-filter-1kg"] == 3_900 && bySKU["coffee-beans-whole-1kg"] == 4_700, "\(bySKU)")
        #expect(coffee.price.minorUnits == bySKU.values.min())
        // A cart line moving into Europe takes the fixed price; moving home, the catalog's own again.
        let line = CartLine(product: keycaps, variant: nil, quantity: 2)
        let inEurope = pricing.line(line, in: europe)
        #expect(inEurope.unitPrice == Money(minorUnits: 5_900, currency: .eur) && inEurope.basePrice == keycaps.price)
        #expect(pricing.line(inEurope, in: pricing.home) == line)
        // A line whose catalog price is not known (another market's conversion) still takes the fixed one.
        var foreign = pricing.line(line, in: try #require(pricing.market(id: "jp")))
        foreign.basePrice = nil
        #expect(pricing.line(foreign, in: europe).unitPrice == Money(minorUnits: 5_900, currency: .eur))
    }

    @Test func fixedPricesAreCheckedAgainstTheCatalog() throws {
        #expect {
            try Self.fixedInEurope(["no-such-thing": 100, "coffee-beans": 4_000])
        } throws: { error in
            (error as? ShopModels.CatalogError)?.issues.map { "\($0.path): \($0.message)" } == [
                "$.store.markets[2].prices.coffee-beans: is a product with options: fix each variant's price by its SKU",
                "$.store.markets[2].prices.no-such-thing: names no product or variant SKU of the catalog",
            ]
        }
        #expect {
            try Self.fixedInEurope(["mug-stdout": -5])
        } throws: { error in
            (error as? ShopModels.CatalogError)?.issues.map { "\($0.path): \($0.message)" } == [
                "$.store.markets[2].prices.mug-stdout: must be a whole number of the currency's minor units, from 1 to 999999999999"
            ]
        }
    }

    @Test func theHomeMarketTakesNoFixedPrices() throws {
        var root = try #require(try JSONSerialization.jsonObject(with: Data(BundledCatalog.json.utf8)) as? [String: Any])
        var store = try #require(root["store"] as? [String: Any])
        var markets = try #require(store["markets"] as? [[String: Any]])
        markets[0]["prices"] = ["keycap-dusk": 6_000]
        store["markets"] = markets
        root["store"] = store
        #expect {
            try CatalogLoader.load(data: try JSONSerialization.data(withJSONObject: root), source: "test")
        } throws: { error in
            (error as? ShopModels.CatalogError)?.issues.map { "\($0.path): \($0.message)" }
                == ["$.store.markets[0].prices: the market sells in the shop's own USD: its prices are the catalog's"]
        }
    }

    @Test @MainActor func theSheetMovingToBerlinChargesThePriceFixedInEurope() async throws {
        let catalog = try Self.fixedInEurope()
        let driver = await ScriptedDriver(stack: TestStack(catalog: Fixtures.inHomeMarket(InMemoryCatalog(catalog: catalog))))
        try await driver.press("a,c,enter")
        // Lena in Berlin, the wallet's fifth address: the keycaps at the €59 the merchant fixed, DHL €15.
        try await driver.press("down,enter,down,down,down,down,enter")
        #expect(driver.state.paymentSheet?.summaryItems.first?.amount == Money(minorUnits: 5_900, currency: .eur), "\(driver.frameText)")
        try await driver.press("p,enter")
        let number = try #require(driver.state.confirmation?.orderNumber, "\(driver.frameText)")
        let order = try #require(try await driver.stack.orders.order(number: number))
        #expect(order.lines.first?.unitPrice == Money(minorUnits: 5_900, currency: .eur))
        #expect(order.totals.total == Money(minorUnits: 5_900 + 1_500, currency: .eur))
    }

    @Test func marketsAreWrittenBackAsTheyWereRead() throws {
        let catalog = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        let again = try #require(ShopProfile(storedJSON: catalog.shop.storedJSON))
        #expect(again.markets == catalog.shop.markets)
        let fixed = try Self.fixedInEurope().shop
        #expect(ShopProfile(storedJSON: fixed.storedJSON)?.markets == fixed.markets && fixed.markets[2].prices.count == 2)
        #expect(again.regions == catalog.shop.regions)
    }

    // MARK: A session's market

    @Test @MainActor func aShopperInGermanyIsInTheEuroMarketFromTheStart() async throws {
        var stack = TestStack()
        stack.region = "DE"
        stack.language = .german
        let store = await TestStore(dependencies: stack.dependencies)
        #expect(store.state.shell.market == "eu")
        #expect(store.state.productList.list.rows.first?.price == Money(minorUnits: 5_600, currency: .eur))
        #expect(store.state.screens.formats == FormatLocale(language: .german, region: "DE"))
    }

    @Test @MainActor func theMarketKeyMovesTheCartAndSaysSo() async throws {
        let store = await TestStore(dependencies: TestStack().dependencies)
        await store.setUp(.addToCart)
        #expect(store.state.cart.cart.lines.first?.unitPrice == Money(minorUnits: 6_400, currency: .usd))
        store.send(.nextMarket) {
            $0.shell.market = "ca"
            $0.pricedMarket = "ca"
            $0.shell.notice = Notice(.info, "Prices in CAD, for Canada. M changes the market.")
            $0.cart.cart = Cart(
                currency: .cad,
                lines: $0.cart.cart.lines.map { line in
                    var line = line
                    line.unitPrice = Money(minorUnits: 8_999, currency: .cad)
                    line.basePrice = Money(minorUnits: 6_400, currency: .usd)
                    return line
                })
            // The cart's screen in Canada: its region's shipping and GST, in dollars of Canada.
            let cad = { Money(minorUnits: $0, currency: .cad) }
            $0.cart.screen.lines = $0.cart.cart.lines
            $0.cart.screen.totals = CartTotals(subtotal: cad(8_999), shipping: cad(1_200), tax: cad(450))
            $0.cart.screen.shippingLabel = "Canada Post"
            $0.cart.screen.taxLabel = "GST"
            $0.cart.badge = CartBadge(itemCount: 1, subtotal: cad(8_999))
            // The list is read again, in the new prices.
            $0.productList.list.isLoading = true
            $0.productList.request += 1
            $0.productList.pending = .count(keepSelection: true)
        }
        await store.skipInFlightEffects()
    }
}
