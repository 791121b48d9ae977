import Foundation
import ShopModels
import ShopPorts
import Testing

/// Stripe's decline codes are kept, and the ones a bank says are final stop a subscription's off-session tries: the
/// subscriber is asked for another card or to pay on the sheet, never charged off-session again.
@Suite("Hard declines")
struct HardDeclineTests {
    @Test(arguments: [
        ("do_not_try_again", DeclineReason.doNotTryAgain, true), ("lost_card", .lostCard, true), ("stolen_card", .stolenCard, true),
        ("pickup_card", .pickupCard, true), ("revocation_of_authorization", .revocationOfAuthorization, true),
        ("stop_payment_order", .stopPaymentOrder, true), ("expired_card", .expiredCard, true),
        ("authentication_required", .authenticationRequired, true), ("insufficient_funds", .insufficientFunds, false),
        ("do_not_honor", .doNotHonor, false), ("try_again_later", .tryAgainLater, false), ("card_velocity_exceeded", .cardVelocityExceeded, false),
    ])
    func stripesCodeIsKeptAndTheFinalOnesAreHard(code: String, reason: DeclineReason, hard: Bool) {
        #expect(DeclineReason(stripeCode: code) == reason)
        #expect(reason.isHard == hard)
        #expect(DeclineReason(rawValue: reason.rawValue) == reason, "kept in the ledger by its name")
    }

    @Test func aStoppedRenewalWaitsForItsSubscriber() {
        let now = Date(timeIntervalSince1970: 1_795_339_800)
        let subscription = Subscription(
            id: "s", customerID: "c", productID: "coffee-beans", quantity: 1, intervalWeeks: 2, renewsAt: now, cardID: "card",
            cardDescription: "Visa ••0002",
            shipTo: Contact(
                id: "a", name: "A", email: "a@example.com", phone: "", address: PostalAddress(street: "", city: "", postalCode: "", countryCode: "US")
            ),
            shippingMethodID: "standard")
        let stopped = subscription.after(.stopped(DeclineReason.doNotTryAgain.message), at: now)
        #expect(stopped.status == .pastDue && stopped.failedAttempts == 1 && stopped.dueAt == RenewalSchedule.waitsForSubscriber)
        #expect(stopped.step(at: now.addingTimeInterval(365 * RenewalSchedule.day)) == .notDue, "no worker tries it again")
        #expect(stopped.standing == "Past due: Visa ••0002 cannot be charged again without you: add another card, or pay the missed delivery.")
        // Another card makes it due at once.
        let changed = try? stopped.applying(.card(id: "card-2", description: "Visa ••4242"), at: now, offered: [2]).get()
        #expect(changed?.dueAt == now)
    }

    /// A renewal that fails for what is not the card's doing is said as what it is, never as a decline of the card.
    @Test func aFailureThatIsNotTheCardsIsNeverBlamedOnIt() {
        let now = Date(timeIntervalSince1970: 1_795_339_800)
        let subscription = Subscription(
            id: "s", customerID: "c", productID: "coffee-beans", quantity: 1, intervalWeeks: 2, renewsAt: now, cardID: "card",
            cardDescription: "Visa ••4242",
            shipTo: Contact(
                id: "a", name: "A", email: "a@example.com", phone: "", address: PostalAddress(street: "", city: "", postalCode: "", countryCode: "US")
            ),
            shippingMethodID: "standard")
        let failed = subscription.after(.undeliverable("Compile-Time Coffee is sold out."), at: now)
        #expect(failed.status == .pastDue && failed.dueAt == now.addingTimeInterval(RenewalSchedule.day), "tried again as a decline is")
        #expect(failed.standing.hasPrefix("Past due: Compile-Time Coffee is sold out. Nothing was charged"), "\(failed.standing)")
        #expect(!failed.standing.contains("Visa"), "the card is not blamed")
        let declined = failed.after(.failed(DeclineReason.insufficientFunds.message), at: now)
        #expect(declined.lastFailure == nil && declined.standing.contains("the last charge to Visa ••4242 failed"))
        #expect(failed.after(.paid(orderNumber: "SF-000002"), at: now).lastFailure == nil)
    }
}
