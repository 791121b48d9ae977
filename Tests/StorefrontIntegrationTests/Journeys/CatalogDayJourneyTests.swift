import Foundation
import StorefrontTesting
import Testing

/// The merchant's catalog day, while shoppers hold the products in their carts: a shopper over SSH keeps the shop open
/// on a cart of keycaps and a beanie; the merchant takes the beanie out of the shop in the console (over SSH, an admin
/// key), raises the keycaps' price and removes the espresso grind of the coffee through the merchant API. The shopper
/// sees the beanie marked as no longer sold, is refused it by name at Pay, is told the new price before anything is
/// charged, and pays it. A buyer through the API holding a removed variant is refused it by name. The catalog exported
/// then opens a fresh shop with the new price and without what was withdrawn.
@Suite("Journey: the merchant's catalog day", .ownThreads)
struct CatalogDayJourneyTests {
    @Test func liveEditsPriceChangeWithdrawalRemovedVariantExportAndImport() async throws {
        let setup = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: setup, withIntermediateDirectories: true)
        let adminKeys = setup.appendingPathComponent("admin_keys").path
        let merchantKey = setup.appendingPathComponent("merchant").path
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "merchant", "-f", merchantKey])
        try #require(made.status == 0, "ssh-keygen: \(made.stderr)")
        try String(contentsOfFile: merchantKey + ".pub", encoding: .utf8).write(toFile: adminKeys, atomically: true, encoding: .utf8)
        let shop = try ServeProcess(arguments: ["--admin-keys", adminKeys])
        let api = try ServeProcess(
            command: ["api", "--listen", "127.0.0.1:0", "--admin-keys", adminKeys], dataDirectory: shop.dataDirectory)
        let cli = ShopCommandLine(dataDirectory: shop.dataDirectory)
        let http = HTTPClient(port: api.port)
        let merchant = try cli.run([
            "tokens", "create", "--name", "catalog", "--customer", "ssh:" + (try ServeProcess.fingerprint(ofKey: merchantKey)),
            "--scope", "merchant", "--admin-keys", adminKeys,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(merchant.hasPrefix("sfp_"))

        // The shopper fills a cart over SSH and stays, on the cart.
        let shopperKey = try shop.makeClientKey("shopper")
        let shopper = try TmuxTerminal(columns: 120, rows: 34)
        try shop.connect(shopper, key: shopperKey)
        try shopper.press("a")
        try shopper.waitFor("Added Dusk Keycap Set")
        try shopper.selectRow(containing: "Tilde Beanie")
        try shopper.press("a")
        try shopper.waitFor("Added Tilde Beanie")
        try shopper.press("c")
        try shopper.waitFor("Tilde Beanie")

        // A buyer through the API holds the espresso coffee.
        let buyer = try cli.run(["tokens", "create", "--name", "buyer", "--customer", "ssh:SHA256:" + String(repeating: "b", count: 43)])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let address =
            #"{"name": "Bo", "email": "bo@example.com", "street": "1 Loop Road", "city": "Cupertino", "region": "CA", "postalCode": "95014", "countryCode": "US"}"#
        #expect(try await http.send("POST", "/v1/addresses", token: buyer, json: address).status == 201)
        #expect(try await http.send("POST", "/v1/cards", token: buyer, json: #"{"testCard": "card_ok_visa_4242"}"#).status == 201)
        let espresso = #"{"quantity": 1, "sku": "coffee-beans-espresso-250g"}"#
        let held = try await http.send("PUT", "/v1/cart/lines/coffee-beans", token: buyer, json: espresso)
        #expect(held.status == 200, "\(held.json)")

        // The merchant's console: the beanie out of the shop.
        let console = try TmuxTerminal(columns: 120, rows: 34)
        try shop.connect(console, key: merchantKey)
        try console.press("4")
        try console.waitFor("Tilde Beanie")
        try console.selectRow(containing: "Tilde Beanie")
        try console.press("p")
        try console.waitFor("Tilde Beanie is out of the shop until you publish it again (p).")
        try console.waitUntil("the beanie unpublished") { screen in
            screen.split(separator: "\n").contains { $0.contains("Tilde Beanie") && $0.contains("unpublished") }
        }
        // The mug gets a new first picture: a file on the server, named in the form's last field.
        let duck = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "StorefrontTests/PictureFixtures/duck.jpg")
        // The beanie, out of the shop, is listed last, where the selection followed it.
        try console.press("Home")
        try console.selectRow(containing: "stdout Mug")
        try console.press("Enter")
        try console.waitFor("now pictures/mug-stdout.png")
        for _ in 0..<6 { try console.press("Tab") }
        try console.type(duck.path)  // and Enter: the last field's Enter saves
        try console.waitFor("Saved stdout Mug, version 2")
        try shop.leave(console)

        // The merchant API: the keycaps from $64.00 to $70.00, and the coffee without its espresso grind.
        let products = try #require(try await http.send("GET", "/v1/merchant/products", token: merchant).json["data"] as? [[String: Any]])
        func edit(_ id: String, from version: Int = 1, _ change: (inout [String: Any]) -> Void) async throws {
            let entry = try #require(products.first { $0["id"] as? String == id })
            var document = try #require(entry["product"] as? [String: Any])
            change(&document)
            let body = try JSONSerialization.data(withJSONObject: ["version": version, "product": document])
            let saved = try await http.send("PUT", "/v1/merchant/products/\(id)", token: merchant, json: String(decoding: body, as: UTF8.self))
            #expect(saved.status == 200, "\(id): \(saved.json)")
        }
        try await edit("keycap-dusk") { $0["price"] = 7_000 }
        try await edit("coffee-beans") { coffee in
            var options = coffee["options"] as? [[String: Any]] ?? []
            options[0]["values"] = ["Whole bean", "Filter"]
            coffee["options"] = options
            coffee["variants"] = (coffee["variants"] as? [[String: Any]] ?? []).filter { ($0["options"] as? [String])?.first != "Espresso" }
        }

        // The shopper, still in the shop, comes back to the cart: the beanie is marked, the keycaps are at today's price.
        try shopper.press("s")
        try shopper.waitFor("Products")
        try shopper.press("c")
        let cart = try shopper.waitFor("Tilde Beanie · no longer sold")
        #expect(cart.contains("Tilde Beanie is no longer sold: x removes a line"), "\(cart)")
        let keycaps = try #require(cart.split(separator: "\n").first { $0.contains("Dusk Keycap Set") }, "\(cart)")
        #expect(keycaps.contains("$70.00") && !keycaps.contains("$64.00"), "\(cart)")
        // Pay refuses the beanie by name, and nothing is charged; without it, the keycaps are paid at $70.00.
        try shopper.press("Enter")
        try shopper.waitFor("Pay with Storefront")
        #expect(amounts(in: try shopper.screen())["Subtotal"] == 7_000 + 2_600)
        try shopper.press("p")
        try shopper.waitFor("Enter confirm")
        try shopper.press("Enter")
        try shopper.waitFor("Tilde Beanie is no longer sold: remove it from the cart to")
        #expect(try cli.orders().isEmpty, "nothing charged")
        try shopper.press("Escape")
        try shopper.waitFor("Your cart")
        try shopper.selectRow(containing: "Tilde Beanie")
        try shopper.press("x")
        try shopper.waitFor("Removed Tilde Beanie.")
        try shopper.press("Enter")
        try shopper.waitFor("Pay with Storefront")
        try shopper.payOnTheSheet()
        try shop.leave(shopper)
        let paid = try #require(try cli.orders().first)
        #expect(paid["subtotal"] as? Int == 7_000 && "\(paid["lines"] ?? "")".contains("Dusk Keycap Set"), "\(paid)")
        #expect(!"\(paid["lines"] ?? "")".contains("Tilde Beanie"))

        // A second visit: the cart that kept yesterday's price is told today's as it is shown, before the sheet.
        try await edit("keycap-dusk", from: 2) { $0["price"] = 7_500 }
        try shop.connect(shopper, key: shopperKey)
        try shopper.press("a")
        try shopper.waitFor("Added Dusk Keycap Set")
        try await edit("keycap-dusk", from: 3) { $0["price"] = 7_200 }
        try shopper.press("c")
        try shopper.waitFor("The price changed since you put it in your cart: Dusk Keycap Set: $72.00 each, was $75.00.")
        try shopper.press("x")
        try shopper.waitFor("Removed Dusk Keycap Set.")
        try shop.leave(shopper)

        // The API buyer's removed variant is refused by name, and nothing is charged.
        let refused = try await http.send("POST", "/v1/orders", token: buyer, json: "{}", headers: ["Idempotency-Key": "espresso"])
        #expect(refused.status == 422 && "\(refused.json)".contains("Compile-Time Coffee — Espresso · 250 g"), "\(refused.json)")
        #expect(try cli.orders().count == 1)

        // Exported, the catalog opens a fresh shop as the merchant left it.
        let file = setup.appendingPathComponent("catalog.json").path
        let exported = try cli.run(["catalog", "export", file])
        #expect(exported.status == 0, "\(exported.stderr)")
        let valid = try Subprocess.run(try BuiltProduct.requireStorefront(), ["catalog", "validate", file])
        #expect(valid.status == 0 && valid.stdout.contains("valid, 23 products"), "\(valid)")
        let fresh = try ShopCommandLine(dataDirectory: setup.appendingPathComponent("fresh").path)
            .run(["headless", "--catalog", file, "--size", "100x30", "--keys", "q"])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        let list = fresh.stdout
        #expect(list.split(separator: "\n").contains { $0.contains("Dusk Keycap Set") && $0.contains("$72.00") }, "\(list)")
        #expect(!list.contains("Tilde Beanie") && list.contains("1 of 23"), "\(list)")
        // The mug names the duck first, and the export wrote it beside the catalog, byte for byte.
        let exportedText = try String(contentsOfFile: file, encoding: .utf8)
        let duckFile = try #require(
            exportedText.firstMatch(of: /pictures\/[0-9a-f]{16}\.jpg/).map { String($0.output) }, "\(exportedText.prefix(400))")
        #expect(try Data(contentsOf: setup.appending(path: duckFile)) == (try Data(contentsOf: duck)))
        let coffee = try ShopCommandLine(dataDirectory: setup.appendingPathComponent("fresh").path)
            .run(["headless", "--catalog", file, "--size", "100x30", "--keys", "/,c,o,m,p,i,l,e,enter,enter"])
        #expect(coffee.stdout.contains("Whole bean") && !coffee.stdout.contains("Espresso"), "\(coffee.stdout)")
    }
}
