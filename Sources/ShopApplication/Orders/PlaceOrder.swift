import ShopMetrics
import ShopModels
import ShopPorts

/// Placing an order, the same for every front (the terminal's payment sheet, the HTTP API): the order drafted at the
/// shop's prices, a token from the provider, and the merchant backend's charge under the caller's idempotency key.
///
/// Order of calls: `draft` → `charge`, again under the same key with the token it kept for as long as the answer is
/// "no answer" or "the bank is checking". What a front does between tries (wait and ask again, show the bank's page,
/// answer 202) is the front's own.
public struct PlaceOrder: Sendable {
    public var provider: any PaymentProvider
    public var backend: any MerchantBackend

    public init(provider: any PaymentProvider, backend: any MerchantBackend) {
        self.provider = provider
        self.backend = backend
    }

    /// What one try came to.
    public enum Step: Sendable, Equatable {
        case paid(OrderConfirmation)
        /// The card's bank checks the payment at `url`; a try under the same key says how the check ended.
        case bankCheck(url: String)
        /// No answer: a try under the same key finds the charge if it was made, and never makes a second.
        case noAnswer
        /// The provider made no token: nothing was charged.
        case tokenRefused(PaymentProviderError)
        /// A definite answer other than paid: the next try is a new charge, under a new key.
        case refused(MerchantBackendError)
    }

    /// Why an order cannot be drafted for an address: the shop does not ship there, or not by the method asked for.
    public enum DraftRefusal: Error, Equatable, Sendable {
        /// One line saying where the shop ships.
        case shipsElsewhere(String)
        /// The methods the address's region offers for these lines (none when nothing takes their weight).
        case noSuchMethod(offered: [String])
        /// The discount code does not apply to this order.
        case discount(DiscountRefusal)
        /// The order cannot start a subscription, and why.
        case subscription(String)

        public var message: String {
            switch self {
            case .shipsElsewhere(let line): line
            case .noSuchMethod(let offered) where offered.isEmpty: "No shipping method takes an order this heavy to that address."
            case .noSuchMethod(let offered): "Choose one of the shipping methods offered there: \(offered.joined(separator: ", "))."
            case .discount(let refusal): refusal.line
            case .subscription(let why): why
            }
        }
    }

    /// The order `lines` make for `customerID` at `shop`'s prices, shipped to `contact` by the method `shippingMethodID`
    /// (the region's first when nil): the method priced for the lines and the tax of the address's region, worked out
    /// here whichever front asks, so no front's figures are taken on trust. A `discount` code is applied to the lines
    /// and that shipping here too; whether it holds today and has uses left is decided as the order is begun, in the
    /// transaction that holds its use. A `subscription` is started by the order once it is paid.
    public static func draft(
        lines: [CartLine], shippingMethodID: String?, contact: Contact, customerID: String, shop: ShopProfile, discount: DiscountCode? = nil,
        offSession: Bool = false, subscription: SubscriptionStart? = nil, renews: MissedRenewal? = nil, exchange: OrderExchange? = nil
    ) throws(DraftRefusal) -> OrderDraft {
        // A code of a fixed amount in the shop's own currency takes its worth in the market's.
        let discount = discount?.priced(in: shop.currency, exchange: exchange)
        if let subscription {
            guard lines.count == 1 else { throw .subscription("A subscription is to one product: subscribe to each on its own page.") }
            guard RenewalSchedule.intervals.contains(subscription.everyWeeks) else {
                throw .subscription(
                    "A subscription renews every \(RenewalSchedule.intervals.lowerBound) to \(RenewalSchedule.intervals.upperBound) weeks.")
            }
        }
        let cart = Cart(currency: shop.currency, lines: lines)
        guard let quote = shop.quote(for: cart, to: contact.address) else {
            throw .shipsElsewhere(shop.shippingRefusal(address: contact.address)?.description ?? "")
        }
        guard let method = shippingMethodID.map({ id in quote.methods.first { $0.id == id } }) ?? quote.methods.first else {
            throw .noSuchMethod(offered: quote.methods.map(\.id))
        }
        var applied: AppliedDiscount?
        if let discount {
            switch discount.amounts(on: lines, shipping: method.cost(forSubtotal: cart.subtotal)) {
            case .success(let amounts): applied = amounts
            case .failure(let refusal): throw .discount(refusal)
            }
        }
        let totals = cart.totals(shipping: method, tax: quote.tax, discount: applied)
        // A code that leaves nothing to pay makes an order no card can pay: it is refused here, on every front.
        if applied != nil, totals.total.minorUnits <= 0 { throw .discount(.leavesTooLittle(total: totals.total, why: nil)) }
        var draft = OrderDraft(
            lines: lines, totals: totals, shippingMethod: method, shippingContact: contact, customerID: customerID, tax: quote.tax,
            discount: applied)
        draft.offSession = offSession
        draft.subscription = subscription
        draft.renews = renews
        draft.exchange = exchange.flatMap { $0.currency == shop.currency ? $0 : nil }
        return draft
    }

    /// One try: a token, unless `kept` holds the one an earlier try made (the token is returned, to keep), then the
    /// backend's charge under `key`.
    public func charge(_ draft: OrderDraft, paying payment: Payment, key: String, token kept: PaymentToken?) async -> (Step, PaymentToken?) {
        let (step, token) = await chargeOnce(draft, paying: payment, key: key, token: kept)
        ShopMetrics.count(ShopMetrics.orders, [("front", ShopMetrics.front), ("outcome", step.outcome)])
        return (step, token)
    }

    private func chargeOnce(_ draft: OrderDraft, paying payment: Payment, key: String, token kept: PaymentToken?) async -> (Step, PaymentToken?) {
        let token: PaymentToken
        if let kept {
            token = kept
        } else {
            do {
                token = try await provider.createToken(for: payment)
            } catch {
                return (.tokenRefused(error), nil)
            }
        }
        do {
            return (.paid(try await backend.processPayment(token: token, order: draft, idempotencyKey: key)), token)
        } catch .timedOut {
            return (.noAnswer, token)
        } catch .authenticationRequired(let url) {
            return (.bankCheck(url: url), token)
        } catch {
            return (.refused(error), token)
        }
    }
}

extension PlaceOrder.Step {
    /// The step's outcome as the orders metric labels it.
    var outcome: String {
        switch self {
        case .paid: "paid"
        case .bankCheck: "bank_check"
        case .noAnswer: "no_answer"
        case .tokenRefused: "token_refused"
        case .refused: "refused"
        }
    }
}
