import Foundation
import ShopModels
import Testing

/// The order's state machine: what may follow what, refunds within what was paid, and a status rebuilt from events.
@Suite("Order lifecycle")
struct OrderLifecycleTests {
    static let total = Money(minorUnits: 6_928, currency: .usd)
    static let parcel = Shipment(carrier: "UPS", trackingNumber: "1Z999AA10123456784", trackingURL: "https://ups.example/track/1Z999AA10123456784")

    static func paid() throws -> OrderLifecycle {
        try OrderLifecycle(placedFor: total).applying(.charged)
    }

    @Test func aPaidOrderShipsIsDeliveredAndKeepsItsParcel() throws {
        let shipped = try Self.paid().applying(.shipped(Self.parcel))
        #expect(shipped.status == .shipped && shipped.shipment == Self.parcel)
        let delivered = try shipped.applying(.delivered)
        #expect(delivered.status == .delivered)
        #expect(throws: OrderChangeRefusal.notAllowed(.delivered, after: .delivered)) { try delivered.applying(.delivered) }
        #expect(throws: OrderChangeRefusal.notAllowed(.shipped(Self.parcel), after: .delivered)) { try delivered.applying(.shipped(Self.parcel)) }
    }

    @Test func refundsStayWithinWhatWasPaidAndAFullOneIsFinal() throws {
        let part = try Self.paid().applying(.refunded(Money(minorUnits: 2_000, currency: .usd), reason: "one line"))
        #expect(part.status == .partiallyRefunded && part.refundable == Money(minorUnits: 4_928, currency: .usd))
        let tooMuch = Money(minorUnits: 5_000, currency: .usd)
        #expect(throws: OrderChangeRefusal.refundAboveRemaining(asked: tooMuch, remaining: Money(minorUnits: 4_928, currency: .usd))) {
            try part.applying(.refunded(tooMuch, reason: "too much"))
        }
        let full = try part.applying(.refunded(Money(minorUnits: 4_928, currency: .usd), reason: "the rest"))
        #expect(full.status == .refunded && full.refundable.minorUnits == 0)
        let again = OrderChange.refunded(Money(minorUnits: 1, currency: .usd), reason: "twice")
        #expect(throws: OrderChangeRefusal.notAllowed(again, after: .refunded)) { try full.applying(again) }
        #expect("\(OrderChangeRefusal.notAllowed(again, after: .refunded))" == "The order is refunded: it was refunded in full already.")
        #expect(throws: OrderChangeRefusal.refundNotPositive(.zero(.usd))) { try Self.paid().applying(.refunded(.zero(.usd), reason: "")) }
        #expect(throws: OrderChangeRefusal.refundNotPositive(Money(minorUnits: 100, currency: .eur))) {
            try Self.paid().applying(.refunded(Money(minorUnits: 100, currency: .eur), reason: ""))
        }
    }

    @Test func cancelingIsForAPaidOrderThatHasNotShippedAndRefundsItAll() throws {
        let canceled = try Self.paid().applying(.canceled)
        #expect(canceled.status == .canceled && canceled.refunded == Self.total)
        let shipped = try Self.paid().applying(.shipped(Self.parcel))
        #expect(throws: OrderChangeRefusal.notAllowed(.canceled, after: .shipped)) { try shipped.applying(.canceled) }
        #expect(
            "\(OrderChangeRefusal.notAllowed(.canceled, after: .shipped))"
                == "The order is shipped: a shipped order cannot be canceled; refund it instead.")
        #expect(throws: OrderChangeRefusal.notAllowed(.shipped(Self.parcel), after: .canceled)) { try canceled.applying(.shipped(Self.parcel)) }
    }

    @Test func aChargeSettlesOnceAndOnlyAPaidOrderMovesOn() throws {
        let placed = OrderLifecycle(placedFor: Self.total)
        #expect(try placed.applying(.unanswered).applying(.charged).status == .paid)
        #expect(try placed.applying(.voided).status == .voided)
        let declined = try placed.applying(.declined(reason: "Your card was declined."))
        for change in [OrderChange.charged, .shipped(Self.parcel), .canceled, .refunded(Self.total, reason: "")] {
            #expect(throws: OrderChangeRefusal.notAllowed(change, after: .declined)) { try declined.applying(change) }
        }
        #expect(throws: OrderChangeRefusal.notAllowed(.shipped(Self.parcel), after: .charging)) { try placed.applying(.shipped(Self.parcel)) }
    }

    @Test func theStatusIsTheOneTheEventsGive() throws {
        let at = Date(timeIntervalSince1970: 1_764_000_000)
        let events = [
            OrderEvent(at: at, actor: .shopper("ssh:SHA256:abc"), change: .placed(total: Self.total)),
            OrderEvent(at: at, actor: .provider, change: .charged),
            OrderEvent(at: at, actor: .merchant("ops"), change: .refunded(Money(minorUnits: 928, currency: .usd), reason: "damaged")),
            OrderEvent(at: at, actor: .merchant("ops"), change: .shipped(Self.parcel)),
            OrderEvent(at: at, actor: .system, change: .delivered),
        ]
        let rebuilt = try OrderLifecycle.rebuilt(from: events)
        #expect(rebuilt.status == .delivered && rebuilt.refunded == Money(minorUnits: 928, currency: .usd) && rebuilt.shipment == Self.parcel)
        #expect(throws: OrderChangeRefusal.noPlacement) { try OrderLifecycle.rebuilt(from: Array(events.dropFirst())) }
    }
}
