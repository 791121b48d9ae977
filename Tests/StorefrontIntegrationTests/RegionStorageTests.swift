import Foundation
import GRDB
import ShopApplication
import ShopModels
import ShopPorts
import StorageRows
import StorefrontTesting
import Testing

/// Tax and shipping by region on both databases: each order keeps the rule, rate and jurisdiction it was charged under,
/// the sales add tax up by jurisdiction, and addresses saved before regions migrate in place.
@Suite("Regions in a database", .ownThreads)
struct RegionStorageTests {
    let placedAt = Date(timeIntervalSince1970: 1_795_339_800)

    static func contact(_ id: String, _ address: PostalAddress) -> Contact {
        Contact(id: id, name: id, email: "\(id)@example.com", phone: "", address: address)
    }

    static let ontario = contact(
        "priya", PostalAddress(street: "100 Queen St W", city: "Toronto", region: "CA-ON", postalCode: "M5H 2N2", countryCode: "CA"))
    static let berlin = contact("lena", PostalAddress(street: "Hauptstraße 1", city: "Berlin", postalCode: "10115", countryCode: "DE"))
    static let austin = contact(
        "sam", PostalAddress(street: "1 Congress Ave", city: "Austin", region: "US-TX", postalCode: "78701", countryCode: "US"))
    static let reykjavik = contact("ines", PostalAddress(street: "Laugavegur 7", city: "Reykjavik", postalCode: "101", countryCode: "IS"))

    @Test(arguments: StockedRepositoryKind.allCases)
    func eachOrderKeepsItsTaxAndTheSalesAddItUpByJurisdiction(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let shop = fixture.catalog.shop
        let coffee = try #require(try await fixture.catalog.product(id: "coffee-beans"))
        let stocked = try #require(coffee.variants.first { ($0.stock ?? 0) >= 3 })
        let line = CartLine(product: coffee, variant: stocked, quantity: 1)
        var drafts: [OrderDraft] = []
        for (index, contact) in [Self.ontario, Self.berlin, Self.austin].enumerated() {
            let draft = try PlaceOrder.draft(lines: [line], shippingMethodID: nil, contact: contact, customerID: "guest", shop: shop)
            let order = try await fixture.orders.begin(
                draft, idempotencyKey: "k\(index)", tokenID: "t", paymentDescription: "Visa", placedAt: placedAt)
            try await fixture.orders.finish(orderNumber: order.number, status: .paid, failure: nil)
            let read = try #require(try await fixture.orders.order(number: order.number))
            #expect(read.taxCharged == draft.tax, "\(contact.id)")
            #expect(read.totals == draft.totals, "\(contact.id)")
            drafts.append(draft)
        }
        #expect(drafts.map(\.tax.summaryLabel) == ["HST", "incl. VAT 19%", "Sales tax"])
        #expect(drafts.map(\.tax.jurisdiction) == ["CA-ON", "DE", "US-TX"])
        #expect(drafts[1].totals.taxIncluded && drafts[1].totals.total == drafts[1].totals.subtotal + drafts[1].totals.shipping)
        let sales = try await fixture.orders.sales(from: placedAt, to: placedAt.addingTimeInterval(60), currency: shop.currency)
        #expect(sales.revenue == drafts.map(\.totals.total).reduce(.zero(shop.currency), +), "VAT in the prices is not counted twice")
        #expect(
            sales.taxes == [
                JurisdictionTax(jurisdiction: "CA-ON", label: "HST", amount: drafts[0].totals.tax),
                JurisdictionTax(jurisdiction: "DE", label: "VAT", amount: drafts[1].totals.tax),
                JurisdictionTax(jurisdiction: "US-TX", label: "Sales tax", amount: drafts[2].totals.tax),
            ])
        #expect(throws: PlaceOrder.DraftRefusal.self) {
            try PlaceOrder.draft(lines: [line], shippingMethodID: nil, contact: Self.reykjavik, customerID: "guest", shop: shop)
        }
    }

    /// v20 on addresses saved before it: a US address takes its ZIP code's state, a US phone its +1, and nothing else
    /// changes. The same statements run on PostgreSQL (`RegionsMigration`).
    @Test func savedAddressesMigrateInPlace() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE address (customer TEXT, id TEXT, name TEXT, street TEXT NOT NULL, city TEXT, postal_code TEXT NOT NULL,
                        country TEXT NOT NULL, email TEXT, phone TEXT NOT NULL);
                    CREATE TABLE orders (number TEXT);
                    CREATE TABLE cart_line (customer TEXT);
                    INSERT INTO address VALUES ('c', 'a1', 'Jane', '1 Loop Road', 'Cupertino', '95014', 'US', '', '408 555 0100');
                    INSERT INTO address VALUES ('c', 'a2', 'Sam', '1 Congress Ave', 'Austin', '78701-1234', 'US', '', '');
                    INSERT INTO address VALUES ('c', 'a3', 'Ines', 'Laugavegur 7', 'Reykjavik', '101', 'IS', '', '555 0199');
                    INSERT INTO address VALUES ('c', 'a4', 'Mil', 'Unit 1', 'APO', '09001', 'US', '', '+1 555 0100');
                    """)
            for statement in RegionsMigration.statements { try db.execute(sql: statement) }
        }
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, street2, region, phone FROM address ORDER BY id").map {
                [$0["id"], $0["street2"], $0["region"], $0["phone"]] as [String]
            }
        }
        #expect(
            rows == [
                ["a1", "", "US-CA", "+1 408 555 0100"], ["a2", "", "US-TX", ""], ["a3", "", "", "555 0199"], ["a4", "", "", "+1 555 0100"],
            ])
    }
}
