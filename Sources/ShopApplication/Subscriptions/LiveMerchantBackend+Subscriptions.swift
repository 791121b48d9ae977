import Foundation
import ShopModels
import ShopPorts

extension LiveMerchantBackend {
    /// The id of the subscription order `number` starts: the same however often the order is asked for, so it is
    /// made once.
    public static func subscriptionID(startedBy number: String) -> String { "sub_\(number)" }

    /// What a paid `order` does to subscriptions: starts the one it starts, or brings back the past-due one whose
    /// missed renewal it paid.
    func subscriptionsAfterPaying(_ draft: OrderDraft, order: Order, card: PaymentMethod) async {
        await startSubscription(draft, order: order, card: card)
        await settleMissedRenewal(draft, order: order, card: card)
    }

    /// The past-due subscription whose renewal `order` paid, its subscriber present: the period is renewed, the card
    /// paid with is the one charged from now on, and it is active again. Only while it still waits for that period.
    func settleMissedRenewal(_ draft: OrderDraft, order: Order, card: PaymentMethod) async {
        guard let missed = draft.renews, let store = subscriptions else { return }
        let now = dates.now()
        let event = SubscriptionEvent(
            at: now, actor: "shopper:\(draft.customerID)", kind: "renewed",
            detail: "period \(missed.period): order \(order.number), paid by the subscriber")
        _ = try? await store.update(missed.subscriptionID, worker: nil, event: event) { current in
            guard current.customerID == draft.customerID, current.period == missed.period, current.status == .pastDue else { return nil }
            var next = current.after(.paid(orderNumber: order.number), at: now)
            next.cardID = card.id
            next.cardDescription = card.shortName
            return next
        }
    }

    /// Makes the subscription a paid `order` starts, when its draft starts one and it is not made yet: its line every
    /// interval to the same address and by the same method, charged to `card`, first renewed one interval after the
    /// order. The payment stands whatever happens here: a store that fails leaves it to the order's next ask.
    func startSubscription(_ draft: OrderDraft, order: Order, card: PaymentMethod) async {
        guard let start = draft.subscription, let store = subscriptions, let line = draft.lines.first else { return }
        let id = Self.subscriptionID(startedBy: order.number)
        guard (try? await store.subscription(id: id)) == nil else { return }
        var subscription = Subscription(
            id: id, customerID: draft.customerID, productID: line.productID, variantSKU: line.variant?.sku, quantity: line.quantity,
            intervalWeeks: start.everyWeeks, renewsAt: order.placedAt.addingTimeInterval(Double(start.everyWeeks) * RenewalSchedule.week),
            cardID: card.id, cardDescription: card.shortName, shipTo: draft.shippingContact, shippingMethodID: draft.shippingMethod.id,
            unitPrice: line.unitPrice)
        subscription.language = draft.language
        let event = SubscriptionEvent(
            at: dates.now(), actor: "shopper:\(draft.customerID)", kind: "created",
            detail: "by order \(order.number), every \(RenewalSchedule.every(start.everyWeeks))")
        // Two asks of the same order at once: the second create finds the id taken and changes nothing.
        try? await store.create(subscription, event: event)
    }
}
