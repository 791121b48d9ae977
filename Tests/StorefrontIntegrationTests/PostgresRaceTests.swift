import Foundation
import ShopBundledCatalog
import ShopModels
import ShopSandbox
import StoragePostgres
import StorefrontTesting
import Testing

/// Many shoppers after the same units, each in a shop process of their own, one PostgreSQL behind them.
@Suite("Racing buyers on one PostgreSQL", .serialized, .ownThreads)
struct PostgresRaceTests {
    /// 10 shop processes, each a customer of its own, try 100 checkouts each of a product with 100 units.
    ///
    /// Each process is the program a `serve` session runs (`headless` drives it with a key script
    /// and waits for each key's effects), so every checkout goes through the payment sheet, the
    /// merchant backend and the sandbox provider, as a shopper's would.
    @Test func aThousandCheckoutsForAHundredUnitsSellExactlyAHundred() async throws {
        let fixture = try await PostgresFixture()
        _ = try await fixture.importing(try Self.oneProduct(stock: 100))
        let binary = try BuiltProduct.requireStorefront()
        // Each customer's wallet starts with the sandbox test cards; the default one succeeds.
        let script = Array(repeating: HeadlessScript.buyTheSelectedProduct, count: 100).flatMap { $0 }
        let running = try (0..<10).map { _ in
            var environment = ProcessInfo.processInfo.environment
            environment["STOREFRONT_DATABASE_URL"] = fixture.url
            environment[HeadlessScript.fingerprintVariable] = HeadlessScript.newFingerprint()
            environment["HOME"] = TemporaryDirectory.make().path
            return try Subprocess.start(
                binary, ["headless", "--no-migrate", "--frames", "--keys", script.joined(separator: ",")], environment: environment,
                timeout: .seconds(600))
        }
        let results = running.map { $0.wait() }
        var confirmed = Set<String>()
        var buyers = 0
        for result in results {
            try #require(result.status == 0, "a shop process failed: \(result.stderr)")
            let own = Set(result.stdout.matches(of: /Order (SF-\d{6}) is paid/).map { String($0.1) })
            if !own.isEmpty { buyers += 1 }
            confirmed.formUnion(own)
        }
        // The processes ran side by side: more than one of them sold units.
        #expect(buyers > 1, "only \(buyers) process sold anything")

        #expect(confirmed.count == 100, "shoppers were told of \(confirmed.count) paid orders")
        let stock = try fixture.stock("last-units")
        #expect(
            stock.sold == 100 && stock.onHand == 0 && stock.reserved == 0, "sold \(stock.sold), on hand \(stock.onHand), reserved \(stock.reserved)")
        #expect(stock.onHand + stock.reserved + stock.sold == 100)
        let paid = try fixture.rows("SELECT number FROM orders WHERE status = 'paid' ORDER BY number")
        #expect(Set(paid) == confirmed, "the paid orders are the ones shoppers were told of")
        // Every paid order has exactly one succeeded charge, and no succeeded charge lacks a paid order.
        let charges = try fixture.rows(
            """
            SELECT o.number, count(c.idempotency_key) FROM orders o
            LEFT JOIN sandbox_charge c ON c.idempotency_key = o.idempotency_key AND c.outcome = 'succeeded'
            WHERE o.status = 'paid' GROUP BY o.number HAVING count(c.idempotency_key) <> 1
            """)
        #expect(charges.isEmpty, "paid orders without exactly one succeeded charge: \(charges)")
        let stray = try fixture.rows(
            """
            SELECT c.idempotency_key FROM sandbox_charge c LEFT JOIN orders o ON o.idempotency_key = c.idempotency_key
            WHERE c.outcome = 'succeeded' AND (o.status IS NULL OR o.status <> 'paid')
            """)
        #expect(stray.isEmpty, "succeeded charges without a paid order: \(stray)")
        let open = try fixture.rows("SELECT number || ' ' || status FROM orders WHERE status NOT IN ('paid', 'voided', 'declined')")
        #expect(open.isEmpty, "orders left open: \(open)")
    }

    /// The bundled catalog's shop profile with one product, "Last Units", of which `stock` are on hand.
    static func oneProduct(stock: Int) throws -> Catalog {
        let bundled = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        var product = bundled.products[0]
        product.id = ProductID("last-units")
        product.name = "Last Units"
        product.stock = stock
        return Catalog(shop: bundled.shop, products: [product])
    }
}

/// Key scripts for `storefront headless`, as a shopper with an SSH key would type them.
enum HeadlessScript {
    static let fingerprintVariable = "STOREFRONT_SSH_KEY_FINGERPRINT"

    /// A customer nobody has used: an OpenSSH SHA256 fingerprint of random bytes.
    static func newFingerprint() -> String {
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        return "SHA256:" + Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// Back to the shop, add the selected product, pay for the cart, close what the payment left open.
    /// Paid or sold out, it ends on a screen where the next round's `s` goes back to the shop.
    static let buyTheSelectedProduct = ["s", "a", "c", "enter", "p", "enter", "esc"]
}
