import ShopApplication
import ShopLanguages
import ShopModels
import ShopPorts

extension CheckoutFeature {
    /// What Pay needs from the sheet and the shop, taken as the prompt is confirmed.
    struct Pay: Sendable {
        var placing: PlaceOrder
        /// Where today's prices are read before anything is charged.
        var catalog: any CatalogRepository
        var ids: IDGenerator
        var shop: ShopProfile
        var order: CheckoutOrder
        /// The code the sheet applied; whether it still holds is decided as the order is begun.
        var discount: DiscountCode?
        /// The rate of the order's market, kept with the order.
        var exchange: OrderExchange?
        /// The shopper's locale (`de-DE`), kept with the order for its mails.
        var language: String
        var customerID: String
        /// The day a subscription the order starts is first renewed is worked out from these (nil: not told).
        var dates: DateSource?

        /// Checks the lines at today's prices, drafts the order and places it through the application's `PlaceOrder`
        /// (which keeps the key, retries and waits), in words for the shopper.
        ///
        /// Order of calls: `CatalogCheck.lines` (a missed renewal keeps the price told) → `PlaceOrder.draft` →
        /// `PlaceOrder.place`, its progress and waits handed through → the outcome as the sheet tells it.
        @MainActor
        func place(_ payment: Payment, after previous: ChargeAttempt?, progress: (PlaceOrder.Progress) -> Void, wait: (Duration) async -> Bool)
            async -> (CheckoutOutcome, ChargeAttempt?)
        {
            if order.renews == nil {
                do {
                    let verdict = try await CatalogCheck.lines(order.lines, in: catalog)
                    switch verdict {
                    case .unchanged: break
                    case .repriced(let lines, _): return (.repriced(lines: lines, why: verdict.line ?? ""), nil)
                    case .withdrawn: return (.notPaid(.lookup(verdict.line ?? "")), previous)
                    }
                } catch {
                    return (
                        .notPaid(Localized("The shop's prices could not be read just now; nothing was charged. Pay again in a moment.")), previous
                    )
                }
            }
            var draft: OrderDraft
            do {
                draft = try PlaceOrder.draft(
                    lines: order.lines, shippingMethodID: payment.shippingMethod.id, contact: payment.shippingContact, customerID: customerID,
                    shop: shop, discount: discount, subscription: order.subscription.map { SubscriptionStart(everyWeeks: $0.everyWeeks) },
                    renews: order.renews, exchange: exchange)
                draft.language = language
            } catch {
                // The sheet refuses such an address before Pay; a catalog reloaded meanwhile can still change the regions.
                return (.notPaid(.lookup(error.message)), previous)
            }
            let (result, attempt) = await placing.place(draft, paying: payment, after: previous, ids: ids, progress: progress, wait: wait)
            switch result {
            case .success(let confirmation): return (.paid(confirmed(confirmation, draft, payment)), attempt)
            case .failure(.token(let error)): return (.notPaid(CheckoutMessages.message(for: error)), attempt)
            case .failure(.refused(let error)): return (.notPaid(CheckoutMessages.message(for: error)), attempt)
            case .failure(.bankCheckLeft): return (.notPaid(DeclineReason.authenticationCanceled.words), attempt)
            }
        }

        private func confirmed(_ confirmation: OrderConfirmation, _ draft: OrderDraft, _ payment: Payment) -> ConfirmationState {
            ConfirmationState(
                orderNumber: confirmation.orderNumber, total: confirmation.total,
                itemCount: draft.lines.reduce(0) { $0 + $1.quantity },
                paymentDescription: payment.method.shortName,
                shipTo: payment.shippingContact.shipToLine,
                shippingMethodLabel: payment.shippingMethod.label,
                subscription: order.renews.map { _ in Localized("Your subscription is active again, charged to this card · u to see it") }
                    ?? order.subscription.map { plan in
                        let every = RenewalSchedule.everyWords(plan.everyWeeks)
                        guard let dates else { return Localized("Every \(every) · u to change or cancel") }
                        let next = dates.now().addingTimeInterval(Double(plan.everyWeeks) * RenewalSchedule.week)
                        return Localized("Every \(every) · next on \(day: next) · u to change or cancel")
                    }
            )
        }
    }
}
