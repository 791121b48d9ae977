import Foundation
import PropertyBased
import ShopModels
import Testing

/// Discount codes as money: what each kind takes off, the shares across lines adding up to the minor unit, and the one
/// line each refusal says.
@Suite("Discount codes")
struct DiscountTests {
    static let usd = Currency.usd
    static func money(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: usd) }
    static func line(_ id: String, _ cents: Int64, _ quantity: Int, sku: String? = nil) -> CartLine {
        CartLine(
            productID: ProductID(id), name: id, unitPrice: money(cents), quantity: quantity,
            variant: sku.map { ChosenVariant(sku: ProductID($0), title: $0) })
    }
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func randomCartsAndCodesShareTheDiscountToTheMinorUnitAndNeverBelowZero() async {
        let prices = Gen.int(in: 1...2_000_000).array(of: 1...8)
        let quantities = Gen.int(in: 1...20).array(of: 8...8)
        let basisPoints = Gen.int(in: 1...10_000)
        let fixed = Gen.int(in: 1...5_000_000)
        await propertyCheck(count: 400, input: prices, quantities, basisPoints, fixed) { prices, quantities, basisPoints, fixed in
            let lines = prices.enumerated().map { Self.line("p\($0.offset)", Int64($0.element), quantities[$0.offset]) }
            let subtotal = lines.subtotal(in: Self.usd).minorUnits
            for kind in [DiscountCode.Kind.percentage(basisPoints: basisPoints), .fixed(Self.money(Int64(fixed)))] {
                let code = DiscountCode(code: "SAVE", kind: kind)
                guard case .success(let applied) = code.apply(to: lines, shipping: Self.money(500), at: now, usedInAll: 0, usedByCustomer: 0)
                else {
                    Issue.record("a code for every product applies")
                    return
                }
                let expected: Int64 =
                    switch kind {
                    case .percentage(let points): (subtotal * Int64(points) + 5_000) / 10_000
                    case .fixed(let amount): min(amount.minorUnits, subtotal)
                    case .freeShipping: 0
                    }
                #expect(applied.goods.minorUnits == expected, "the parts add up to the discount")
                for line in lines {
                    let share = applied.lineShares[line.stockKey]?.minorUnits ?? 0
                    #expect(share >= 0 && share <= line.total.minorUnits, "no line below zero: \(share) of \(line.total.minorUnits)")
                }
            }
        }
    }

    @Test func sharesFollowTheWeightsAndTheLargestRemaindersTakeTheLeftOverUnits() {
        #expect(ProportionalShares.split(100, by: [1, 1, 1]) == [34, 33, 33])
        #expect(ProportionalShares.split(10, by: [3, 1]) == [8, 2], "7.5 and 2.5: the tie goes to the earlier line")
        #expect(ProportionalShares.split(0, by: [5, 5]) == [0, 0])
        #expect(ProportionalShares.split(7, by: [0, 0]) == [0, 0])
        let big = Money.maximumMinorUnits
        #expect(ProportionalShares.split(big, by: [big, big]).reduce(0, +) == big, "no overflow at the bound")
    }

    @Test func eachKindTakesOffWhatItSays() throws {
        let lines = [Self.line("mug", 1_250, 2), Self.line("tee", 2_000, 1, sku: "tee-m")]
        func applied(_ code: DiscountCode) throws -> AppliedDiscount {
            try code.apply(to: lines, shipping: Self.money(799), at: now, usedInAll: 0, usedByCustomer: 0).get()
        }
        let tenPercent = try applied(DiscountCode(code: "TEN", kind: .percentage(basisPoints: 1_000)))
        #expect(tenPercent.goods == Self.money(450) && tenPercent.shipping == Self.money(0))
        #expect(tenPercent.lineShares == ["mug": Self.money(250), "tee-m": Self.money(200)])
        let fiver = try applied(DiscountCode(code: "FIVE", kind: .fixed(Self.money(500)), onlyFor: ["tee-m"]))
        #expect(fiver.lineShares == ["tee-m": Self.money(500)], "only the variant named")
        let ship = try applied(DiscountCode(code: "SHIP", kind: .freeShipping))
        #expect(ship.total == Self.money(799) && ship.goods == Self.money(0))
        let tooMuch = try applied(DiscountCode(code: "BIG", kind: .fixed(Self.money(100_000))))
        #expect(tooMuch.goods == Self.money(4_500), "never more than the goods")
    }

    @Test func eachRefusalSaysWhyInOneLine() {
        let lines = [Self.line("mug", 1_250, 1)]
        func refusal(_ code: DiscountCode, usedInAll: Int = 0, usedByCustomer: Int = 0) -> String? {
            guard
                case .failure(let why) = code.apply(to: lines, shipping: Self.money(0), at: now, usedInAll: usedInAll, usedByCustomer: usedByCustomer)
            else { return nil }
            return why.line
        }
        let percent = DiscountCode.Kind.percentage(basisPoints: 500)
        let percentCode = DiscountCode(code: "ALL", kind: percent)
        #expect(refusal(DiscountCode(code: "OLD", kind: percent, endsAt: now)) == "That code has expired.")
        #expect(refusal(DiscountCode(code: "SOON", kind: percent, startsAt: now.addingTimeInterval(1))) == "That code does not hold yet.")
        #expect(refusal(DiscountCode(code: "GONE", kind: percent, totalUses: 3), usedInAll: 3) == "That code has been used up.")
        #expect(refusal(DiscountCode(code: "ONCE", kind: percent, usesPerCustomer: 1), usedByCustomer: 1) == "You have used that code already.")
        #expect(
            refusal(DiscountCode(code: "MIN", kind: percent, minimumSubtotal: Self.money(2_000))) == "That code needs $20.00 of goods it applies to.")
        #expect(refusal(DiscountCode(code: "TEE", kind: percent, onlyFor: ["tee"])) == "That code is for other products.")
        #expect(refusal(DiscountCode(code: "HUSH", kind: percent, isPaused: true)) == DiscountRefusal.unknown.line, "paused reads as unknown")
        // Once per customer is void for guests, each tab a new one: they are asked to sign in; an account may use it.
        let once = DiscountCode(code: "ONCE", kind: percent, usesPerCustomer: 1)
        for guest in ["ssh-guest:g1", "web-guest:g2"] {
            guard case .failure(let why) = once.apply(to: lines, shipping: Self.money(0), at: now, usedInAll: 0, usedByCustomer: 0, customer: guest)
            else {
                Issue.record("\(guest) used a once-per-customer code")
                continue
            }
            #expect(why.line == "That code is once per customer: sign in to use it.")
        }
        #expect(
            (try? once.apply(to: lines, shipping: Self.money(0), at: now, usedInAll: 0, usedByCustomer: 0, customer: "acct_0123456789abcdef").get())
                != nil)
        #expect(
            (try? percentCode.apply(to: lines, shipping: Self.money(0), at: now, usedInAll: 0, usedByCustomer: 0, customer: "web-guest:g3").get())
                != nil, "a code for all takes guests")
        #expect(DiscountCode.normalized("  launch-10 ") == "LAUNCH-10" && DiscountCode.normalized("no spaces") == nil)
    }
}
