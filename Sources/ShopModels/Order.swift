import Foundation
import ShopLanguages

/// Where an order stands.
///
/// A charge first: `charging`, then `paid`, `declined`, `voided` (settled as never charged) or `unknown` (no
/// answer yet). Then what happens to a paid order (`OrderLifecycle` decides what may follow what): `shipped`,
/// `delivered`, `canceled` (before shipping, refunded in full), `refunded` and `partiallyRefunded`.
public enum OrderStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case charging, paid, declined, voided, unknown
    case shipped, delivered, canceled, refunded, partiallyRefunded

    /// Statuses an order can still move on from: a charge under way, or one whose outcome is not known.
    public var isOpen: Bool { self == .charging || self == .unknown }

    /// The order was paid, whatever happened to it since: its charge went through.
    public var wasCharged: Bool {
        switch self {
        case .paid, .shipped, .delivered, .canceled, .refunded, .partiallyRefunded: true
        case .charging, .declined, .voided, .unknown: false
        }
    }

    /// The shopper's orders list shows it: every order that was paid or may have been, its payment being checked
    /// included (never hidden, so nothing invites paying for it again); a declined or voided attempt is not an order.
    public var isShownToItsShopper: Bool { self != .declined && self != .voided }

    /// The statuses `isShownToItsShopper`, as the databases' queries name them.
    public static let shownToTheirShopper: [OrderStatus] = allCases.filter(\.isShownToItsShopper)

    public var displayName: String { shopperName.description }

    /// The status in the words of its shopper's language.
    public var shopperName: Localized {
        switch self {
        case .charging, .unknown: Localized("Payment being checked")
        case .paid: Localized("Paid")
        case .declined: Localized("Declined")
        case .voided: Localized("Not charged")
        case .shipped: Localized("Shipped")
        case .delivered: Localized("Delivered")
        case .canceled: Localized("Canceled")
        case .refunded: Localized("Refunded")
        case .partiallyRefunded: Localized("Partly refunded")
        }
    }
}

/// A placed order with its lines and totals frozen at purchase time.
public struct Order: Hashable, Sendable, Identifiable {
    public var number: String
    public var placedAt: Date
    public var lines: [CartLine]
    public var totals: CartTotals
    public var status: OrderStatus
    public var paymentDescription: String
    public var shippingMethodLabel: String
    /// The id of the shipping method in the catalog (`standard`, `express`); empty for orders placed before it was kept.
    public var shippingMethodID: String
    public var shipTo: String
    /// Whose order it is: the account or guest that placed it.
    public var customerID: String
    /// The payment provider's id for the charge (a Stripe PaymentIntent), once it has one.
    public var paymentReference: String?
    /// The tax rule, rate and jurisdiction the order was charged under, for the merchant's reports.
    public var taxCharged: TaxPolicy
    /// The code the order used and what it took off each line and the shipping; nil for none.
    public var discount: AppliedDiscount?
    /// A subscription's renewal, not a first purchase.
    public var isRenewal = false
    /// Sold in a market's currency: the rate, the day of the rates, and the total in the shop's own currency's minor
    /// units at that rate. Nil for an order in the shop's own currency.
    public var exchange: Exchange?
    /// The locale its buyer shopped in (`de-DE`), which its mails are written in; nil for English as the shop wrote
    /// before it had languages.
    public var language: String?
    /// The email its receipt goes to, as the buyer gave it; nil for orders placed before the shop kept one.
    public var email: String?

    /// The rate an order was sold at, as it keeps it.
    public struct Exchange: Hashable, Sendable {
        /// Units of the order's currency one unit of the shop's own bought: `0.86430424`.
        public var rate: String
        public var day: String
        public var baseTotal: Int64

        public init(rate: String, day: String, baseTotal: Int64) {
            self.rate = rate
            self.day = day
            self.baseTotal = baseTotal
        }
    }

    public var id: String { number }

    /// Who the merchant knows the order by: its contact's name and email ("Jane Appleseed · jane@example.com"), never
    /// a key's fingerprint; the customer id for an order that kept neither.
    public var customerLabel: String {
        let name = contactName
        switch (name.isEmpty, email.map(\.isEmpty) ?? true) {
        case (false, false): return "\(name) · \(email ?? "")"
        case (true, false): return email ?? ""
        case (false, true): return name
        case (true, true): return customerID
        }
    }

    /// The name its contact gave: what `shipTo` starts with.
    public var contactName: String { String(shipTo.prefix { $0 != "," }).trimmingCharacters(in: .whitespaces) }

    public init(
        number: String, placedAt: Date, lines: [CartLine], totals: CartTotals, status: OrderStatus, paymentDescription: String,
        shippingMethodLabel: String, shippingMethodID: String = "", shipTo: String, customerID: String = "", paymentReference: String? = nil,
        taxCharged: TaxPolicy = TaxPolicy(basisPoints: 0), discount: AppliedDiscount? = nil
    ) {
        self.taxCharged = taxCharged
        self.discount = discount
        self.number = number
        self.placedAt = placedAt
        self.lines = lines
        self.totals = totals
        self.status = status
        self.paymentDescription = paymentDescription
        self.shippingMethodLabel = shippingMethodLabel
        self.shippingMethodID = shippingMethodID
        self.shipTo = shipTo
        self.customerID = customerID
        self.paymentReference = paymentReference
    }

    public var itemCount: Int { lines.reduce(0) { $0 + $1.quantity } }

    /// What the shopper paid for `line`'s goods: its total less its share of the discount.
    public func paid(for line: CartLine) -> Money {
        line.total - (discount?.share(of: line.stockKey) ?? .zero(line.total.currency))
    }
}
