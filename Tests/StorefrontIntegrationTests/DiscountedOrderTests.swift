import Foundation
import MerchantReports
import ShopApplication
import ShopBootstrap
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

/// Orders with a discount code on SQLite and PostgreSQL: the use held in the transaction that reserves the stock (one
/// of twenty buyers on two hosts gets the last), given back when the order is declined or canceled, and the order's
/// total, its JSON and a partial refund agreeing to the minor unit.
@Suite("Discounted orders on both databases", .ownThreads)
struct DiscountedOrderTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// `quantity` of keycap-dusk ($64.00) and two of mug-stdout ($18.00) for `customer`, to Jane in California.
    func draft(_ storage: ShopStorage, customer: String, code: DiscountCode?, keycaps: Int = 1) async throws -> OrderDraft {
        let keycap = try #require(try await storage.catalog.product(id: "keycap-dusk"))
        let mug = try #require(try await storage.catalog.product(id: "mug-stdout"))
        var cart = Cart(currency: storage.currency)
        _ = cart.add(keycap, quantity: keycaps)
        _ = cart.add(mug, quantity: 2)
        return try PlaceOrder.draft(
            lines: cart.lines, shippingMethodID: nil, contact: Fixtures.jane, customerID: customer, shop: storage.catalog.shop, discount: code)
    }

    func onHand(_ storage: ShopStorage, _ product: ProductID) async throws -> Int {
        try await storage.stock.stockLevels().first { $0.productID == product }?.onHand ?? -1
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func twentyBuyersOnTwoHostsPlaceOrdersForTheLastUseAndOneGetsIt(_ kind: CodeSignInTests.Kind) async throws {
        let (one, two, _) = try await CodeSignInTests().storages(kind)
        let code = DiscountCode(code: "LAST", kind: .fixed(Money(minorUnits: 1_000, currency: .usd)), totalUses: 1)
        try await one.discounts.create(code, at: now)
        let before = try await onHand(one, "keycap-dusk")
        var drafts: [OrderDraft] = []
        for buyer in 0..<20 { drafts.append(try await draft(buyer.isMultiple(of: 2) ? one : two, customer: "acct_\(buyer)", code: code)) }
        let outcomes = await withTaskGroup(of: Result<Order, OrderRepositoryError>.self) { group in
            for (buyer, draft) in drafts.enumerated() {
                let storage = buyer.isMultiple(of: 2) ? one : two
                group.addTask {
                    do throws(OrderRepositoryError) {
                        return .success(
                            try await storage.orders.begin(
                                draft, idempotencyKey: "key-\(buyer)", tokenID: "tok", paymentDescription: "Visa ••4242", placedAt: now))
                    } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let placed = outcomes.compactMap { try? $0.get() }
        #expect(placed.count == 1, "exactly one order holds the last use")
        #expect(outcomes.filter { $0 == .failure(.discountRefused(.usedUp)) }.count == 19)
        #expect(try await onHand(one, "keycap-dusk") == before - 1, "the refused orders reserved nothing")
        // Declined, the order gives the use back, and the next buyer's order takes it.
        let winner = try #require(placed.first)
        try await two.orders.finish(orderNumber: winner.number, status: .declined, failure: "declined", at: now)
        #expect(try await one.discounts.uses(of: "LAST", customer: winner.customerID) == (0, 0))
        let late = try await one.orders.begin(
            try await draft(one, customer: "acct_late", code: code), idempotencyKey: "key-late", tokenID: "tok", paymentDescription: "Visa",
            placedAt: now)
        #expect(late.discount?.code == "LAST")
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func theTotalTheJSONAndAPartialRefundAgreeAndACancelGivesTheUseBack(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, _, _) = try await CodeSignInTests().storages(kind)
        let code = DiscountCode(code: "THIRD", kind: .percentage(basisPoints: 3_333), usesPerCustomer: 1)
        try await storage.discounts.create(code, at: now)
        let draft = try await draft(storage, customer: "acct_a", code: code, keycaps: 3)
        // 3 × $64.00 + 2 × $18.00 = $228.00; 33.33 % of it is $75.99, shared $63.99 and $12.00 by largest remainders.
        #expect(draft.totals.subtotal.minorUnits == 22_800 && draft.totals.discount.minorUnits == 7_599)
        #expect(
            draft.discount?.lineShares == [
                "keycap-dusk": Money(minorUnits: 6_399, currency: .usd), "mug-stdout": Money(minorUnits: 1_200, currency: .usd),
            ])
        let begun = try await storage.orders.begin(draft, idempotencyKey: "k1", tokenID: "tok", paymentDescription: "Visa", placedAt: now)
        try await storage.orders.finish(orderNumber: begun.number, status: .paid, failure: nil, at: now)
        let order = try #require(try await storage.orders.order(number: begun.number))
        #expect(order.discount == draft.discount)
        #expect(order.totals == draft.totals)
        let totals = order.totals
        #expect(totals.total.minorUnits == totals.subtotal.minorUnits + totals.shipping.minorUnits - 7_599 + totals.tax.minorUnits)
        // California's 7.25 % on what is paid for the goods: $152.01 → $11.02.
        #expect(totals.tax.minorUnits == 1_102)
        // The receipt names the code's line and the total charged.
        let receipt = OrderMail.compose(
            OutboxEntry(
                id: "MSG-1", orderNumber: order.number, kind: .receipt, eventSequence: 2, recipient: MailAddress(address: "jane@example.com"),
                messageID: "<m@shop>", createdAt: now, nextAttemptAt: now),
            order: order, events: try await storage.orders.events(orderNumber: order.number), shop: storage.catalog.shop,
            sender: MailSender(from: MailAddress(address: "shop@example.com"))
        ).text
        #expect(receipt.contains("Discount THIRD") && receipt.contains("-$75.99") && receipt.contains(totals.total.formatted), "\(receipt)")
        let json = OrderReport.object(order)
        #expect(json["total"] as? Int64 == totals.total.minorUnits)
        #expect((json["discount"] as? [String: Any])?["total"] as? Int64 == 7_599)
        // One keycap of three gives back a third of what the keycaps paid ($192.00 − $63.99 = $128.01 → $42.67) and its
        // share of the tax ($11.02 × 42.67 / 152.01 → $3.09).
        let refund = order.refundAmount(for: ["keycap-dusk": 1])
        #expect(refund.minorUnits == 4_267 + 309)
        // All of everything gives back exactly what was paid for the goods and their tax.
        #expect(order.refundAmount(for: ["keycap-dusk": 3, "mug-stdout": 2]).minorUnits == 15_201 + 1_102)
        #expect(try await storage.discounts.check("third", customer: "acct_a", at: now) == .failure(.usedByYou))
        // Canceled (refunded in full before shipping), the order gives its use back.
        let filed = try await storage.orders.fileRefund(
            RefundAsk(kind: .cancel, amount: order.totals.total, reason: "changed my mind"), toOrder: order.number, by: .shopper("acct_a"),
            at: now, expecting: .paid)
        _ = try await storage.orders.settleRefund(id: filed.id, as: .refunded(reference: "re_1"), at: now)
        #expect(try await storage.discounts.uses(of: "THIRD", customer: "acct_a") == (0, 0))
    }
}
