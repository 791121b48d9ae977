import Foundation
import ShopLanguages
import ShopModels

/// The HTML part of every message the shop sends: one page within 600 px, inline styles only, no images, no scripts
/// and no remote anything; colours left to the client, so it reads in light and in dark.
enum MailHTML {
    /// A link drawn as a button, which a thumb finds on a phone.
    static func button(_ label: String, to link: String) -> String {
        "<p style=\"margin:0 0 12px\"><a href=\"\(escaped(link))\" style=\"display:inline-block;padding:10px 16px;border:1px solid currentColor;"
            + "border-radius:6px;text-decoration:none;font-weight:700\">\(escaped(label))</a></p>"
    }

    /// The whole page: the shop's name, the greeting, `content` (HTML already), and the closing (the invitation to
    /// reply, where `closing`; the shop's name alone otherwise, as a code's message ends).
    static func document(words: MailWords, title: String, shop: String, greeting: String, content: String, closing: Bool = true) -> String {
        let language = words.translation.language == .pseudo ? "en" : words.translation.language.tag
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
            \(content)
            <p style="margin:0;opacity:0.8">\(closing ? escaped(words(Localized("Questions? Reply to this message."))) + "<br>" : "")— \(escaped(shop))</p>
            </div>
            </body>
            </html>

            """
    }

    /// A short notice's HTML from its text: paragraphs where the text has blank lines, its indented lines (an order's
    /// lines, a reason) set apart, and each address in it a link; `buttons` after them, then the paragraphs of `after`.
    static func notice(
        _ paragraphs: [String], words: MailWords, title: String, shop: String, greeting: String, buttons: [(label: String, link: String)] = [],
        after: [String] = []
    ) -> String {
        let content = [blocks(paragraphs), buttons.map { button($0.label, to: $0.link) }.joined(separator: "\n"), blocks(after)]
        return document(
            words: words, title: title, shop: shop, greeting: greeting,
            content: content.filter { !$0.isEmpty }.joined(separator: "\n") + "\n<p style=\"margin:12px 0 0\"></p>")
    }

    /// Text lines as paragraphs: one where the text has a blank line, indented lines set apart.
    private static func blocks(_ paragraphs: [String]) -> String {
        var blocks: [String] = []
        var lines: [String] = []
        func close() {
            guard !lines.isEmpty else { return }
            let indented = lines.allSatisfy { $0.hasPrefix("  ") }
            let inner = lines.map { linked($0.trimmingCharacters(in: .whitespaces)) }.joined(separator: "<br>")
            blocks.append(
                indented
                    ? "<p style=\"margin:0 0 16px;padding-left:12px;border-left:3px solid rgba(128,128,128,0.5)\">\(inner)</p>"
                    : "<p style=\"margin:0 0 16px\">\(inner)</p>")
            lines = []
        }
        for line in paragraphs {
            if line.isEmpty {
                close()
            } else if line.hasPrefix("  ") != (lines.first?.hasPrefix("  ") ?? line.hasPrefix("  ")) {
                close()
                lines = [line]
            } else {
                lines.append(line)
            }
        }
        close()
        return blocks.joined(separator: "\n")
    }

    /// `text` escaped, with each `http://` or `https://` address in it a link.
    static func linked(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let match = rest.firstMatch(of: /https?:\/\/[^\s<>"]+/) {
            out += escaped(String(rest[..<match.range.lowerBound]))
            let link = String(match.output)
            // A long address breaks anywhere, so a phone's narrow column never scrolls sideways for it.
            out += "<a href=\"\(escaped(link))\" style=\"word-break:break-all\">\(escaped(link))</a>"
            rest = rest[match.range.upperBound...]
        }
        return out + escaped(String(rest))
    }

    static func escaped(_ text: String) -> String { HTMLText.escaped(text) }
}
