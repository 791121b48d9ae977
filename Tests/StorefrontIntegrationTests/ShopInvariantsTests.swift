import Foundation
import GRDB
import Testing

/// The books check every integration test's shops get at its end (`ShopInvariants`) finds what it is for.
@Suite("A shop's books", .ownThreads)
struct ShopInvariantsTests {
    @Test func aShopThatSoldAddsUpAndEachTamperingIsNamed() throws {
        // Not a `TemporaryDirectory`: the suite's own check at the end would find the tampering below.
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("books-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let bought = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--data-dir", data, "--keys", "enter,a,c,enter,p,enter,q"])
        try #require(bought.status == 0, "\(bought.stderr)")
        #expect(try ShopInvariants.violations(ofShopIn: data) == [], "a purchase adds up")

        let database = try DatabaseQueue(path: data + "/storefront.sqlite")
        try database.write { db in
            try db.execute(sql: "UPDATE stock SET reserved = reserved + 3 WHERE product_id = 'keycap-dusk'")
            try db.execute(sql: "UPDATE sandbox_charge SET amount = amount + 1")
            try db.execute(sql: "DELETE FROM outbox WHERE kind = 'receipt'")
            try db.execute(
                sql:
                    "INSERT INTO sandbox_charge (idempotency_key, token_id, amount, currency, outcome) VALUES ('k-stray', 't', 500, 'USD', 'succeeded')"
            )
        }
        #expect(
            try ShopInvariants.violations(ofShopIn: data).sorted() == [
                "SF-000001 has 0 receipts in the outbox",
                "SF-000001 was charged 6865, its total is 6864",
                "a charge of 500 under k-stray belongs to no order",
                "keycap-dusk holds 3 reserved, open orders 0",
            ])
    }
}
