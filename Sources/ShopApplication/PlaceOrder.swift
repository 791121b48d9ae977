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

    /// The order `lines` make for `customerID` at `shop`'s prices: the subtotal, the shipping and the tax.
    public static func draft(lines: [CartLine], shipping: ShippingMethod, contact: Contact, customerID: String, shop: ShopProfile) -> OrderDraft {
        OrderDraft(
            lines: lines, totals: Cart(currency: shop.currency, lines: lines).totals(shipping: shipping, tax: shop.tax), shippingMethod: shipping,
            shippingContact: contact, customerID: customerID
        )
    }

    /// One try: a token, unless `kept` holds the one an earlier try made (the token is returned, to keep), then the
    /// backend's charge under `key`.
    public func charge(_ draft: OrderDraft, paying payment: Payment, key: String, token kept: PaymentToken?) async -> (Step, PaymentToken?) {
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
