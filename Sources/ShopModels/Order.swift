import Foundation

/// Where an order stands.
public enum OrderStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case charging, paid, declined, canceled, unknown

    /// Statuses an order can still move on from: a charge under way, or one whose outcome is not known.
    public var isOpen: Bool { self == .charging || self == .unknown }

    /// The shopper's orders list shows it: paid, or its payment being checked (never hidden, so nothing invites
    /// paying for it again); a declined or canceled attempt is not an order.
    public var isShownToItsShopper: Bool { self == .paid || isOpen }

    /// The statuses `isShownToItsShopper`, as the databases' queries name them.
    public static let shownToTheirShopper: [OrderStatus] = allCases.filter(\.isShownToItsShopper)

    public var displayName: String {
        switch self {
        case .charging: "Payment being checked"
        case .paid: "Paid"
        case .declined: "Declined"
        case .canceled: "Canceled"
        case .unknown: "Payment being checked"
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
    public var shipTo: String
    /// Whose order it is: the account or guest that placed it.
    public var customerID: String
    /// The payment provider's id for the charge (a Stripe PaymentIntent), once it has one.
    public var paymentReference: String?

    public var id: String { number }

    public init(number: String, placedAt: Date, lines: [CartLine], totals: CartTotals, status: OrderStatus, paymentDescription: String, shippingMethodLabel: String, shipTo: String, customerID: String = "", paymentReference: String? = nil) {
        self.number = number
        self.placedAt = placedAt
        self.lines = lines
        self.totals = totals
        self.status = status
        self.paymentDescription = paymentDescription
        self.shippingMethodLabel = shippingMethodLabel
        self.shipTo = shipTo
        self.customerID = customerID
        self.paymentReference = paymentReference
    }

    public var itemCount: Int { lines.reduce(0) { $0 + $1.quantity } }
}
