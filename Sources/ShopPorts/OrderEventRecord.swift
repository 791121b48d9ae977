import Foundation
import ShopModels

/// An `order_event` row as both databases keep it: who, what, and the details as a JSON object. Each adapter reads
/// and writes the columns its own way and converts here, so the two cannot drift apart.
public struct OrderEventRecord: Hashable, Sendable {
    /// `shopper:<customer>`, `merchant:<name>`, `system` or `provider`.
    public var actor: String
    /// `placed`, `charged`, `declined`, `voided`, `unanswered`, `shipped`, `delivered`, `canceled`, `refunded`,
    /// `disputed` or `dispute-closed`.
    public var kind: String
    /// A JSON object: the amount and currency of a placement or a refund, a decline's or refund's reason, a parcel.
    public var details: String

    public init(actor: String, kind: String, details: String) {
        self.actor = actor
        self.kind = kind
        self.details = details
    }

    public init(_ event: OrderEvent) {
        actor = event.actor.recordText
        let (kind, details): (String, [String: Any]) =
            switch event.change {
            case .placed(let total): ("placed", ["total": total.minorUnits, "currency": total.currency.code])
            case .charged: ("charged", [:])
            case .declined(let reason): ("declined", ["reason": reason])
            case .voided: ("voided", [:])
            case .unanswered: ("unanswered", [:])
            case .shipped(let parcel):
                ("shipped", ["carrier": parcel.carrier, "trackingNumber": parcel.trackingNumber, "trackingURL": parcel.trackingURL as Any])
            case .delivered: ("delivered", [:])
            case .canceled: ("canceled", [:])
            case .refunded(let amount, let reason): ("refunded", ["amount": amount.minorUnits, "currency": amount.currency.code, "reason": reason])
            case .disputed(let amount, let reason, let reference):
                ("disputed", ["amount": amount.minorUnits, "currency": amount.currency.code, "reason": reason, "reference": reference])
            case .disputeClosed(let reference, let outcome): ("dispute-closed", ["reference": reference, "outcome": outcome])
            }
        self.kind = kind
        let data =
            (try? JSONSerialization.data(withJSONObject: details.filter { !($0.value is NSNull) }, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        self.details = String(decoding: data, as: UTF8.self)
    }

    /// The event this row records, at `at`; `currency` where an older row names none.
    public func event(at: Date, currency: Currency) throws -> OrderEvent {
        let object = (try? JSONSerialization.jsonObject(with: Data(details.utf8))) as? [String: Any] ?? [:]
        func money(_ key: String) -> Money {
            let code = (object["currency"] as? String).flatMap { Currency(code: $0) } ?? currency
            return Money(minorUnits: (object[key] as? NSNumber)?.int64Value ?? 0, currency: code)
        }
        let text = { (key: String) in object[key] as? String ?? "" }
        let change: OrderChange
        switch kind {
        case "placed": change = .placed(total: money("total"))
        case "charged": change = .charged
        case "declined": change = .declined(reason: text("reason"))
        case "voided": change = .voided
        case "unanswered": change = .unanswered
        case "shipped":
            change = .shipped(
                Shipment(carrier: text("carrier"), trackingNumber: text("trackingNumber"), trackingURL: object["trackingURL"] as? String))
        case "delivered": change = .delivered
        case "canceled": change = .canceled
        case "refunded": change = .refunded(money("amount"), reason: text("reason"))
        case "disputed": change = .disputed(money("amount"), reason: text("reason"), reference: text("reference"))
        case "dispute-closed": change = .disputeClosed(reference: text("reference"), outcome: text("outcome"))
        default: throw UnknownOrderEvent(kind: kind)
        }
        return OrderEvent(at: at, actor: OrderActor(recordText: actor), change: change)
    }

    /// The event a charge's settlement writes for `status`, and by whom; nil for a status a settlement never gives.
    public static func settlement(_ status: OrderStatus, failure: String?) -> (OrderActor, OrderChange)? {
        switch status {
        case .paid: (.provider, .charged)
        case .declined: (.provider, .declined(reason: failure ?? ""))
        case .voided: (.system, .voided)
        case .unknown: (.system, .unanswered)
        default: nil
        }
    }
}

extension OrderActor {
    /// How the databases store who acted: `shopper:<customer>`, `merchant:<name>`, `system` or `provider`.
    public var recordText: String {
        switch self {
        case .shopper(let customer): "shopper:\(customer)"
        case .merchant(let name): "merchant:\(name)"
        case .system: "system"
        case .provider: "provider"
        }
    }

    /// Reads `recordText` back.
    public init(recordText text: String) {
        self =
            switch text {
            case "system": .system
            case "provider": .provider
            case _ where text.hasPrefix("merchant:"): .merchant(String(text.dropFirst("merchant:".count)))
            default: .shopper(String(text.dropFirst("shopper:".count)))
            }
    }
}

/// A history row of a kind this version does not know: written by a newer storefront.
public struct UnknownOrderEvent: Error, CustomStringConvertible {
    public var kind: String
    public var description: String { "an order event of kind \"\(kind)\", which this version does not know (a newer storefront wrote it)" }
}

extension OrderLifecycle {
    /// The lifecycle after `change` to an order whose history is `events` and whose row says `status`, or why not:
    /// the order moved on from `expected`, or its lifecycle refuses the change. Every order repository decides here.
    public static func next(
        after events: [OrderEvent], status: OrderStatus, applying change: OrderChange, expecting expected: OrderStatus?
    ) throws(OrderChangeError) -> OrderLifecycle {
        if let expected, expected != status { throw .changed(now: status) }
        do {
            return try rebuilt(from: events).applying(change)
        } catch {
            throw .refused(error)
        }
    }
}
