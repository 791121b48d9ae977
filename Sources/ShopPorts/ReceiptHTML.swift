import Foundation
import ShopLanguages
import ShopModels

/// A receipt's HTML part: what the text says, laid out for a mail client. Within 600 px, inline styles only, no
/// images, no scripts and no remote anything; colours left to the client, so it reads in light and in dark.
enum ReceiptHTML {
    static func page(_ order: Order, words: MailWords, shop: String, title: String, greeting: String, statusLink: String?) -> String {
        let totals = order.totals
        let cell = "padding:6px 0;vertical-align:top"
        let amount = "padding:6px 0 6px 16px;text-align:right;white-space:nowrap;vertical-align:top"
        var rows = order.lines.map { line in
            "<tr><td style=\"\(cell)\">\(escaped("\(line.quantity) × \(line.name)"))</td>"
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
        let language = words.translation.language == .pseudo ? "en" : words.translation.language.tag
        let opening = Self.opening(order)
        return """
            <!doctype html>
            <html lang="\(language)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="supported-color-schemes" content="light dark">
            <title>\(escaped(title))</title>
            </head>
            <body style="margin:0;padding:0">
            <div style="max-width:600px;margin:0 auto;padding:24px 16px;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5">
            <p style="margin:0 0 16px;font-size:20px;font-weight:700">\(escaped(shop))</p>
            <p style="margin:0 0 8px">\(escaped(greeting))</p>
            <p style="margin:0 0 24px">\(escaped(words(opening)))</p>
            <p style="margin:0 0 8px;font-weight:700">\(escaped(words(Localized("Order \(order.number)"))))</p>
            <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%;max-width:600px">
            \(rows.joined(separator: "\n"))
            </table>
            <p style="margin:24px 0 4px">\(escaped(words(Localized("Ships to: \(order.shipTo) (\(order.shippingMethodLabel))."))))</p>
            <p style="margin:0 0 24px">\(escaped(words(Localized("Paid with \(order.paymentDescription)."))))</p>
            \(statusLink.map { link in
                "<p style=\"margin:0 0 24px\"><a href=\"\(escaped(link))\" style=\"display:inline-block;padding:10px 16px;border:1px solid currentColor;border-radius:6px;text-decoration:none;font-weight:700\">"
                    + escaped(words(Localized("Follow your order"))) + "</a></p>"
            } ?? "")
            <p style="margin:0;opacity:0.8">\(escaped(words(Localized("Questions? Reply to this message."))))<br>— \(escaped(shop))</p>
            </div>
            </body>
            </html>

            """
    }

    /// The receipt's first words: thanks for an order, or that a subscription renewed.
    static func opening(_ order: Order) -> Localized {
        order.isRenewal
            ? Localized("Your subscription renewed. This delivery is paid, and we will tell you when it ships.")
            : Localized("Thank you for your order. It is paid, and we will tell you when it ships.")
    }

    static func escaped(_ text: String) -> String { HTMLText.escaped(text) }
}
