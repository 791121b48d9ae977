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

    /// A product sold as a subscription: its intervals kept in order, written back as read, and each wrong one told.
    @Test func aProductNamesTheIntervalsItIsSoldAsASubscriptionAt() throws {
        let bundled = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        #expect(bundled.products.first { $0.id == "coffee-beans" }?.subscriptionWeeks == [1, 2, 4])
        #expect(bundled.products.filter { !$0.subscriptionWeeks.isEmpty }.count == 1)
        let written = CatalogWriter.product(try #require(bundled.products.first { $0.id == "coffee-beans" })) { _ in nil }
        #expect((written["subscription"] as? [String: [Int]]) == ["everyWeeks": [1, 2, 4]])
        func product(_ subscription: String) -> String {
            #"[{"id": "beans", "name": "Beans", "description": "ok", "price": 100, "subscription": \#(subscription)}]"#
        }
        let ordered = try CatalogLoader.load(data: Data(product(#"{"everyWeeks": [4, 2]}"#).utf8), source: "test")
        #expect(ordered.products[0].subscriptionWeeks == [2, 4])
        for wrong in [#"{"everyWeeks": []}"#, #"{"everyWeeks": [0]}"#, #"{"everyWeeks": [27]}"#, #"{"everyWeeks": [2, 2]}"#, #"{"weeks": [2]}"#, "2"]
        {
            #expect(issues(product(wrong)).contains { $0.contains("subscription") }, "\(wrong)")
        }
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

    @Test func aProductWithOptionsLoadsItsVariantsPricedFromTheLowest() throws {
        let json = #"""
            [{"id": "tee", "name": "Tee", "description": "A tee.", "price": 2000,
              "options": [{"name": "Size", "values": ["S", "M"]}, {"name": "Colour", "values": ["Black", "Grey"]}],
              "variants": [
                {"sku": "tee-s-black", "options": ["S", "Black"], "stock": 3, "grams": 180},
                {"sku": "tee-m-black", "options": ["M", "Black"], "price": 2200, "stock": 0},
                {"sku": "tee-m-grey", "options": ["M", "Grey"], "price": 1800, "stock": 2}
              ]}]
            """#
        let tee = try CatalogLoader.load(data: Data(json.utf8), source: "t").products[0]
        #expect(tee.options == [ProductOption(name: "Size", values: ["S", "M"]), ProductOption(name: "Colour", values: ["Black", "Grey"])])
        #expect(tee.variants.map(\.sku) == ["tee-s-black", "tee-m-black", "tee-m-grey"])
        #expect(tee.variants.map(\.price.minorUnits) == [2_000, 2_200, 1_800], "a variant without a price takes the product's")
        #expect(tee.price.minorUnits == 1_800 && tee.highestPrice?.minorUnits == 2_200, "listed from the lowest")
        #expect(tee.stock == 5 && tee.variants[0].grams == 180)
        #expect(tee.defaultVariant?.sku == "tee-s-black")
        #expect(tee.variant(values: ["M", "Black"])?.title == "M · Black")
        #expect(tee.variant(values: ["S", "Grey"]) == nil, "a combination the shop does not sell")
    }

    @Test func everyProblemWithOptionsAndVariantsIsListed() {
        let json = #"""
            {"products": [
              {"id": "a", "name": "A", "description": "d", "price": 1, "stock": 4,
               "options": [{"name": "Size", "values": ["S", "S", ""]}, {"name": "Size", "values": []}, {"name": "X", "values": ["1"]},
                           {"name": "Y", "values": ["2"]}],
               "variants": [{"options": ["S"]}]},
              {"id": "b", "name": "B", "description": "d", "price": 1,
               "options": [{"name": "Size", "values": ["S", "M"]}],
               "variants": [{"sku": "b-s", "options": ["S"]}, {"sku": "b-s2", "options": ["S"]}, {"sku": "b-l", "options": ["L"]},
                            {"sku": "a", "options": ["M"], "price": -1}]},
              {"id": "c", "name": "C", "description": "d", "price": 1, "variants": [{"sku": "b-s", "options": []}]},
              {"id": "d", "name": "D", "description": "d", "options": [{"name": "Size", "values": ["S"]}]}
            ]}
            """#
        let found = issues(json)
        for expected in [
            #"$.products[0].options (product "a"): has 4 options; a product has at most 3"#,
            #"$.products[0].options[0].values[1] (product "a"): repeats the value "S""#,
            #"$.products[0].options[0].values[2] (product "a"): must be a non-empty string"#,
            #"$.products[0].options[1].name (product "a"): repeats the option "Size""#,
            #"$.products[0].options[1].values (product "a"): must be a non-empty array of strings"#,
            #"$.products[0].variants[0].sku (product "a"): missing field"#,
            #"$.products[0].stock (product "a"): is kept per variant for a product with options"#,
            #"$.products[1].variants[1].options (product "b"): repeats the combination of variants[0]"#,
            #"$.products[1].variants[2].options[0] (product "b"): must be one of Size's values: S, M"#,
            #"$.products[1].variants[3].price (product "b"): must not be negative, got -1"#,
            #"$.products[2].variants (product "c"): needs "options" naming what its variants differ in"#,
            #"$.products[3].variants (product "d"): missing field: a product with options lists its variants"#,
        ] {
            #expect(found.contains(expected), "\(expected) in \(found)")
        }
    }

    @Test func aSKUNamesOneStockInTheWholeCatalog() {
        let json = #"""
            [{"id": "a", "name": "A", "description": "d", "price": 1,
              "options": [{"name": "Size", "values": ["S", "M"]}],
              "variants": [{"sku": "b", "options": ["S"]}, {"sku": "a-m", "options": ["M"]}]},
             {"id": "b", "name": "B", "description": "d", "price": 1},
             {"id": "c", "name": "C", "description": "d", "price": 1,
              "options": [{"name": "Size", "values": ["S"]}], "variants": [{"sku": "a-m", "options": ["S"]}]}]
            """#
        #expect(
            issues(json) == [
                #"$.products[0].variants[0].sku (product "a"): b is the id of $.products[1]"#,
                #"$.products[2].variants[0].sku (product "c"): a-m is already a SKU of a"#,
            ])
    }

    @Test func aWrittenCatalogReadsBackTheSame() throws {
        let bundled = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        let again = try CatalogLoader.load(data: try CatalogWriter.json(bundled), source: "written")
        #expect(again.shop == bundled.shop)
        #expect(again.products == bundled.products)
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

    /// An id or a SKU is a part of the API's paths and of log lines: bounded, without a slash, a control character or
    /// a space at either end, whichever front brings it (the file, the console, the API all load products here).
    @Test func idsAndSKUsAreBoundedAndHoldNoSlash() {
        let long = String(repeating: "x", count: 101)
        let json = """
            {"products": [
              {"id": "tee/black", "name": "A", "description": "d", "price": 100},
              {"id": "\(long)", "name": "B", "description": "d", "price": 100},
              {"id": " pad", "name": "C", "description": "d", "price": 100},
              {"id": "tee", "name": "T", "description": "d", "price": 100, "options": [{"name": "Size", "values": ["S", "M"]}],
               "variants": [{"sku": "tee/s", "options": ["S"]}, {"sku": "\(long)", "options": ["M"]}]},
              {"id": "\(String(repeating: "y", count: 100))", "name": "Ok", "description": "d", "price": 100}
             ]}
            """
        let found = issues(json)
        #expect(found.contains { $0.hasPrefix(#"$.products[0].id (product "tee/black"): contains a slash"#) }, "\(found)")
        #expect(found.contains { $0.hasPrefix("$.products[1].id") && $0.hasSuffix("is longer than 100 characters") }, "\(found)")
        #expect(found.contains(#"$.products[2].id (product " pad"): begins or ends with a space"#), "\(found)")
        #expect(found.contains { $0.hasPrefix("$.products[3].variants[0].sku") && $0.contains("contains a slash") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("$.products[3].variants[1].sku") && $0.hasSuffix("is longer than 100 characters") }, "\(found)")
        #expect(!found.contains { $0.hasPrefix("$.products[4]") }, "100 characters are allowed")
    }

    @Test func escapeSequencesAreControlCharacters() {
        #expect(CatalogLoader.containsControlCharacter("Lamp\u{1B}[2J"))
        #expect(CatalogLoader.containsControlCharacter("evil\u{202E}txt"))
        #expect(!CatalogLoader.containsControlCharacter("Café 東京"))
    }
}
