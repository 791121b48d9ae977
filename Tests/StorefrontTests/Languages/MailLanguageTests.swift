import Foundation
import ShopLanguages
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

/// The messages a customer is mailed, in the language and formats they bought in: each order and subscription keeps
/// its buyer's locale, and a code's message is in the locale of the session that asked for it.
@Suite("Mails in the buyer's language")
struct MailLanguageTests {
    static let now = Date(timeIntervalSince1970: 1_796_025_600)  // 30 Nov 2026
    let sender = MailSender(from: MailAddress(name: "Storefront", address: "shop@example.com"))

    func order(_ currency: Currency, language: String?, price: Int64, shipping: Int64) -> Order {
        let line = CartLine(productID: "mug", name: "Terminal Mug", unitPrice: Money(minorUnits: price, currency: currency), quantity: 2)
        let goods = Money(minorUnits: price * 2, currency: currency)
        let delivery = Money(minorUnits: shipping, currency: currency)
        let tax = TaxPolicy(label: "VAT", basisPoints: 1_900, rule: .included, jurisdiction: "DE")
        var order = Order(
            number: "SF-000042", placedAt: Self.now, lines: [line],
            totals: CartTotals(subtotal: goods, shipping: delivery, tax: tax.tax(goods: goods, shipping: delivery), taxIncluded: true),
            status: .paid, paymentDescription: "Visa ••4242", shippingMethodLabel: "DHL", shipTo: "Max Müller, Torstraße 5, 10119 Berlin, DE",
            taxCharged: tax)
        order.language = language
        return order
    }

    func receipt(_ order: Order, to name: String = "Max Müller") -> MailMessage {
        OrderMail.compose(
            OutboxEntry(
                id: "MSG-1", orderNumber: order.number, kind: .receipt, eventSequence: 1,
                recipient: MailAddress(name: name, address: "max@example.de"), messageID: "<m@shop>", createdAt: Self.now,
                nextAttemptAt: Self.now),
            order: order, events: [], shop: .standard(), sender: sender)
    }

    @Test func aReceiptBoughtInGermanIsInGermanWithEurosAsGermanWritesThem() {
        let mail = receipt(order(.eur, language: "de-DE", price: 123_450, shipping: 590))
        #expect(mail.subject == "Ihre Quittung für Bestellung SF-000042 bei Storefront")
        #expect(
            mail.text.components(separatedBy: "\n") == [
                "Guten Tag Max Müller,", "",
                "Vielen Dank für Ihre Bestellung. Sie ist bezahlt, und wir sagen Ihnen Bescheid, sobald sie versandt wird.", "",
                "Bestellung SF-000042", "",
                "  2 × Terminal Mug    2.469,00\u{A0}€",
                "  Zwischensumme       2.469,00\u{A0}€",
                "  Versand                 5,90\u{A0}€",
                "  inkl. VAT 19%         395,15\u{A0}€",
                "  Summe               2.474,90\u{A0}€", "",
                "Bezahlt mit Visa ••4242.",
                "Lieferung an: Max Müller, Torstraße 5, 10119 Berlin, DE (DHL).", "",
                "Fragen? Antworten Sie einfach auf diese Nachricht.", "",
                "— Storefront",
            ], "\(mail.text)")
    }

    /// The receipt's HTML part says the same in the same language, escapes what the shop did not write, and goes after
    /// the text in a `multipart/alternative` whose boundary quoted-printable can never produce.
    @Test func theReceiptsHTMLPartIsTheSameOrderInTheSameLanguage() throws {
        var order = order(.eur, language: "de-DE", price: 123_450, shipping: 590)
        order.lines[0].name = "Mug <script>alert(1)</script>"
        let mail = receipt(order)
        let html = try #require(mail.html)
        #expect(html.contains(#"<html lang="de">"#) && html.contains("Vielen Dank für Ihre Bestellung."))
        #expect(html.contains("2 × Mug &lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>"), "\(html)")
        #expect(html.contains("2.474,90\u{A0}€") && html.contains("inkl. VAT 19%") && html.contains(">DE</span>"), "the tax and its jurisdiction")
        #expect(html.contains(">Bezahlt mit Visa ••4242.</p>"), "the card, and nothing after its sentence")
        let raw = mail.rfc5322
        let boundary = try #require(raw.firstMatch(of: /Content-Type: multipart\/alternative; boundary="([^"]+)"/)?.1)
        #expect(boundary.hasPrefix("=_sf_"))
        let parts = raw.components(separatedBy: "--\(boundary)")
        #expect(parts.count == 4 && parts[3].hasPrefix("--"), "a preamble, the text, the HTML, and the closing delimiter")
        #expect(parts[1].contains("Content-Type: text/plain; charset=utf-8") && parts[2].contains("Content-Type: text/html; charset=utf-8"))
        #expect(receipt(self.order(.usd, language: nil, price: 1_800, shipping: 500)).html?.contains(#"<html lang="en">"#) == true)
    }

    @Test func aRenewalsReceiptSaysItIsARenewal() throws {
        var order = order(.usd, language: nil, price: 1_800, shipping: 500)
        order.isRenewal = true
        let mail = receipt(order)
        #expect(mail.subject == "Your subscription renewed: receipt for order SF-000042 from Storefront")
        #expect(mail.text.contains("Your subscription renewed. This delivery is paid, and we will tell you when it ships."))
        #expect(try #require(mail.html).contains("Your subscription renewed."))
        order.language = "de-DE"
        #expect(receipt(order).subject == "Ihr Abo wurde verlängert: Quittung für Bestellung SF-000042 bei Storefront")
    }

    @Test func aJapaneseReceiptWritesYenWithoutDecimals() {
        let mail = receipt(order(.jpy, language: "ja-JP", price: 10_000, shipping: 1_500), to: "")
        #expect(mail.subject == "Storefront ご注文SF-000042の領収書")
        #expect(mail.text.hasPrefix("お客様\n"), "\(mail.text)")
        #expect(mail.text.contains("ご注文ありがとうございます。"), "\(mail.text)")
        let total = mail.text.split(separator: "\n").first { $0.contains("合計") && !$0.contains("小計") }
        #expect(total?.hasSuffix("￥21,500") == true || total?.hasSuffix("¥21,500") == true, "\(mail.text)")
    }

    @Test func anOrderThatKeptNoLanguageIsMailedInTheShopsEnglish() {
        let mail = receipt(order(.usd, language: nil, price: 1_800, shipping: 500))
        #expect(mail.subject == "Your receipt for order SF-000042 from Storefront")
        #expect(mail.text.contains("\n  Total               $41.00\n"), "\(mail.text)")
    }

    @Test func aCodeAskedForInAFrenchSessionIsMailedInFrench() throws {
        let mail = CodeMail.compose(
            code: "123456", purpose: .signIn, to: "lea@example.fr", shop: "Storefront", sender: sender, at: Self.now, messageID: "<c@shop>",
            lifetime: 600, locale: "fr-FR")
        #expect(mail.subject == "Votre code pour Storefront")
        #expect(
            mail.text.components(separatedBy: "\n") == [
                "Bonjour,", "", "Votre code pour vous connecter à Storefront\u{A0}:", "", "    123456", "",
                "Il fonctionne une fois, pendant les 10 prochaines minutes. Si vous ne l’avez pas demandé, ignorez ce message\u{A0}: rien ne change sans lui.",
                "", "— Storefront",
            ], "\(mail.text)")
        // Its HTML part says the same, the code large, in French, with nothing to fetch or run.
        let html = try #require(mail.html)
        #expect(html.contains("<html lang=\"fr\">") && html.contains(">123456</p>") && html.contains("pendant les 10 prochaines minutes"))
        #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("Reply"))
    }

    @Test func aSubscriptionBoughtInSpanishIsToldOfAFailedRenewalInSpanishWithItsDay() {
        var subscription = Subscription(
            id: "sub_1", customerID: "acct_1", productID: "coffee", quantity: 1, intervalWeeks: 2, status: .pastDue, period: 3,
            renewsAt: Self.now, dueAt: Self.now.addingTimeInterval(2 * 86_400), failedAttempts: 1, cardID: "card_1",
            cardDescription: "Visa ••4242", shipTo: Fixtures.jane, shippingMethodID: "standard")
        subscription.language = "es-ES"
        let entry = SubscriptionMailEntry(
            subscriptionID: "sub_1", sequence: 4,
            event: SubscriptionEvent(at: Self.now, actor: "renewals", kind: "failed", detail: "period 3: Your card was declined."),
            recipient: MailAddress(name: "Ana", address: "ana@example.es"), attempts: 0)
        let mail = SubscriptionMail.compose(
            entry, subscription: subscription, product: "Compile-Time Coffee", shop: .standard(), sender: sender, manage: nil)
        #expect(mail.subject == "No se pudo renovar su suscripción a Compile-Time Coffee")
        let lines = mail.text.components(separatedBy: "\n")
        #expect(lines.first == "Hola, Ana:")
        #expect(lines.contains("No pudimos cobrar a Visa ••4242 su próxima entrega de Compile-Time Coffee:"), "\(mail.text)")
        #expect(lines.contains("  Your card was declined."), "the bank's words as they came")
        let day = FormatLocale(language: .spanish, region: "ES").day(Self.now.addingTimeInterval(2 * 86_400))
        #expect(
            lines.contains(
                "No se envió ni se cobró nada. Lo intentaremos de nuevo el \(day) (UTC); tras el último intento, la suscripción termina."),
            "\(mail.text)")
    }

    @Test func aKeptLocaleTagChoosesTheWordsAndTheFormats() {
        #expect(Translation.forLocale("de-AT").formats == FormatLocale(language: .german, region: "AT"))
        #expect(Translation.forLocale("ja").language == .japanese)
        #expect(Translation.forLocale("pt-BR").language == .english, "a language the shop does not speak is English")
        #expect(Translation.forLocale(nil).formats == .unitedStates)
        #expect(FormatLocale(language: .french, region: "CA").tag == "fr-CA")
    }
}
