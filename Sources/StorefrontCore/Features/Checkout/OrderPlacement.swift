import ShopApplication
import ShopModels
import ShopPorts

/// The charge in flight: what it charges, its idempotency key and the token it was made with.
///
/// Paying again for the same charge reuses the key and the token, so a charge that went through
/// unanswered is found under its key instead of looking like a different charge.
public struct ChargeAttempt: Equatable, Sendable {
    /// What is charged (card, total, lines, shipping): a Pay of anything else is a new charge.
    var fingerprint: String
    var key: String
    var token: PaymentToken?
}

/// What placing an order tells the sheet while it waits.
enum PlacementProgress: Equatable {
    /// The card's bank checks the payment (3-D Secure) at this address.
    case bankCheck(String)
    /// A charge went unanswered: the shop asks the provider, backing off, whether it went through.
    case checking
}

/// Turns an authorized payment into an order through the application's `PlaceOrder` (the one the HTTP API places its
/// orders through): retried under the same key when it times out, and asked again under the same key while the
/// card's bank checks it.
struct OrderPlacement: Sendable {
    /// Number of times a timed-out charge is retried with the same idempotency key.
    static let timeoutRetries = 2
    /// The longest wait between two looks at a payment the bank is checking.
    static let slowestBankCheckLook: Duration = .seconds(5)
    /// How many more times an unanswered charge is asked about, 1, 2, 4 and 8 s apart, before the sheet gives the
    /// question back to the shopper (the order stays being checked, and the next Pay settles it first).
    static let chargeLooks = 4

    var provider: any PaymentProvider
    var backend: any MerchantBackend
    /// Where today's prices are read before anything is charged.
    var catalog: any CatalogRepository
    var ids: IDGenerator
    var shop: ShopProfile
    var order: CheckoutOrder
    /// The code the sheet applied; whether it still holds is decided as the order is begun.
    var discount: DiscountCode?
    var customerID: String
    var clock: any Clock<Duration>
    /// The day a subscription the order starts is first renewed is worked out from these (nil: not told).
    var dates: DateSource?

    /// Places the order for `payment`; returns the outcome and the attempt to keep for the next Pay. Between looks
    /// it waits on `stops`, so Esc ends a wait, never a charge in flight.
    ///
    /// Order of calls: a token (kept for a retry) → `processPayment` under the attempt's key → on a time-out, the
    /// same again at once up to `timeoutRetries` times, then backing off while the sheet says the shop is checking,
    /// until an answer comes or the shopper stops waiting → on the bank's check, its page shown and the same key
    /// asked again, backing off, until the check ends or the shopper leaves it (`abandonCharge`).
    @MainActor
    func place(_ payment: Payment, after previous: ChargeAttempt?, progress: (PlacementProgress) -> Void, stops: StopRequests) async -> (
        CheckoutOutcome, ChargeAttempt?
    ) {
        // The catalog's prices are charged, not the ones the cart was filled at; a missed renewal keeps the price told.
        if order.renews == nil {
            do {
                let verdict = try await CatalogCheck.lines(order.lines, in: catalog)
                switch verdict {
                case .unchanged: break
                case .repriced(let lines, _): return (.repriced(lines: lines, why: verdict.line ?? ""), nil)
                case .withdrawn: return (.notPaid(verdict.line ?? ""), previous)
                }
            } catch {
                return (.notPaid("The shop's prices could not be read just now; nothing was charged. Pay again in a moment."), previous)
            }
        }
        let draft: OrderDraft
        do {
            draft = try PlaceOrder.draft(
                lines: order.lines, shippingMethodID: payment.shippingMethod.id, contact: payment.shippingContact, customerID: customerID,
                shop: shop, discount: discount, subscription: order.subscription.map { SubscriptionStart(everyWeeks: $0.everyWeeks) },
                renews: order.renews)
        } catch {
            // The sheet refuses such an address before Pay; a catalog reloaded meanwhile can still change the regions.
            return (.notPaid(error.message), previous)
        }
        var attempt = attempt(for: draft, method: payment.method, after: previous)
        let placing = PlaceOrder(provider: provider, backend: backend)
        var timeouts = 0
        var shownCheck: String?
        var wait = Duration.seconds(1)
        var checkingWait = Duration.seconds(1)
        while true {
            let (step, token) = await placing.charge(draft, paying: payment, key: attempt.key, token: attempt.token)
            attempt.token = token
            switch step {
            case .paid(let confirmation):
                return (.paid(confirmed(confirmation, draft, payment)), nil)
            case .tokenRefused(let error):
                return (.notPaid(CheckoutMessages.message(for: error)), attempt)
            case .noAnswer:
                timeouts += 1
                guard timeouts > Self.timeoutRetries else { continue }
                // Nothing invites a new payment until the provider says: the same key is asked again, backing off.
                if timeouts == Self.timeoutRetries + 1 { progress(.checking) }
                let hasAskedEnough = timeouts > Self.timeoutRetries + Self.chargeLooks
                if hasAskedEnough { return (.notPaid(CheckoutMessages.message(for: MerchantBackendError.timedOut)), attempt) }
                if await stops.wait(checkingWait, on: clock) {
                    return (.notPaid(CheckoutMessages.message(for: MerchantBackendError.timedOut)), attempt)
                }
                checkingWait *= 2
            case .bankCheck(let url):
                if shownCheck != url {
                    progress(.bankCheck(url))
                    shownCheck = url
                }
                if await stops.wait(wait, on: clock) { return await leaveBankCheck(attempt, draft, payment) }
                wait = min(wait * 2, Self.slowestBankCheckLook)
            case .refused(let error):
                // A definite answer: the next attempt is a new charge with a new key.
                return (.notPaid(CheckoutMessages.message(for: error)), nil)
            }
        }
    }

    /// The shopper left the bank's check: the charge is given up, unless it went through first.
    @MainActor
    private func leaveBankCheck(_ attempt: ChargeAttempt, _ draft: OrderDraft, _ payment: Payment) async -> (CheckoutOutcome, ChargeAttempt?) {
        do throws(MerchantBackendError) {
            guard try await backend.abandonCharge(idempotencyKey: attempt.key) == .paid, let token = attempt.token else {
                return (.notPaid(DeclineReason.authenticationCanceled.message), nil)
            }
            // The check passed as the shopper left it: the order is paid, and the same key says so.
            let (step, _) = await PlaceOrder(provider: provider, backend: backend).charge(draft, paying: payment, key: attempt.key, token: token)
            guard case .paid(let confirmation) = step else { throw .timedOut }
            return (.paid(confirmed(confirmation, draft, payment)), nil)
        } catch {
            // Not known: the order stays open, shown as being checked, and the next Pay settles it.
            return (.notPaid(CheckoutMessages.message(for: MerchantBackendError.timedOut)), attempt)
        }
    }

    private func confirmed(_ confirmation: OrderConfirmation, _ draft: OrderDraft, _ payment: Payment) -> ConfirmationState {
        ConfirmationState(
            orderNumber: confirmation.orderNumber, total: confirmation.total,
            itemCount: draft.lines.reduce(0) { $0 + $1.quantity },
            paymentDescription: payment.method.shortName,
            shipTo: payment.shippingContact.shipToLine,
            shippingMethodLabel: payment.shippingMethod.label,
            subscription: order.renews.map { _ in "Your subscription is active again, charged to this card · u to see it" }
                ?? order.subscription.map { plan in
                    let next =
                        dates.map {
                            " · next on " + UTCTime($0.now().addingTimeInterval(Double(plan.everyWeeks) * RenewalSchedule.week)).calendarDate
                        }
                        ?? ""
                    return "Every \(RenewalSchedule.every(plan.everyWeeks))\(next) · u to change or cancel"
                }
        )
    }

    /// The attempt for this charge: the previous one while the same charge is retried, a new key for anything else.
    private func attempt(for draft: OrderDraft, method: PaymentMethod, after previous: ChargeAttempt?) -> ChargeAttempt {
        let fingerprint =
            "\(method.id)|\(draft.totals.total.minorUnits)|\(draft.lines.map { "\($0.productID)x\($0.quantity)" })|\(draft.shippingMethod.id)|\(draft.shippingContact.address.singleLine)"
        if let previous, previous.fingerprint == fingerprint { return previous }
        return ChargeAttempt(fingerprint: fingerprint, key: ids.next(), token: nil)
    }
}
