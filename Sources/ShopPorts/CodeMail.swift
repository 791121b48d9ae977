import Foundation
import ShopLanguages
import ShopModels

/// The message that carries a code: sent at once through the shop's mail command and never kept or sent again, since
/// the shop keeps only the code's hash. Its subject names the shop and the purpose, never the code.
public enum CodeMail {
    /// What the code is for, as the message says it.
    static func purpose(_ purpose: CodePurpose, shop: String) -> Localized {
        switch purpose {
        case .signIn: Localized("Your code to sign in to \(shop) is:")
        case .linkKey: Localized("Your code to add a new SSH key to your account at \(shop) is:")
        case .verifyEmail: Localized("Your code to confirm your email address at \(shop) is:")
        }
    }

    /// The message carrying `code`, in the words of `locale` (`de-DE`; nil for English).
    public static func compose(
        code: String, purpose: CodePurpose, to recipient: String, shop: String, sender: MailSender, at date: Date, messageID: String,
        lifetime: TimeInterval, locale: String? = nil
    ) -> MailMessage {
        let words = MailWords(locale: locale)
        let minutes = Int(lifetime / 60)
        let text = [
            words.greeting(""), "", words(Self.purpose(purpose, shop: shop)), "", "    \(code)", "",
            words(
                .plural(
                    "It works once, for the next \(minutes) minute. If you did not ask for it, ignore this message: nothing changes without it.",
                    "It works once, for the next \(minutes) minutes. If you did not ask for it, ignore this message: nothing changes without it.",
                    count: minutes)),
            "", "— \(shop)",
        ]
        let subject = words(Localized("Your code for \(shop)"))
        // The code large and spaced, to read off a phone and type on another screen.
        let html = MailHTML.document(
            words: words, title: subject, shop: shop, greeting: words.greeting(""),
            content: """
                <p style="margin:0 0 8px">\(MailHTML.escaped(text[2]))</p>
                <p style="margin:0 0 16px;font-size:32px;font-weight:700;letter-spacing:6px;font-family:ui-monospace,Menlo,Consolas,monospace">\(MailHTML.escaped(code))</p>
                <p style="margin:0 0 24px">\(MailHTML.escaped(text[6]))</p>
                """, closing: false)
        return MailMessage(
            from: sender.from, replyTo: sender.replyTo, to: MailAddress(address: recipient), subject: subject, date: date, messageID: messageID,
            text: text.joined(separator: "\n"), html: html)
    }
}

/// Sends a code's message at once; one that cannot be sent is not tried again: the shopper asks for a new code.
public struct CodeMailer: Sendable {
    private let transport: any MailTransport
    private let sender: MailSender
    private let shop: String
    private let domain: String
    /// The locale its messages are written in (`de-DE`): the session's or the browser's; nil for English.
    private var locale: String?

    public init(transport: any MailTransport, sender: MailSender, shop: String) {
        self.transport = transport
        self.sender = sender
        self.shop = shop
        domain = sender.from.address.split(separator: "@").last.map(String.init) ?? "storefront.invalid"
    }

    /// This mailer, writing in `locale` (`de-AT`; nil for English).
    public func speaking(_ locale: String?) -> CodeMailer {
        var copy = self
        copy.locale = locale
        return copy
    }

    public func send(code: String, purpose: CodePurpose, to recipient: String, at date: Date, lifetime: TimeInterval = 600)
        async throws(MailTransportError)
    {
        let message = CodeMail.compose(
            code: code, purpose: purpose, to: recipient, shop: shop, sender: sender, at: date, messageID: "<code-\(UUID().uuidString)@\(domain)>",
            lifetime: lifetime, locale: locale)
        try await transport.send(message)
    }
}
