import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

extension APIOrderDesk.Request {
    /// What `POST /v1/orders` and its preview ask for.
    init(_ body: Components.Schemas.NewOrder) {
        self.init(
            addressID: body.addressId, cardID: body.cardId, shippingMethod: body.shippingMethod, discountCode: body.discountCode,
            subscribeEveryWeeks: body.subscribeEveryWeeks)
    }
}

extension APIOrderDesk {
    /// What `place` would buy with `request` now, as the payment sheet lists it: the same draft, checked the same way
    /// (the same 409s and 422s), and nothing charged, reserved or claimed.
    func preview(_ request: Request, owner: String) async throws -> Components.Schemas.OrderPreview {
        let (order, card) = try await draft(request, owner: owner)
        let today = commerce.now()
        let words = Translation.forLocale(APICaller.locale)
        let totals = order.totals
        return .init(
            lines: APIModels.lines(order.lines, discount: order.discount), itemCount: order.lines.reduce(0) { $0 + $1.quantity },
            subscription: order.subscription.map { plan in
                .init(
                    everyWeeks: plan.everyWeeks, firstRenewal: today.addingTimeInterval(Double(plan.everyWeeks) * RenewalSchedule.week),
                    summary: words.string(RenewalSchedule.scheduleWords(everyWeeks: plan.everyWeeks, today: today)))
            },
            subtotal: APIModels.money(totals.subtotal), shipping: APIModels.money(totals.shipping), discount: order.discount.map(APIModels.discount),
            tax: APIModels.money(totals.tax), taxDetails: APIModels.taxDetails(order.tax), total: APIModels.money(totals.total),
            payment: card.shortName, shippingMethod: order.shippingMethod.label, shipTo: order.shippingContact.shipToLine,
            receiptTo: order.shippingContact.email)
    }
}
