import ShopModels
import ShopPorts

/// The charge in flight: what it charges, its idempotency key and the token it was made with.
///
/// Paying again for the same charge reuses the key and the token, so a charge that went through unanswered is found
/// under its key instead of looking like a different charge.
public struct ChargeAttempt: Equatable, Sendable {
    /// What is charged (card, total, lines, shipping, address): a Pay of anything else is a new charge.
    var fingerprint: String
    var key: String
    var token: PaymentToken?
}

extension PlaceOrder {
    /// Number of times a timed-out charge is retried with the same idempotency key.
    static let timeoutRetries = 2
    /// The longest wait between two looks at a payment the bank is checking.
    static let slowestBankCheckLook: Duration = .seconds(5)
    /// How many more times an unanswered charge is asked about, 1, 2, 4 and 8 s apart, before the question goes back
    /// to the shopper (the order stays being checked, and the next Pay settles it first).
    static let chargeLooks = 4

    /// What placing tells a waiting shopper.
    public enum Progress: Equatable, Sendable {
        /// The card's bank checks the payment (3-D Secure) at this address.
        case bankCheck(String)
        /// A charge went unanswered: the shop asks the provider, backing off, whether it went through.
        case checking
    }

    /// Why an order placed with a shopper waiting was not paid.
    public enum NotPaid: Error, Equatable, Sendable {
        /// The provider made no token: nothing was charged.
        case token(PaymentProviderError)
        /// The backend's answer; `.timedOut` when the shop does not know yet (the order stays being checked).
        case refused(MerchantBackendError)
        /// The shopper left the bank's check before it passed.
        case bankCheckLeft
    }

    /// Places `draft` for `payment` while a shopper waits, as the payment sheet does; returns the confirmation or why
    /// not, and the attempt to keep for the next Pay (nil where the next Pay is a new charge). Between looks it
    /// waits with `wait`, which answers true when the shopper stopped waiting: a wait ends, never a charge in flight.
    ///
    /// Order of calls: the attempt (the previous one while the same charge is retried, else a new key) → `charge`
    /// under its key → on no answer, the same again at once up to `timeoutRetries` times, then backing off under
    /// `.checking` until an answer comes, `chargeLooks` run out or the shopper stops → on the bank's check, its page
    /// told (`.bankCheck`) and the same key asked again, backing off, until the check ends or the shopper leaves it
    /// (`abandonCharge`, and the same key once more if it passed meanwhile).
    public func place(
        _ draft: OrderDraft, paying payment: Payment, after previous: ChargeAttempt?, ids: IDGenerator,
        isolation: isolated (any Actor)? = #isolation, progress: (Progress) -> Void, wait: (Duration) async -> Bool
    ) async -> (Result<OrderConfirmation, NotPaid>, keeping: ChargeAttempt?) {
        var attempt = Self.attempt(for: draft, method: payment.method, after: previous, ids: ids)
        var timeouts = 0
        var shownCheck: String?
        var bankWait = Duration.seconds(1)
        var checkingWait = Duration.seconds(1)
        while true {
            let (step, token) = await charge(draft, paying: payment, key: attempt.key, token: attempt.token)
            attempt.token = token
            switch step {
            case .paid(let confirmation): return (.success(confirmation), nil)
            case .tokenRefused(let error): return (.failure(.token(error)), attempt)
            // A definite answer: the next attempt is a new charge with a new key.
            case .refused(let error): return (.failure(.refused(error)), nil)
            case .noAnswer:
                timeouts += 1
                guard timeouts > Self.timeoutRetries else { continue }
                // Nothing invites a new payment until the provider says: the same key is asked again, backing off.
                if timeouts == Self.timeoutRetries + 1 { progress(.checking) }
                let hasAskedEnough = timeouts > Self.timeoutRetries + Self.chargeLooks
                if hasAskedEnough { return (.failure(.refused(.timedOut)), attempt) }
                if await wait(checkingWait) { return (.failure(.refused(.timedOut)), attempt) }
                checkingWait *= 2
            case .bankCheck(let url):
                if shownCheck != url {
                    progress(.bankCheck(url))
                    shownCheck = url
                }
                if await wait(bankWait) { return await leaveBankCheck(attempt, draft, payment) }
                bankWait = min(bankWait * 2, Self.slowestBankCheckLook)
            }
        }
    }

    /// The shopper left the bank's check: the charge is given up, unless it went through first.
    private func leaveBankCheck(_ attempt: ChargeAttempt, _ draft: OrderDraft, _ payment: Payment) async -> (
        Result<OrderConfirmation, NotPaid>, keeping: ChargeAttempt?
    ) {
        do throws(MerchantBackendError) {
            guard try await backend.abandonCharge(idempotencyKey: attempt.key) == .paid, let token = attempt.token else {
                return (.failure(.bankCheckLeft), nil)
            }
            // The check passed as the shopper left it: the order is paid, and the same key says so.
            let (step, _) = await charge(draft, paying: payment, key: attempt.key, token: token)
            guard case .paid(let confirmation) = step else { throw .timedOut }
            return (.success(confirmation), nil)
        } catch {
            // Not known: the order stays open, shown as being checked, and the next Pay settles it.
            return (.failure(.refused(.timedOut)), attempt)
        }
    }

    /// The attempt for this charge: the previous one while the same charge is retried, a new key for anything else.
    static func attempt(for draft: OrderDraft, method: PaymentMethod, after previous: ChargeAttempt?, ids: IDGenerator) -> ChargeAttempt {
        let lines = draft.lines.map { "\($0.productID)x\($0.quantity)" }
        let fingerprint =
            "\(method.id)|\(draft.totals.total.minorUnits)|\(lines)|\(draft.shippingMethod.id)|\(draft.shippingContact.address.singleLine)"
        if let previous, previous.fingerprint == fingerprint { return previous }
        return ChargeAttempt(fingerprint: fingerprint, key: ids.next(), token: nil)
    }
}
