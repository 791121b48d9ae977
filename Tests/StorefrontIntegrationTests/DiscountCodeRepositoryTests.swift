import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

/// Discount codes kept on SQLite and PostgreSQL: filed once, paused and resumed, refused for an order as they stand
/// under the lock its use is held with, and deleted only while unused. The race for the last use, through whole
/// orders on two hosts, is in `DiscountedOrderTests`.
@Suite("Discount codes on both databases", .ownThreads)
struct DiscountCodeRepositoryTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func codesArePausedResumedAndDeletedOnlyWhileUnused(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, other, _) = try await CodeSignInTests().storages(kind)
        let ship = DiscountCode(code: "SHIP", kind: .freeShipping, usesPerCustomer: 1)
        let spare = DiscountCode(code: "SPARE", kind: .fixed(Money(minorUnits: 500, currency: .usd)), endsAt: now)
        try await storage.discounts.create(ship, at: now)
        try await storage.discounts.create(spare, at: now)
        await #expect(throws: DiscountCodeError.exists("SHIP")) { try await other.discounts.create(ship, at: now) }
        let mug = try #require(try await storage.catalog.product(id: "mug-stdout"))
        func order(_ code: DiscountCode, _ customer: String, _ key: String) async throws -> Result<Order, OrderRepositoryError> {
            try await storage.orders.begin(mug, code: code, customer: customer, key: key, shop: storage.catalog.shop, at: now)
        }
        #expect(try await storage.discounts.setPaused("SHIP", true))
        #expect(try await order(ship, "acct_a", "k1") == .failure(.discountRefused(.unknown)), "paused reads as unknown")
        #expect(try await storage.discounts.setPaused("SHIP", false))
        #expect(try await !storage.discounts.setPaused("NOPE", true))
        #expect(try await order(ship, "acct_a", "k2").map(\.discount?.code) == .success("SHIP"))
        #expect(try await order(ship, "acct_a", "k3") == .failure(.discountRefused(.usedByYou)))
        #expect(try await order(spare, "acct_b", "k4") == .failure(.discountRefused(.expired)))
        let ghost = DiscountCode(code: "GHOST", kind: .freeShipping)
        #expect(try await order(ghost, "acct_b", "k5") == .failure(.discountRefused(.unknown)))
        #expect(try await other.discounts.check("ship", customer: "acct_a", at: now) == .failure(.usedByYou), "as another host checks it")
        let listed = try await storage.discounts.all()
        #expect(listed.map(\.code.code) == ["SHIP", "SPARE"] && listed.map(\.uses) == [1, 0])
        await #expect(throws: DiscountCodeError.used("SHIP")) { try await storage.discounts.delete("SHIP") }
        #expect(try await storage.discounts.delete("SPARE"))
        #expect(try await storage.discounts.code("SPARE") == nil)
    }
}
