import Foundation
import ShopLanguages

/// Where a parcel went: the carrier, its tracking number, and where the shopper can follow it.
public struct Shipment: Hashable, Sendable {
    public var carrier: String
    public var trackingNumber: String
    public var trackingURL: String?

    public init(carrier: String, trackingNumber: String, trackingURL: String? = nil) {
        self.carrier = carrier
        self.trackingNumber = trackingNumber
        self.trackingURL = trackingURL
    }
}

/// The rules for what a merchant types about an order: the console's forms and the command line check the same.
public enum MerchantEntry {
    /// One line of printable text a shopper will read: not blank, no control characters, at most 100 characters.
    public static func isPlainLine(_ text: String) -> Bool {
        !text.trimmingCharacters(in: .whitespaces).isEmpty && text.count <= 100 && text.unicodeScalars.allSatisfy { !$0.isUnsafeForTerminal }
    }

    /// A tracking URL a shopper may follow: http or https, at most 300 characters.
    public static func isWebAddress(_ text: String) -> Bool {
        text.count <= 300 && !text.unicodeScalars.contains(where: { $0.isUnsafeForTerminal || $0 == " " })
            && URL(string: text)?.scheme.map { ["https", "http"].contains($0.lowercased()) } == true
    }
}

/// One thing that happened to an order, as its history records it.
public enum OrderChange: Hashable, Sendable {
    /// The order was placed for `total`; its charge starts.
    case placed(total: Money)
    /// The charge went through.
    case charged
    case declined(reason: String)
    /// Settled as never charged.
    case voided
    /// The charge got no answer; the order is being checked.
    case unanswered
    case shipped(Shipment)
    case delivered
    /// Canceled before shipping, refunded in full.
    case canceled
    case refunded(Money, reason: String)
    /// The shopper's bank disputes `amount` of the payment (a chargeback), as the provider's dispute `reference`
    /// says; the order's status stays, the merchant answers at the provider.
    case disputed(Money, reason: String, reference: String)
    /// The provider's dispute `reference` ended: `outcome` is its word (`won`, `lost`, `warning_closed`…); the
    /// order's status stays, a lost dispute's money went back to the shopper's bank at the provider.
    case disputeClosed(reference: String, outcome: String)
}

/// Who made a change: the shopper, a merchant (their key's fingerprint or their user name), the shop itself, or
/// the payment provider.
public enum OrderActor: Hashable, Sendable {
    case shopper(String)
    case merchant(String)
    case system
    case provider
}

/// One row of an order's append-only history.
public struct OrderEvent: Hashable, Sendable {
    public var at: Date
    public var actor: OrderActor
    public var change: OrderChange

    public init(at: Date, actor: OrderActor, change: OrderChange) {
        self.at = at
        self.actor = actor
        self.change = change
    }
}

/// Why a change was refused; nothing is written.
public enum OrderChangeRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The change cannot follow the order's status.
    case notAllowed(OrderChange, after: OrderStatus)
    /// A refund above what is left of the payment.
    case refundAboveRemaining(asked: Money, remaining: Money)
    /// A refund of nothing, or in another currency than the order's.
    case refundNotPositive(Money)
    /// The history does not start with the order being placed.
    case noPlacement

    public var description: String {
        switch self {
        case .notAllowed(let change, let status): Self.refusal(change, status)
        case .refundAboveRemaining(let asked, let remaining):
            "A refund of \(asked.formatted) is more than is left to refund (\(remaining.formatted))."
        case .refundNotPositive(let amount): "A refund must be a positive amount in the order's currency, not \(amount)."
        case .noPlacement: "The order's history does not begin with its placement."
        }
    }

    private static func refusal(_ change: OrderChange, _ status: OrderStatus) -> String {
        let now = "The order is \(status.displayName.lowercased())"
        return switch change {
        case .shipped: status == .shipped || status == .delivered ? "\(now): it was shipped already." : "\(now): only a paid order can be shipped."
        case .delivered: "\(now): only a shipped order can be delivered."
        case .canceled:
            status == .shipped || status == .delivered
                ? "\(now): a shipped order cannot be canceled; refund it instead." : "\(now): only a paid order that has not shipped can be canceled."
        case .refunded:
            status == .refunded || status == .canceled ? "\(now): it was refunded in full already." : "\(now): only a paid order can be refunded."
        case .placed: "The order was placed already."
        case .charged, .declined, .voided, .unanswered: "\(now): its charge was settled already."
        case .disputed: "\(now): only a payment that was charged can be disputed."
        case .disputeClosed: "No open dispute of this order has that reference."
        }
    }
}

/// What an order's history adds up to, and what may follow: a state machine over `OrderChange`.
///
/// Order of calls: `OrderLifecycle(placedFor:)` from the placement → `applying(_:)` for each change, which refuses
/// what may not follow with an `OrderChangeRefusal` → or `rebuilt(from:)` over a stored history.
public struct OrderLifecycle: Hashable, Sendable {
    public private(set) var status: OrderStatus
    /// What the order charged, with tax and shipping.
    public private(set) var total: Money
    /// What was refunded of it so far.
    public private(set) var refunded: Money
    public private(set) var shipment: Shipment?
    public private(set) var isDelivered = false
    /// The provider's reference of each dispute of the payment, in the order they came.
    public private(set) var disputes: [String] = []

    public init(placedFor total: Money) {
        status = .charging
        self.total = total
        refunded = .zero(total.currency)
    }

    /// What is left of the payment to refund.
    public var refundable: Money { total - refunded }

    /// The lifecycle after `change`, or why `change` may not follow.
    public func applying(_ change: OrderChange) throws(OrderChangeRefusal) -> OrderLifecycle {
        var next = self
        switch (change, status) {
        case (.charged, .charging), (.charged, .unknown): next.status = .paid
        case (.declined, .charging), (.declined, .unknown): next.status = .declined
        case (.voided, .charging), (.voided, .unknown): next.status = .voided
        case (.unanswered, .charging): next.status = .unknown
        case (.shipped(let parcel), .paid), (.shipped(let parcel), .partiallyRefunded):
            guard shipment == nil else { throw .notAllowed(change, after: status) }
            next.status = .shipped
            next.shipment = parcel
        case (.delivered, .shipped), (.delivered, .partiallyRefunded):
            guard shipment != nil, !isDelivered else { throw .notAllowed(change, after: status) }
            next.status = .delivered
            next.isDelivered = true
        case (.canceled, .paid), (.canceled, .partiallyRefunded):
            guard shipment == nil else { throw .notAllowed(change, after: status) }
            next.status = .canceled
            next.refunded = total
        case (.refunded(let amount, _), .paid), (.refunded(let amount, _), .shipped),
            (.refunded(let amount, _), .delivered), (.refunded(let amount, _), .partiallyRefunded):
            guard amount.currency == total.currency, amount.minorUnits > 0 else { throw .refundNotPositive(amount) }
            guard amount.minorUnits <= refundable.minorUnits else { throw .refundAboveRemaining(asked: amount, remaining: refundable) }
            next.refunded = refunded + amount
            next.status = next.refunded == total ? .refunded : .partiallyRefunded
        case (.disputed(_, _, let reference), _) where status.wasCharged:
            next.disputes.append(reference)
        case (.disputeClosed(let reference, _), _) where disputes.contains(reference):
            // The dispute stays on the order's record; its outcome is the event's.
            break
        default:
            throw .notAllowed(change, after: status)
        }
        return next
    }

    /// The lifecycle a stored history adds up to: the status an order has is the one its events give.
    public static func rebuilt(from events: [OrderEvent]) throws(OrderChangeRefusal) -> OrderLifecycle {
        guard case .placed(let total)? = events.first?.change else { throw .noPlacement }
        var lifecycle = OrderLifecycle(placedFor: total)
        for event in events.dropFirst() { lifecycle = try lifecycle.applying(event.change) }
        return lifecycle
    }
}

extension OrderChange {
    /// This step of an order's history as its shopper reads it, in the shop and through the API.
    public var shopperSummary: String { shopperWords.description }

    /// The change in the words of its shopper's language.
    public var shopperWords: Localized {
        switch self {
        case .placed: Localized("Placed")
        case .charged: Localized("Paid")
        case .declined(let reason): reason.isEmpty ? Localized("Declined") : Localized("Declined: \(reason)")
        case .voided: Localized("Not charged")
        case .unanswered: Localized("Payment being checked")
        case .shipped(let parcel):
            parcel.trackingURL.map { Localized("Shipped with \(parcel.carrier), tracking \(parcel.trackingNumber) \($0)") }
                ?? Localized("Shipped with \(parcel.carrier), tracking \(parcel.trackingNumber)")
        case .delivered: Localized("Delivered")
        case .canceled: Localized("Canceled, refunded in full")
        case .refunded(let amount, let reason):
            reason.isEmpty ? Localized("Refunded \(amount)") : Localized("Refunded \(amount): \(reason)")
        case .disputed(let amount, let reason, _):
            reason.isEmpty
                ? Localized("Disputed \(amount) with the card's bank")
                : Localized("Disputed \(amount) with the card's bank: \(reason)")
        case .disputeClosed(_, let outcome): Localized("The bank's dispute closed: \(outcome.replacingOccurrences(of: "_", with: " "))")
        }
    }
}
