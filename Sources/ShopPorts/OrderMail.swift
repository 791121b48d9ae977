import Foundation
import ShopModels

/// Who the shop's messages come from: the shop's name at its address, and where replies go.
public struct MailSender: Hashable, Sendable {
    public var from: MailAddress
    public var replyTo: MailAddress?

    public init(from: MailAddress, replyTo: MailAddress? = nil) {
        self.from = from
        self.replyTo = replyTo
    }
}

/// The words of each message the outbox sends, composed from the order as its history stood at the event: the
/// receipt, the shipping notice, and the cancellation and refund notices. Cards appear as the shopper saw them
/// (brand and last four), never more.
public enum OrderMail {
    public static func compose(_ entry: OutboxEntry, order: Order, events: [OrderEvent], shop: ShopProfile, sender: MailSender) -> MailMessage {
        let upTo = Array(events.prefix(entry.eventSequence))
        let event = upTo.last
        let before = (try? OrderLifecycle.rebuilt(from: Array(upTo.dropLast())))
        let greeting = entry.recipient.name.isEmpty ? "Hello," : "Hello \(MailMessage.oneLine(entry.recipient.name)),"
        let subject: String
        var body: [String]
        switch entry.kind {
        case .receipt:
            subject = "Your receipt for order \(order.number) from \(shop.name)"
            body =
                [greeting, "", "Thank you for your order. It is paid, and we will tell you when it ships.", ""]
                + summary(order) + ["", "Paid with \(order.paymentDescription).", "Ships to: \(order.shipTo) (\(order.shippingMethodLabel))."]
        case .shipped:
            subject = "Your order \(order.number) has shipped"
            body = [greeting, "", "Your order \(order.number) is on its way."]
            if case .shipped(let parcel)? = event?.change {
                body += ["", "Carrier: \(parcel.carrier)", "Tracking number: \(parcel.trackingNumber)"]
                if let url = parcel.trackingURL { body.append("Follow it: \(url)") }
            }
            body += [""] + order.lines.map { "  \($0.quantity) × \($0.name)" } + ["", "Ships to: \(order.shipTo)."]
        case .canceled:
            let amount = before?.refundable ?? order.totals.total
            subject = "Your order \(order.number) is canceled"
            body =
                [
                    greeting, "", "Your order \(order.number) is canceled, and \(amount.formatted) goes back to \(order.paymentDescription).",
                    "Your bank may take a few days to show it.", "", "Canceled:",
                ] + order.lines.map { "  \($0.quantity) × \($0.name)" }
        case .refunded:
            var amount = order.totals.total
            var reason = ""
            if case .refunded(let refunded, let why)? = event?.change { (amount, reason) = (refunded, why) }
            subject = "A refund of \(amount.formatted) for order \(order.number)"
            body = [
                greeting, "", "We refunded \(amount.formatted) of your order \(order.number) to \(order.paymentDescription).",
                "Your bank may take a few days to show it.",
            ]
            if !reason.isEmpty { body.append("Reason: \(MailMessage.oneLine(reason))") }
            body += ["", "Order total: \(order.totals.total.formatted)"]
        }
        body += ["", "Questions? Reply to this message.", "", "— \(shop.name)"]
        return MailMessage(
            from: sender.from, replyTo: sender.replyTo, to: entry.recipient, subject: subject, date: event?.at ?? entry.createdAt,
            messageID: entry.messageID, text: body.joined(separator: "\n")
        )
    }

    /// The order's lines and totals, one per line, amounts after a tab-free column of spaces.
    static func summary(_ order: Order) -> [String] {
        let rows =
            order.lines.map { ("\($0.quantity) × \($0.name)", $0.total.formatted) } + [("Subtotal", order.totals.subtotal.formatted)]
            + (order.discount.map { [("Discount \($0.code)", (.zero($0.currency) - $0.total).formatted)] } ?? []) + [
                ("Shipping", order.totals.shipping.formatted),
                (order.taxCharged.summaryLabel, order.totals.tax.formatted),
                ("Total", order.totals.total.formatted),
            ]
        let width = rows.map { $0.0.count + $0.1.count }.max() ?? 0
        return ["Order \(order.number)", ""] + rows.map { "  " + $0.0 + String(repeating: " ", count: width + 4 - $0.0.count - $0.1.count) + $0.1 }
    }
}

/// Hands a message to the mail system.
public protocol MailTransport: Sendable {
    /// Sends `message` to its recipient, or says why not.
    func send(_ message: MailMessage) async throws(MailTransportError)
}

/// Why a message was not handed over; the outbox tries again later.
public struct MailTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
