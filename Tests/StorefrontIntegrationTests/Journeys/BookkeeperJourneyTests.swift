import Foundation
import ShopBundledCatalog
import StorefrontTesting
import Testing

/// The bookkeeper's journey, in real processes on each database: two orders bought in the shop, one refunded in part,
/// then the period's tax, sales and refunds written as CSV and read back by Python's `csv` module, their totals the
/// ones `orders --json` gives, and a product named like a formula shown, never run.
@Suite("Journey: the bookkeeper's exports", .serialized, .ownThreads)
struct BookkeeperJourneyTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    let root = TemporaryDirectory.make().path

    /// The bundled catalog with the mug renamed as a spreadsheet formula.
    func catalogFile() throws -> String {
        var document = try #require(try JSONSerialization.jsonObject(with: Data(BundledCatalog.json.utf8)) as? [String: Any])
        var products = try #require(document["products"] as? [[String: Any]])
        let mug = try #require(products.firstIndex { $0["id"] as? String == "mug-stdout" })
        products[mug]["name"] = "=HYPERLINK(\"http://evil.example\",\"Mug\")"
        document["products"] = products
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let path = root + "/catalog.json"
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
        try Fixtures.writeBundledPictures(besideCatalogIn: URL(fileURLWithPath: root))
        return path
    }

    /// The rows of a CSV file as Python's `csv` module reads them, each a dictionary by the header's names.
    func csvRows(_ path: String) throws -> [[String: String]] {
        let read = try Subprocess.run(
            "/usr/bin/python3", ["-c", "import csv, json, sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='')))))", path])
        try #require(read.status == 0, "\(read.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String: String]])
    }

    @Test(arguments: Store.allCases)
    func taxSalesAndRefundsReadBackWithTheOrdersTotals(store: Store) throws {
        let catalog = try catalogFile()
        var place: [String]
        switch store {
        case .sqlite:
            place = ["--data-dir", root + "/data"]
        case .postgres:
            let url = try PostgresServer.freshDatabase()
            place = ["--database", url]
            let migrated = try Subprocess.run(try BuiltProduct.requireStorefront(), ["db", "migrate"] + place)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            let imported = try Subprocess.run(try BuiltProduct.requireStorefront(), ["catalog", "import", catalog] + place)
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        func storefront(_ arguments: [String]) throws -> Subprocess {
            let extra = store == .sqlite ? ["--catalog", catalog] : []
            return try Subprocess.run(try BuiltProduct.requireStorefront(), arguments + place + (arguments.first == "headless" ? extra : []))
        }
        // Two orders: the keycaps and the mug, then the keycaps alone.
        #expect(try storefront(["headless", "--keys", "a,down,a,c,enter,p,enter"]).status == 0)
        #expect(try storefront(["headless", "--keys", "a,c,enter,p,enter"]).status == 0)
        let listed = try storefront(["orders", "--json"])
        let orders = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["orders"] as? [[String: Any]], "\(listed.stderr)")
        try #require(orders.count == 2)
        let first = try #require(orders.first { $0["number"] as? String == "SF-000001" })
        let refunded = try storefront(["orders", "refund", "SF-000001", "--amount", "10.00", "--reason", "=cmd|' /C calc'!A0"])
        #expect(refunded.status == 0, "\(refunded.stderr)")

        // Tax for the period: one jurisdiction, the orders' tax, and the refund's share of its order's.
        let today = String(try #require(first["placedAt"] as? String).prefix(10))
        let taxFile = root + "/tax-\(store).csv"
        let wrote = try storefront(["reports", "tax", "--from", today, "--to", today, "--output", taxFile])
        #expect(wrote.status == 0 && wrote.stderr.contains("wrote \(taxFile): 1 row"), "\(wrote.stderr)")
        let tax = try csvRows(taxFile)
        try #require(tax.count == 1, "\(tax)")
        let charged = orders.compactMap { $0["tax"] as? Int }.reduce(0, +)
        #expect(tax[0]["tax_charged"] == "\(charged)" && tax[0]["orders"] == "2" && tax[0]["jurisdiction"] == "US-CA", "\(tax)")
        let firstTax = try #require(first["tax"] as? Int)
        let firstTotal = try #require(first["total"] as? Int)
        let refundedTax = (1_000 * firstTax * 2 + firstTotal) / (firstTotal * 2)
        #expect(tax[0]["tax_refunded"] == "\(refundedTax)" && tax[0]["net_tax"] == "\(charged - refundedTax)", "\(tax)")

        // Sales by product: the formula is a name to read.
        let products = root + "/products-\(store).csv"
        #expect(try storefront(["reports", "sales", "--by", "product", "--from", today, "--to", today, "-o", products]).status == 0)
        let mug = try #require(try csvRows(products).first { $0["product"] == "mug-stdout" })
        #expect(mug["name"] == "'=HYPERLINK(\"http://evil.example\",\"Mug\")" && mug["quantity"] == "1", "\(mug)")
        let raw = try String(contentsOfFile: products, encoding: .utf8)
        #expect(!raw.contains(",=") && raw.contains("\r\n"), "no cell starts with =, and records end in CRLF")

        // Refunds: the one made, its reason escaped too; sales by day net of it.
        let refunds = try csvRows(try written(storefront, ["reports", "refunds", "--from", today, "--to", today], "refunds-\(store)"))
        #expect(refunds.count == 1 && refunds[0]["order"] == "SF-000001" && refunds[0]["amount"] == "1000", "\(refunds)")
        #expect(refunds[0]["reason"] == "'=cmd|' /C calc'!A0" && refunds[0]["tax_part"] == "\(refundedTax)")
        let days = try csvRows(try written(storefront, ["reports", "sales", "--from", today, "--to", today], "days-\(store)"))
        let total = orders.compactMap { $0["total"] as? Int }.reduce(0, +)
        #expect(days.count == 1 && days[0]["total"] == "\(total)" && days[0]["refunds"] == "1000" && days[0]["net"] == "\(total - 1_000)", "\(days)")

        // The orders themselves, as JSON: the same numbers and totals as `orders --json`.
        let exported = try storefront(["orders", "export", "--format", "json", "--from", today, "--to", today])
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])?["rows"] as? [[String: Any]], "\(exported.stderr)")
        #expect(rows.compactMap { $0["number"] as? String } == ["SF-000001", "SF-000002"])
        #expect(rows.compactMap { $0["total"] as? Int }.reduce(0, +) == total)
        #expect(rows.first?["email"] as? String == "jane@example.com")
        // The customer, found by their email, an order's number or their name, and their page's lifetime figures.
        func found(_ query: String) throws -> [[String: Any]] {
            let run = try storefront(["customers", "search", query, "--json"])
            try #require(run.status == 0, "\(run.stderr)")
            return try #require((try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["customers"] as? [[String: Any]])
        }
        let customer = try #require(first["customer"] as? String)
        #expect(try found("JANE@example.com").map { "\($0["id"] ?? "") \($0["matchedBy"] ?? "") \($0["orders"] ?? "")" } == ["\(customer) email 2"])
        #expect(try found("sf-000002").first?["matchedBy"] as? String == "order")
        #expect(try found("Appleseed").first?["name"] as? String == "Jane Appleseed")
        #expect(try found("j%e").isEmpty && found("jan_").isEmpty, "the typed % and _ are letters, not wildcards")
        #expect(try storefront(["customers", "search", "j"]).status == 64)
        let page = try storefront(["customers", "show", customer, "--json"])
        let shown = try #require((try JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [String: Any])?["customer"] as? [String: Any])
        let spend = try #require((shown["spend"] as? [[String: Any]])?.first, "\(page.stdout)")
        #expect(spend["charged"] as? Int == total && spend["refunded"] as? Int == 1_000 && spend["orders"] as? Int == 2)
        #expect((shown["orders"] as? [[String: Any]])?.count == 2 && shown["orderCount"] as? Int == 2)
        #expect(try storefront(["customers", "show", "acct_0000000000000000"]).status == 65)
        // A note on the page, kept with its author; one that is not one line of 1 to 500 characters is refused.
        let noted = try storefront(["customers", "note", customer, "Prefers deliveries after 5 pm"])
        #expect(noted.status == 0 && noted.stdout.hasPrefix("Noted on "), "\(noted)")
        #expect(try storefront(["customers", "note", customer, String(repeating: "x", count: 501)]).status == 65)
        #expect(try storefront(["customers", "note", customer, "two\nlines"]).status == 65)
        #expect(try storefront(["customers", "note", "acct_0000000000000000", "hello"]).status == 65)
        let notes = try #require(
            ((try JSONSerialization.jsonObject(with: Data(try storefront(["customers", "show", customer, "--json"]).stdout.utf8))
                as? [String: Any])?["customer"] as? [String: Any])?["notes"] as? [[String: Any]])
        #expect(
            notes.map { $0["text"] as? String } == ["Prefers deliveries after 5 pm"]
                && (notes.first?["author"] as? String)?.hasPrefix("merchant:") == true)

        // Another period holds none of them.
        let empty = try storefront(["orders", "export", "--from", "2020-01-01", "--to", "2020-01-31"])
        #expect(empty.status == 0 && empty.stdout.split(separator: "\r\n").count == 1, "the header alone: \(empty.stdout)")
    }

    /// Runs `arguments` writing to a file named `name` in the test's folder, and returns its path.
    func written(_ storefront: ([String]) throws -> Subprocess, _ arguments: [String], _ name: String) throws -> String {
        let path = root + "/\(name).csv"
        let run = try storefront(arguments + ["--output", path])
        try #require(run.status == 0, "\(run.stderr)")
        return path
    }
}
