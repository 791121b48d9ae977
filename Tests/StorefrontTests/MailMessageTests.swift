import Foundation
import ShopModels
import Testing

/// The messages the shop mails: RFC 5322 headers a mail client reads, names and subjects encoded, nothing typed
/// able to start a header or add a recipient, and a UTF-8 body in quoted-printable.
@Suite("Mail messages")
struct MailMessageTests {
    static let date = Date(timeIntervalSince1970: 1_795_339_800)

    func message(toName: String = "Jane Appleseed", subject: String = "Your receipt for SF-000001", text: String = "Thank you.") -> MailMessage {
        MailMessage(
            from: MailAddress(name: "Storefront", address: "shop@example.com"), replyTo: MailAddress(address: "help@example.com"),
            to: MailAddress(name: toName, address: "jane@example.com"), subject: subject, date: Self.date,
            messageID: "<SF-000001.receipt.abc@storefront.example.com>", text: text
        )
    }

    @Test func headersAreTheOnesAMailClientReads() {
        let text = message().rfc5322
        let headers = text.components(separatedBy: "\n\n")[0].split(separator: "\n").map(String.init)
        #expect(
            headers == [
                "From: Storefront <shop@example.com>",
                "To: Jane Appleseed <jane@example.com>",
                "Reply-To: <help@example.com>",
                "Subject: Your receipt for SF-000001",
                "Date: Sun, 22 Nov 2026 09:30:00 +0000",
                "Message-ID: <SF-000001.receipt.abc@storefront.example.com>",
                "MIME-Version: 1.0",
                "Content-Type: text/plain; charset=utf-8",
                "Content-Transfer-Encoding: quoted-printable",
            ])
    }

    @Test func aNameWithALineBreakOrAngleBracketsCannotAddAHeaderOrARecipient() {
        let text = message(toName: "Eve\nBcc: all@example.com, <x@evil.example>").rfc5322
        let headerBlock = text.components(separatedBy: "\n\n")[0]
        #expect(!headerBlock.contains("Bcc:"), "the line break became a space, and the name is encoded")
        #expect(!headerBlock.contains("evil.example"))
        let to = headerBlock.split(separator: "\n").first { $0.hasPrefix("To: ") }
        #expect(to?.hasPrefix("To: =?UTF-8?B?") == true && to?.hasSuffix(" <jane@example.com>") == true)
    }

    /// Every mailbox header, not only To: a name with CR, LF or both adds no header and no recipient anywhere.
    @Test(arguments: ["\r\n", "\n", "\r"])
    func aNameWithALineEndInFromToOrReplyToAddsNoHeader(_ end: String) {
        let message = MailMessage(
            from: MailAddress(name: "Storefront\(end)Bcc: from@evil.example", address: "shop@example.com"),
            replyTo: MailAddress(name: "Help\(end)X-Injected: yes", address: "help@example.com"),
            to: MailAddress(name: "Jane\(end)Cc: to@evil.example", address: "jane@example.com"),
            subject: "Receipt\(end)X-Subject-Injected: yes", date: Date(timeIntervalSince1970: 1_795_339_800), messageID: "<m@example.com>",
            text: "Thank you."
        )
        let headers = message.rfc5322.components(separatedBy: "\n\n")[0]
        #expect(!headers.contains("\r"), "no carriage return in any header")
        let lines = headers.split(separator: "\n").map(String.init)
        for injected in ["Bcc:", "Cc:", "X-Injected:", "X-Subject-Injected:"] {
            #expect(!lines.contains { $0.hasPrefix(injected) }, "\(injected) became a header: \(headers)")
        }
        #expect(!headers.contains("evil.example"), "no recipient added: \(headers)")
        for name in ["From: ", "To: ", "Reply-To: "] {
            let line = lines.first { $0.hasPrefix(name) } ?? ""
            #expect(line.hasPrefix(name + "=?UTF-8?B?") && line.filter { $0 == "<" }.count == 1, "\(line)")
            // Decoded as a mail client decodes it, the name is one line: the encoding must not carry the line end.
            let shown = Self.decodedWords(line)
            #expect(!shown.contains("\r") && !shown.contains("\n") && shown.contains(" "), "\(name)\(shown.debugDescription)")
        }
    }

    /// The text of a header's RFC 2047 encoded words (`=?UTF-8?B?…?=`), decoded and joined as a mail client shows them.
    static func decodedWords(_ header: String) -> String {
        header.matches(of: /=\?UTF-8\?B\?([A-Za-z0-9+\/=]*)\?=/).compactMap { match in
            Data(base64Encoded: String(match.output.1)).map { String(decoding: $0, as: UTF8.self) }
        }.joined()
    }

    @Test func nonASCIISubjectsAreEncodedWordsOfAtMost75Characters() throws {
        let subject = "Votre reçu pour la commande SF-000001 — merci beaucoup, à bientôt chez Storefront"
        let header = message(subject: subject).rfc5322.components(separatedBy: "\n\n")[0]
        let start = try #require(header.range(of: "Subject: "))
        let folded = header[start.upperBound...].prefix { _ in true }.split(separator: "\n").prefix { $0.hasPrefix(" ") || $0.hasPrefix("=?") }
        #expect(folded.count >= 2, "folded over lines")
        var decoded = ""
        for word in folded.map({ $0.trimmingCharacters(in: .whitespaces) }) {
            #expect(word.count <= 75 && word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            decoded += String(decoding: try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))), as: UTF8.self)
        }
        #expect(decoded == subject)
    }

    @Test func theBodyIsQuotedPrintableWithShortLines() {
        let body = message(text: "Total: 12,50 € — \(String(repeating: "x", count: 100))\ntrailing space ").rfc5322.components(separatedBy: "\n\n")[1]
        #expect(body.contains("12,50 =E2=82=AC =E2=80=94"))
        #expect(body.split(separator: "\n").allSatisfy { $0.count <= 76 })
        #expect(body.contains("trailing space=20"))
    }

    @Test func anAddressWithHeaderCharactersIsRefusedAtEntry() {
        for address in ["jane@example.com, eve@evil.example", "jane@example.com>", "\"jane\"@example.com", "jane@exa\nmple.com"] {
            #expect(Contact.emailProblem(address) != nil, "\(address)")
        }
        #expect(Contact.emailProblem("jane.o'neil+shop@example.co.uk") == nil)
    }
}
