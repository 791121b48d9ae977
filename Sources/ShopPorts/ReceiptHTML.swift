import Foundation
import ShopLanguages
import ShopModels

/// A receipt's HTML part: what the text says, laid out for a mail client, as every HTML part is (`MailHTML`).
enum ReceiptHTML {
    /// `pictures`: each line's picture's address, in the lines' order (a line past the end, or nil, has none).
    static func page(
        _ order: Order, words: MailWords, shop: String, title: String, greeting: String, statusLink: String?, pictures: [String?] = []
    ) -> String {
        let totals = order.totals
        let cell = "padding:6px 0;vertical-align:top"
        let amount = "padding:6px 0 6px 16px;text-align:right;white-space:nowrap;vertical-align:top"
        var rows = order.lines.enumerated().map { index, line in
            // A mail client that shows no pictures shows the line's words alone; the alt text is empty, as the name
            // beside it says what the picture is.
            let picture = (index < pictures.count ? pictures[index] : nil).map {
                "<img src=\"\(escaped($0))\" width=\"48\" height=\"36\" alt=\"\" style=\"vertical-align:middle;margin-right:10px;border-radius:4px\">"
            }
            return "<tr><td style=\"\(cell)\">\(picture ?? "")\(escaped("\(line.quantity) × \(line.name)"))</td>"
                + "<td style=\"\(amount)\">\(escaped(words.money(line.total)))</td></tr>"
        }
        let rule = "border-top:1px solid rgba(128,128,128,0.4)"
        func total(_ label: String, _ value: Money, note: String? = nil, strong: Bool = false, top: Bool = false) -> String {
            let weight = strong ? "font-weight:700;" : ""
            let border = top ? rule + ";" : ""
            let small = note.map { "<br><span style=\"font-size:13px;opacity:0.7\">\(escaped($0))</span>" } ?? ""
            return "<tr><td style=\"\(border)\(weight)\(cell)\">\(escaped(label))\(small)</td>"
                + "<td style=\"\(border)\(weight)\(amount)\">\(escaped(words.money(value)))</td></tr>"
        }
        rows.append(total(words(Localized("Subtotal")), totals.subtotal, top: true))
        if let discount = order.discount {
            rows.append(total(words(Localized("Discount \(discount.code)")), .zero(discount.currency) - discount.total))
        }
        rows.append(total(words(Localized("Shipping")), totals.shipping, note: order.shippingMethodLabel))
        let jurisdiction = order.taxCharged.jurisdiction.isEmpty ? nil : order.taxCharged.jurisdiction
        rows.append(total(words(order.taxCharged.summaryWords), totals.tax, note: jurisdiction))
        rows.append(total(words(Localized("Total")), totals.total, strong: true, top: true))
        let opening = Self.opening(order)
        let link = statusLink.map { MailHTML.button(words(Localized("Follow your order")), to: $0) } ?? ""
        return MailHTML.document(
            words: words, title: title, shop: shop, greeting: greeting,
            content: """
                <p style="margin:0 0 24px">\(escaped(words(opening)))</p>
                <p style="margin:0 0 8px;font-weight:700">\(escaped(words(Localized("Order \(order.number)"))))</p>
                <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%;max-width:600px">
                \(rows.joined(separator: "\n"))
                </table>
                <p style="margin:24px 0 4px">\(escaped(words(Localized("Ships to: \(order.shipTo) (\(order.shippingMethodLabel))."))))</p>
                <p style="margin:0 0 24px">\(escaped(words(Localized("Paid with \(order.paymentDescription)."))))</p>
                \(link)
                """)
    }

    /// The receipt's first words: thanks for an order, or that a subscription renewed.
    static func opening(_ order: Order) -> Localized {
        order.isRenewal
            ? Localized("Your subscription renewed. This delivery is paid, and we will tell you when it ships.")
            : Localized("Thank you for your order. It is paid, and we will tell you when it ships.")
    }

    static func escaped(_ text: String) -> String { MailHTML.escaped(text) }
}
