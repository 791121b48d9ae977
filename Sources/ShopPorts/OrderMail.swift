import Foundation
import ShopLanguages
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
/// receipt, the shipping notice, and the cancellation and refund notices, in the language and formats the order was
/// bought in. Cards appear as the shopper saw them (brand and last four), never more.
public enum OrderMail {
    /// `statusLink`: where the order's status page is, which a receipt links to; nil where the shop has none.
    /// `linePictures`: each line's picture's address (absolute, on the shop's web front), nil for a line without one;
    /// empty where the shop has no web front to serve them.
    public static func compose(
        _ entry: OutboxEntry, order: Order, events: [OrderEvent], shop: ShopProfile, sender: MailSender, statusLink: String? = nil,
        linePictures: [String?] = []
    ) -> MailMessage {
        let upTo = Array(events.prefix(entry.eventSequence))
        let event = upTo.last
        let before = (try? OrderLifecycle.rebuilt(from: Array(upTo.dropLast())))
        let words = MailWords(locale: order.language)
        let number = order.number
        let paidWith = order.paymentDescription
        let subject: Localized
        var body: [String] = [words.greeting(entry.recipient.name), ""]
        switch entry.kind {
        case .receipt:
            // A renewal is not a purchase the buyer just made: it says so.
            subject =
                order.isRenewal
                ? Localized("Your subscription renewed: receipt for order \(number) from \(shop.name)")
                : Localized("Your receipt for order \(number) from \(shop.name)")
            body += [words(ReceiptHTML.opening(order)), ""]
            body +=
                summary(order, words) + [
                    "", words(Localized("Paid with \(paidWith).")),
                    words(Localized("Ships to: \(order.shipTo) (\(order.shippingMethodLabel)).")),
                ]
            if let statusLink { body += ["", words(Localized("Follow your order, no sign-in needed: \(statusLink)"))] }
        case .shipped:
            subject = Localized("Your order \(number) has shipped")
            body.append(words(Localized("Your order \(number) is on its way.")))
            if case .shipped(let parcel)? = event?.change {
                body += ["", words(Localized("Carrier: \(parcel.carrier)")), words(Localized("Tracking number: \(parcel.trackingNumber)"))]
                if let url = parcel.trackingURL { body.append(words(Localized("Follow it: \(url)"))) }
            }
            body += [""] + order.lines.map { "  \($0.quantity) × \($0.name)" } + ["", words(Localized("Ships to: \(order.shipTo)."))]
        case .canceled:
            let amount = before?.refundable ?? order.totals.total
            subject = Localized("Your order \(number) is canceled")
            body += [
                words(Localized("Your order \(number) is canceled, and \(amount) goes back to \(paidWith).")),
                words(Localized("Your bank may take a few days to show it.")), "", words(Localized("Canceled:")),
            ]
            body += order.lines.map { "  \($0.quantity) × \($0.name)" }
        case .refunded:
            var amount = order.totals.total
            var reason = ""
            if case .refunded(let refunded, let why)? = event?.change { (amount, reason) = (refunded, why) }
            subject = Localized("A refund of \(amount) for order \(number)")
            body += [
                words(Localized("We refunded \(amount) of your order \(number) to \(paidWith).")),
                words(Localized("Your bank may take a few days to show it.")),
            ]
            if !reason.isEmpty { body.append(words(Localized("Reason: \(MailMessage.oneLine(reason))"))) }
            body += ["", words(Localized("Order total: \(order.totals.total)"))]
        }
        let title = words(subject)
        let greeting = words.greeting(entry.recipient.name)
        // The receipt, which a person keeps, is laid out as a table; a notice is its text's paragraphs.
        let html =
            entry.kind == .receipt
            ? ReceiptHTML.page(
                order, words: words, shop: shop.name, title: title, greeting: greeting, statusLink: statusLink, pictures: linePictures)
            : MailHTML.notice(Array(body.dropFirst(2)), words: words, title: title, shop: shop.name, greeting: greeting)
        body += words.closing(shop: shop.name)
        return MailMessage(
            from: sender.from, replyTo: sender.replyTo, to: entry.recipient, subject: title, date: event?.at ?? entry.createdAt,
            messageID: entry.messageID, text: body.joined(separator: "\n"), html: html
        )
    }

    /// The order's lines and totals, one per line, amounts after a tab-free column of spaces.
    static func summary(_ order: Order, _ words: MailWords) -> [String] {
        let totals = order.totals
        let rows =
            order.lines.map { ("\($0.quantity) × \($0.name)", words.money($0.total)) } + [
                (words(Localized("Subtotal")), words.money(totals.subtotal))
            ]
            + (order.discount.map { [(words(Localized("Discount \($0.code)")), words.money(.zero($0.currency) - $0.total))] } ?? []) + [
                (words(Localized("Shipping")), words.money(totals.shipping)),
                (words(order.taxCharged.summaryWords), words.money(totals.tax)),
                (words(Localized("Total")), words.money(totals.total)),
            ]
        let width = rows.map { $0.0.count + $0.1.count }.max() ?? 0
        return [words(Localized("Order \(order.number)")), ""]
            + rows.map { "  " + $0.0 + String(repeating: " ", count: width + 4 - $0.0.count - $0.1.count) + $0.1 }
    }
}

/// A message's words in its reader's language: the locale an order or subscription was bought in (`de-DE`), or
/// English where none was kept.
struct MailWords {
    let translation: Translation

    init(locale: String?) { translation = .forLocale(locale) }

    func callAsFunction(_ words: Localized) -> String { translation.string(words) }

    func money(_ amount: Money) -> String {
        translation.money(
            minorUnits: amount.minorUnits, currency: amount.currency.code, exponent: amount.currency.exponent, english: amount.formatted)
    }

    /// "Hello Max," on a line of its own, or "Hello," without a name.
    func greeting(_ name: String) -> String {
        name.isEmpty ? self(Localized("Hello,")) : self(Localized("Hello \(MailMessage.oneLine(name)),"))
    }

    /// The lines every message ends with.
    func closing(shop: String) -> [String] { ["", self(Localized("Questions? Reply to this message.")), "", "— \(shop)"] }
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
