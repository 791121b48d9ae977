import Foundation
import ShopBundledCatalog
import StorefrontTesting
import Testing

/// `storefront rates` and the `shop.rates` setting, in real processes: the markets at the bundled rates, a merchant's
/// ECB file read as it is published, a stale one named as stale, and a file that does not serve the markets refused
/// at start with its line.
@Suite("Exchange rates on the command line", .ownThreads)
struct RatesCommandTests {
    let data = TemporaryDirectory.make().path
    let files = TemporaryDirectory.make()

    func storefront(_ arguments: [String]) throws -> Subprocess {
        try Subprocess.run(try BuiltProduct.requireStorefront(), arguments + ["--data-dir", data])
    }

    func ratesFile(_ name: String, day: String, cubes: String) throws -> String {
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let path = files.appendingPathComponent(name).path
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
            \t<gesmes:subject>Reference rates</gesmes:subject>
            \t<Cube>
            \t\t<Cube time='\(day)'>
            \(cubes)
            \t\t</Cube>
            \t</Cube>
            </gesmes:Envelope>
            """
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theMarketsAreShownAtTheRatesAndAnOldFileIsNamedAsStale() throws {
        let made = try storefront(["headless", "--keys", "q"])
        #expect(made.status == 0, "\(made.stderr)")
        let bundled = try storefront(["rates"])
        #expect(bundled.status == 0, "\(bundled.stderr)")
        #expect(bundled.stdout.hasPrefix("rates of 2026-11-27 from the bundled sample rates"), "\(bundled.stdout)")
        #expect(bundled.stdout.contains("eu  EUR  rounding whole  regions eu  100.00 USD = 86.43 EUR"), "\(bundled.stdout)")
        #expect(bundled.stdout.contains("jp  JPY  rounding 100  regions jp  100.00 USD = 15601 JPY"), "\(bundled.stdout)")

        // A merchant's file of a day two years ago: read, used, and named as stale against the shop's clock.
        let cubes = ["USD": "1.2000", "JPY": "150.00", "GBP": "0.85000", "CAD": "1.5000"].map {
            "\t\t\t<Cube currency='\($0.key)' rate='\($0.value)'/>"
        }.joined(separator: "\n")
        let old = try ratesFile("old.xml", day: "2024-11-27", cubes: cubes)
        let stale = try storefront(["rates", "--rates", old])
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(stale.stdout.contains("rates of 2024-11-27 from \(old) (STALE:"), "\(stale.stdout)")
        #expect(stale.stdout.contains("eu  EUR  rounding whole  regions eu  100.00 USD = 83.33 EUR"), "\(stale.stdout)")
    }

    /// A catalog file with a price fixed in the Europe market: `rates` counts it, and a German shopper's list shows it
    /// as it is, where the keycaps next to it are converted.
    @Test func aPriceFixedInAMarketIsShownAsItIs() throws {
        var root = try #require(try JSONSerialization.jsonObject(with: Data(BundledCatalog.json.utf8)) as? [String: Any])
        var store = try #require(root["store"] as? [String: Any])
        var markets = try #require(store["markets"] as? [[String: Any]])
        let europe = try #require(markets.firstIndex { $0["id"] as? String == "eu" })
        markets[europe]["prices"] = ["mug-stdout": 1_250]
        store["markets"] = markets
        root["store"] = store
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let catalog = files.appendingPathComponent("catalog.json").path
        try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: catalog))
        try Fixtures.writeBundledPictures(besideCatalogIn: files)
        let german = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--size", "120x34", "--keys", "q", "--catalog", catalog, "--data-dir", data],
            environment: ProcessInfo.processInfo.environment.merging(["LC_ALL": "", "LANG": "de_DE.UTF-8"]) { $1 })
        #expect(german.status == 0, "\(german.stderr)")
        let mug = german.stdout.split(separator: "\n").first { $0.contains("stdout Mug") }
        #expect(mug?.contains("12,50\u{A0}€") == true, "the fixed €12.50, not $18.00 converted:\n\(german.stdout)")
        let keycaps = german.stdout.split(separator: "\n").first { $0.contains("Dusk Keycap Set") }
        #expect(keycaps?.contains("56,00\u{A0}€") == true, "\(german.stdout)")
        // The shop's database holds the catalog now: `rates` reads it there.
        let shown = try storefront(["rates"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("eu  EUR  rounding whole  regions eu  100.00 USD = 86.43 EUR  1 price fixed"), "\(shown.stdout)")
    }

    @Test func ratesThatDoNotServeTheMarketsStopTheShopWithTheirLine() throws {
        let withoutCAD = try ratesFile(
            "no-cad.xml", day: "2026-11-27",
            cubes:
                "\t\t\t<Cube currency='USD' rate='1.1570'/>\n\t\t\t<Cube currency='JPY' rate='180.50'/>\n\t\t\t<Cube currency='GBP' rate='0.87800'/>")
        let refused = try storefront(["headless", "--keys", "q", "--rates", withoutCAD])
        #expect(refused.status == 78, "\(refused.stdout)")
        #expect(refused.stderr.contains("the rates of 2026-11-27 have no CAD, which the market \"ca\" needs"), "\(refused.stderr)")

        let broken = try ratesFile("broken.xml", day: "2026-11-27", cubes: "\t\t\t<Cube currency='USD' rate='one'/>")
        let unread = try storefront(["headless", "--keys", "q", "--rates", broken])
        #expect(unread.status == 78)
        #expect(unread.stderr.contains("\(broken):6: USD's rate must be a positive decimal such as 1.0578"), "\(unread.stderr)")
    }
}
