import ShopModels
import ShopPorts

/// The charge in flight: what it charges, its idempotency key and the token it was made with.
///
/// Paying again for the same charge reuses the key and the token, so a charge that went through
/// unanswered is found under its key instead of looking like a different charge.
public struct ChargeAttempt: Equatable, Sendable {
    var fingerprint: String
    var key: String
    var token: PaymentToken?
}

/// Turns an authorized payment into an order: a token from the provider, then the merchant
/// backend's charge under an idempotency key, retried with the same key when it times out.
struct OrderPlacement: Sendable {
    /// Number of times a timed-out charge is retried with the same idempotency key.
    static let timeoutRetries = 2

    var provider: any PaymentProvider
    var backend: any MerchantBackend
    var ids: IDGenerator
    var shop: ShopProfile
    var order: CheckoutOrder
    var customerID: String

    /// Places the order for `payment`; returns the outcome and the attempt to keep for the next Pay.
    func place(_ payment: Payment, after previous: ChargeAttempt?) async -> (CheckoutOutcome, ChargeAttempt?) {
        let draft = OrderDraft(
            lines: order.lines, totals: CheckoutSheet.totals(lines: order.lines, shipping: payment.shippingMethod, shop),
            shippingMethod: payment.shippingMethod, shippingContact: payment.shippingContact, customerID: customerID
        )
        var attempt = attempt(for: draft, method: payment.method, after: previous)
        let token: PaymentToken
        if let kept = attempt.token {
            token = kept
        } else {
            do {
                token = try await provider.createToken(for: payment)
            } catch {
                return (.notPaid(CheckoutMessages.message(for: error)), attempt)
            }
            attempt.token = token
        }
        for _ in 0...Self.timeoutRetries {
            do {
                let confirmation = try await backend.processPayment(token: token, order: draft, idempotencyKey: attempt.key)
                return (.paid(ConfirmationState(
                    orderNumber: confirmation.orderNumber, total: confirmation.total,
                    itemCount: draft.lines.reduce(0) { $0 + $1.quantity },
                    paymentDescription: payment.method.shortName,
                    shipTo: payment.shippingContact.shipToLine,
                    shippingMethodLabel: payment.shippingMethod.label
                )), nil)
            } catch .timedOut {
                continue
            } catch {
                // A definite answer: the next attempt is a new charge with a new key.
                return (.notPaid(CheckoutMessages.message(for: error)), nil)
            }
        }
        return (.notPaid(CheckoutMessages.message(for: MerchantBackendError.timedOut)), attempt)
    }

    /// The attempt for this charge: the previous one while the same charge is retried, a new key for anything else.
    private func attempt(for draft: OrderDraft, method: PaymentMethod, after previous: ChargeAttempt?) -> ChargeAttempt {
        let fingerprint = "\(method.id)|\(draft.totals.total.minorUnits)|\(draft.lines.map { "\($0.productID)x\($0.quantity)" })|\(draft.shippingMethod.id)"
        if let previous, previous.fingerprint == fingerprint { return previous }
        return ChargeAttempt(fingerprint: fingerprint, key: ids.next(), token: nil)
    }
}
