import ShopApplication
import ShopLanguages
import ShopModels
import ShopPorts

/// What is being bought: the lines, whether paying empties the cart (Buy now on a product does not), and the
/// subscription paying starts, if it starts one.
public struct CheckoutOrder: Equatable, Sendable {
    public var lines: [CartLine]
    public var clearsCartOnSuccess: Bool
    public var subscription: SubscriptionPlan?
    /// The past-due renewal paying brings back, for a subscriber paying it on the sheet.
    public var renews: MissedRenewal?
    public init(lines: [CartLine], clearsCartOnSuccess: Bool, subscription: SubscriptionPlan? = nil, renews: MissedRenewal? = nil) {
        self.renews = renews
        self.lines = lines
        self.clearsCartOnSuccess = clearsCartOnSuccess
        self.subscription = subscription
    }
}

/// The subscription a checkout starts: the interval chosen on the sheet, and those its product is sold at.
public struct SubscriptionPlan: Equatable, Sendable {
    public var everyWeeks: Int
    public var offered: [Int]
    public init(everyWeeks: Int, offered: [Int]) {
        self.everyWeeks = everyWeeks
        self.offered = offered
    }
}

/// One payment sheet's checkout: what it buys, what the sheet offers, the shopper's choices, and the charge being paid.
public struct Checkout: Equatable, Sendable {
    public var order: CheckoutOrder
    /// Straight to the authorization prompt once the sheet is up (One-Tap).
    public var oneTap: Bool
    /// What the sheet offers; empty until it is presented.
    public var options = PaymentSheetOptions(paymentMethods: [], contacts: [], selectedPaymentMethod: nil, selectedContact: nil)
    public var card: PaymentMethod?
    public var shipTo: Contact?
    public var contact: Contact?
    public var shippingMethod: ShippingMethod
    /// The methods and tax of the ship-to address's region, priced for the order (the home region's until an address is
    /// chosen); kept from the last address the shop ships to.
    public var quote: ShippingQuote
    /// What the screen under the sheet said when checkout began; closing the sheet without authorizing restores it.
    public var noticeBeforeCheckout: Notice?
    /// Set once the shopper confirms a payment on this sheet; decides what closing the sheet leaves behind.
    public var didAuthorize = false
    /// The charge the last Pay left unfinished (unanswered, or with the bank): the next Pay of the same charge reuses
    /// its key and token.
    public var attempt: ChargeAttempt?
    /// The discount code the shopper entered, as the shop had it when it was checked.
    public var discount: DiscountCode?
    /// The rate of the market the order is in, where that is not the shop's own currency.
    public var exchange: OrderExchange?

    /// `discount` as it applies in the order's market: a fixed amount at the market's rate.
    public var pricedDiscount: DiscountCode? {
        discount.map { $0.priced(in: exchange?.currency ?? shippingMethod.amount.currency, exchange: exchange) }
    }

    /// The shipping at the chosen method's price for these lines, before any code.
    func shippingCost(_ shop: ShopProfile) -> Money { shippingMethod.cost(forSubtotal: order.lines.subtotal(in: shop.currency)) }

    public init(order: CheckoutOrder, oneTap: Bool, shippingMethod: ShippingMethod, quote: ShippingQuote, noticeBeforeCheckout: Notice?) {
        self.order = order
        self.oneTap = oneTap
        self.shippingMethod = shippingMethod
        self.quote = quote
        self.noticeBeforeCheckout = noticeBeforeCheckout
    }

    /// The address of the "Ship to" choice with the email and phone of the "Contact" choice.
    var shippingContact: Contact? {
        guard let shipTo, let contact else { return nil }
        var merged = shipTo
        merged.email = contact.email
        merged.phone = contact.phone
        return merged
    }
}

/// How a confirmed payment ended.
public enum CheckoutOutcome: Equatable, Sendable {
    case paid(ConfirmationState)
    /// Not paid, and why, in words for the shopper.
    case notPaid(Localized)
    /// Not paid: the catalog sells the lines at other prices now; the sheet shows `lines` and asks again, with `why`.
    case repriced(lines: [CartLine], why: String)
}

/// What the payment sheet waits for from a form it opened.
public enum SheetAwaits: Equatable, Sendable {
    /// "Set up card" (the wallet had no card the shop takes): a card, to start this checkout again with.
    /// Kept while that sheet is up, even if a form is cancelled.
    case cardToStart(CheckoutOrder)
    /// "Add a new …" on a row of the open sheet: an entry to choose there. Ends with the form.
    case entry(PaymentSheetRow)
}
