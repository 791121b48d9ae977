import ShopModels

/// What the merchant backend needs to place an order.
public struct OrderDraft: Hashable, Sendable {
    public var lines: [CartLine]
    public var totals: CartTotals
    public var shippingMethod: ShippingMethod
    public var shippingContact: Contact
    /// Who is buying: the signed-in account or the guest.
    public var customerID: String
    /// The rule, rate and jurisdiction the tax in `totals` was charged under.
    public var tax: TaxPolicy
    /// The code the order uses and what it takes off each line and the shipping (its sum is `totals.discount`).
    public var discount: AppliedDiscount?
    /// Charged with nobody there: a subscription's renewal.
    public var offSession = false
    /// The subscription paying this order starts: its goods again every so many weeks, to the card it is paid with.
    public var subscription: SubscriptionStart?
    /// The past-due renewal this order pays, its subscriber present: once paid, the subscription is active again.
    public var renews: MissedRenewal?
    /// The rate the order is sold at, where it is in a market's currency rather than the shop's own.
    public var exchange: OrderExchange?
    /// The locale the buyer shops in (`de-DE`), kept with the order for its mails; nil for the shop's English.
    public var language: String?

    public init(
        lines: [CartLine], totals: CartTotals, shippingMethod: ShippingMethod, shippingContact: Contact, customerID: String,
        tax: TaxPolicy = TaxPolicy(basisPoints: 0), discount: AppliedDiscount? = nil
    ) {
        self.discount = discount
        self.lines = lines
        self.totals = totals
        self.shippingMethod = shippingMethod
        self.shippingContact = shippingContact
        self.customerID = customerID
        self.tax = tax
    }
}

/// The subscription a paid order starts: its lines every `everyWeeks` weeks, from one interval after the order.
public struct SubscriptionStart: Hashable, Sendable {
    public var everyWeeks: Int
    public init(everyWeeks: Int) { self.everyWeeks = everyWeeks }
}

/// A subscription's renewal that failed, paid by its subscriber on the payment sheet: which subscription, and the
/// period the order is for (a renewal the worker made meanwhile leaves the subscription as it is).
public struct MissedRenewal: Hashable, Sendable {
    public var subscriptionID: String
    public var period: Int
    public init(subscriptionID: String, period: Int) {
        self.subscriptionID = subscriptionID
        self.period = period
    }
}
