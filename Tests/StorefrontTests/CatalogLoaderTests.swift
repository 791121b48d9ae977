import Foundation
import ShopBundledCatalog
import ShopModels
import ShopSandbox
import Testing

@Suite("Catalog loading and validation")
struct CatalogLoaderTests {
    private func issues(_ json: String) -> [String] {
        do {
            _ = try CatalogLoader.load(data: Data(json.utf8), source: "test.json")
            return []
        } catch let error as CatalogError {
            return error.issues.map(\.description)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test func bundledCatalogIsARealShop() throws {
        let catalog = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        #expect((20...30).contains(catalog.products.count))
        #expect(catalog.products.allSatisfy { !$0.art.isEmpty && !$0.description.isEmpty })
        #expect(catalog.shop.currency == .usd)
    }

    @Test func acceptsTheBenchHarnessFormat() throws {
        let json = #"[{"id":1,"name":"Red Oak Mug #1","price":1999,"description":"Durable handmade mug. Gift ready."}]"#
        let catalog = try CatalogLoader.load(data: Data(json.utf8), source: "bench")
        #expect(catalog.products[0].id == "1")
        #expect(catalog.products[0].summary == "Durable handmade mug.")
        #expect(catalog.products[0].price == Money(minorUnits: 1999, currency: .usd))
    }

    /// Where the shop's mail comes from and replies go: addresses, checked as the shoppers' are.
    @Test func theStoreNamesItsMailAddresses() throws {
        let product = #"{"id": "a", "name": "Mug", "description": "ok", "price": 100}"#
        let catalog = try CatalogLoader.load(
            data: Data(#"{"store": {"email": "shop@example.com", "replyTo": "help@example.com"}, "products": [\#(product)]}"#.utf8), source: "test")
        #expect(catalog.shop.email == "shop@example.com" && catalog.shop.replyTo == "help@example.com")
        #expect(
            issues(#"{"store": {"replyTo": "help@example.com, eve@evil.example"}, "products": [\#(product)]}"#) == [
                "$.store.replyTo: must be an email address such as shop@example.com"
            ])
    }

    @Test func malformedJSON() {
        let found = issues(#"{"products": [ {"id": "a", }"#)
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("$: malformed JSON"))
    }

    @Test func everyProblemIsNamedByPathAndProduct() {
        let json = """
            {"store": {"currency": "XXX"},
             "products": [
              {"id": "a", "name": "Fine", "description": "ok", "price": 100},
              {"id": "b", "description": "no name", "price": 100},
              {"id": "c", "name": "Neg", "description": "d", "price": -5},
              {"id": "d", "name": "Frac", "description": "d", "price": 12.5},
              {"id": "a", "name": "Dup", "description": "d", "price": 1},
              {"id": "e", "name": "\(String(repeating: "x", count: 81))", "description": "d", "price": 1},
              {"id": "f", "name": "Bell\\u0007", "description": "d", "price": 1},
              {"id": "g", "name": "Str", "description": "d", "price": "12"}
             ]}
            """
        let found = issues(json)
        #expect(found.contains("$.store.currency: unknown currency XXX"))
        #expect(found.contains(#"$.products[1].name (product "b"): missing field"#))
        #expect(found.contains(#"$.products[2].price (product "c"): must not be negative, got -5"#))
        #expect(found.contains { $0.hasPrefix(#"$.products[3].price (product "d"): must be a whole number"#) })
        #expect(found.contains(#"$.products[4].id (product "a"): duplicate id (first used at $.products[0])"#))
        #expect(found.contains(#"$.products[5].name (product "e"): is too long (81 characters, at most 80)"#))
        #expect(found.contains(#"$.products[6].name (product "f"): contains a control character"#))
        #expect(found.contains(#"$.products[7].price (product "g"): must be a whole number of minor units"#))
    }

    @Test func escapeSequencesAreControlCharacters() {
        #expect(CatalogLoader.containsControlCharacter("Lamp\u{1B}[2J"))
        #expect(CatalogLoader.containsControlCharacter("evil\u{202E}txt"))
        #expect(!CatalogLoader.containsControlCharacter("Café 東京"))
    }
}
