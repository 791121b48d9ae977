import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

/// Discount codes kept on SQLite and PostgreSQL: filed once, paused and resumed, deleted only while unused, and their
/// last use taken by exactly one of many buyers at once, on two hosts.
@Suite("Discount codes on both databases")
struct DiscountCodeStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func twentyBuyersOnTwoHostsRaceForTheLastUseAndOneWins(_ kind: CodeSignInTests.Kind) async throws {
        let (one, two, _) = try await CodeSignInTests().storages(kind)
        let code = DiscountCode(code: "LAUNCH", kind: .percentage(basisPoints: 1_000), totalUses: 3)
        try await one.discounts.create(code, at: now)
        await #expect(throws: DiscountCodeError.exists("LAUNCH")) { try await two.discounts.create(code, at: now) }
        // Two uses are gone already: one is left.
        for order in ["SF-000001", "SF-000002"] {
            #expect(try await one.discounts.claim("LAUNCH", order: order, customer: "acct_\(order)", at: now).get() == code)
        }
        let outcomes = await withTaskGroup(of: Result<DiscountCode, DiscountRefusal>?.self) { group in
            for buyer in 0..<20 {
                let storage = buyer.isMultiple(of: 2) ? one : two
                group.addTask { try? await storage.discounts.claim("LAUNCH", order: "SF-1\(buyer)", customer: "acct_\(buyer)", at: now) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 20 && !outcomes.contains { $0 == nil }, "every claim answered")
        #expect(outcomes.filter { if case .success = $0 { true } else { false } }.count == 1, "exactly one wins")
        #expect(outcomes.filter { $0 == .failure(.usedUp) }.count == 19)
        #expect(try await two.discounts.uses(of: "LAUNCH", customer: "acct_SF-000001") == (3, 1))
        // A declined order lets its use go: the next buyer gets it.
        try await one.discounts.release(order: "SF-000001")
        #expect(try await two.discounts.claim("LAUNCH", order: "SF-2", customer: "acct_late", at: now).get() == code)
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func codesArePausedResumedAndDeletedOnlyWhileUnused(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, _, _) = try await CodeSignInTests().storages(kind)
        let ship = DiscountCode(code: "SHIP", kind: .freeShipping, usesPerCustomer: 1)
        let spare = DiscountCode(code: "SPARE", kind: .fixed(Money(minorUnits: 500, currency: .usd)), endsAt: now)
        try await storage.discounts.create(ship, at: now)
        try await storage.discounts.create(spare, at: now)
        #expect(try await storage.discounts.setPaused("SHIP", true))
        #expect(try await storage.discounts.claim("SHIP", order: "SF-1", customer: "acct_a", at: now) == .failure(.unknown), "paused")
        #expect(try await storage.discounts.setPaused("SHIP", false))
        #expect(try await !storage.discounts.setPaused("NOPE", true))
        #expect(try await storage.discounts.claim("SHIP", order: "SF-2", customer: "acct_a", at: now) == .success(ship))
        #expect(try await storage.discounts.claim("SHIP", order: "SF-3", customer: "acct_a", at: now) == .failure(.usedByYou))
        #expect(try await storage.discounts.claim("SPARE", order: "SF-4", customer: "acct_b", at: now) == .failure(.expired))
        #expect(try await storage.discounts.claim("GHOST", order: "SF-5", customer: "acct_b", at: now) == .failure(.unknown))
        let listed = try await storage.discounts.all()
        #expect(listed.map(\.code.code) == ["SHIP", "SPARE"] && listed.map(\.uses) == [1, 0])
        await #expect(throws: DiscountCodeError.used("SHIP")) { try await storage.discounts.delete("SHIP") }
        #expect(try await storage.discounts.delete("SPARE"))
        #expect(try await storage.discounts.code("SPARE") == nil)
    }
}
