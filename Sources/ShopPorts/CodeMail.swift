import Foundation
import ShopModels

/// The message that carries a code: sent at once through the shop's mail command and never kept or sent again, since
/// the shop keeps only the code's hash. Its subject names the shop and the purpose, never the code.
public enum CodeMail {
    /// What the code is for, in the message's words.
    static func doing(_ purpose: CodePurpose) -> String {
        switch purpose {
        case .signIn: "sign in to"
        case .linkKey: "add a new SSH key to your account at"
        case .verifyEmail: "confirm your email address at"
        }
    }

    public static func compose(
        code: String, purpose: CodePurpose, to recipient: String, shop: String, sender: MailSender, at date: Date, messageID: String,
        lifetime: TimeInterval
    ) -> MailMessage {
        let minutes = Int(lifetime / 60)
        let text = [
            "Hello,", "", "Your code to \(doing(purpose)) \(shop) is:", "", "    \(code)", "",
            "It works once, for the next \(minutes) minutes. If you did not ask for it, ignore this message: nothing changes without it.",
            "", "— \(shop)",
        ]
        return MailMessage(
            from: sender.from, replyTo: sender.replyTo, to: MailAddress(address: recipient), subject: "Your code for \(shop)", date: date,
            messageID: messageID, text: text.joined(separator: "\n"))
    }
}

/// Sends a code's message at once; one that cannot be sent is not tried again: the shopper asks for a new code.
public struct CodeMailer: Sendable {
    private let transport: any MailTransport
    private let sender: MailSender
    private let shop: String
    private let domain: String

    public init(transport: any MailTransport, sender: MailSender, shop: String) {
        self.transport = transport
        self.sender = sender
        self.shop = shop
        domain = sender.from.address.split(separator: "@").last.map(String.init) ?? "storefront.invalid"
    }

    public func send(code: String, purpose: CodePurpose, to recipient: String, at date: Date, lifetime: TimeInterval = 600)
        async throws(MailTransportError)
    {
        let message = CodeMail.compose(
            code: code, purpose: purpose, to: recipient, shop: shop, sender: sender, at: date, messageID: "<code-\(UUID().uuidString)@\(domain)>",
            lifetime: lifetime)
        try await transport.send(message)
    }
}
