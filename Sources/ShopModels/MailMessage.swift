import Foundation

/// A mailbox: a display name and an address. The address is checked where it enters the shop
/// (`Contact.emailProblem`); the name may be anything and is always encoded, never pasted into a header.
public struct MailAddress: Hashable, Sendable {
    public var name: String
    public var address: String

    public init(name: String = "", address: String) {
        self.name = name
        self.address = address
    }

    /// `"=?UTF-8?B?…?=" <address>`, or the bare address without a name.
    var header: String {
        let cleaned = MailMessage.oneLine(name)
        return cleaned.isEmpty ? "<\(address)>" : "\(MailMessage.encodedWords(cleaned)) <\(address)>"
    }
}

/// One message for a shopper, as RFC 5322 text: headers a person's mail client reads (From, To, Subject, Date,
/// Message-ID) and a UTF-8 plain-text body in quoted-printable, so it crosses any mail system unchanged.
public struct MailMessage: Hashable, Sendable {
    public var from: MailAddress
    public var replyTo: MailAddress?
    public var to: MailAddress
    public var subject: String
    public var date: Date
    /// `<id@host>`: the same message sent again carries the same id, so a resend after a crash is recognisable.
    public var messageID: String
    public var text: String
    /// The same message as HTML, for clients that show it (`multipart/alternative`, after the text); nil for text only.
    public var html: String?
    /// Where a mail client stops messages of this kind in one click (`List-Unsubscribe`, with RFC 8058's
    /// `List-Unsubscribe-Post`): an HTTPS or HTTP address that takes a POST; nil for a message one cannot stop.
    public var unsubscribe: String?

    public init(
        from: MailAddress, replyTo: MailAddress? = nil, to: MailAddress, subject: String, date: Date, messageID: String, text: String,
        html: String? = nil
    ) {
        self.html = html
        self.from = from
        self.replyTo = replyTo
        self.to = to
        self.subject = subject
        self.date = date
        self.messageID = messageID
        self.text = text
    }

    /// The message as `sendmail -t` reads it: headers, a blank line, the body; lines end in LF, as the local
    /// submission programs (sendmail, msmtp, Postfix) expect, and they turn them into CRLF on the wire.
    public var rfc5322: String {
        var headers = [
            "From: \(from.header)",
            "To: \(to.header)",
        ]
        if let replyTo { headers.append("Reply-To: \(replyTo.header)") }
        headers += [
            "Subject: \(Self.encodedWords(Self.oneLine(subject)))",
            "Date: \(Self.dateHeader(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
        ]
        if let unsubscribe {
            headers += ["List-Unsubscribe: <\(Self.oneLine(unsubscribe))>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"]
        }
        guard let html else {
            headers += ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable"]
            return headers.joined(separator: "\n") + "\n\n" + Self.quotedPrintable(text) + "\n"
        }
        // Quoted-printable always writes "=" as "=3D", so a boundary that starts with "=_" never occurs in either part.
        let boundary =
            "=_sf_"
            + String(
                UInt64(truncatingIfNeeded: messageID.utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }), radix: 16)
        headers.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
        let part = { (type: String, body: String) in
            "--\(boundary)\nContent-Type: \(type); charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n\(Self.quotedPrintable(body))\n"
        }
        return headers.joined(separator: "\n") + "\n\n" + part("text/plain", text) + part("text/html", html) + "--\(boundary)--\n"
    }

    /// `text` on one line: control characters (CR and LF among them) become spaces, so nothing typed can start
    /// a header of its own.
    public static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
            .trimmingCharacters(in: .whitespaces)
    }

    /// `text` as it may stand in a header: as it is when it is plain printable ASCII without the characters that
    /// mean something in an address, otherwise as RFC 2047 encoded words of at most 75 characters, folded.
    static func encodedWords(_ text: String) -> String {
        let special = Set("()<>[]:;@\\,.\"=?")
        if text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 32 && $0.value < 127 }), !text.contains(where: { special.contains($0) }),
            text.count <= 60
        {
            return text
        }
        // Base64 words: whole characters per word (never a split UTF-8 sequence), 45 bytes at most (60 in base64).
        var words: [String] = []
        var chunk = Data()
        for character in text {
            let bytes = Data(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=")
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=") }
        return words.joined(separator: "\n ")
    }

    /// RFC 5322's date: `Thu, 26 Nov 2026 01:05:00 +0000`, in English whatever the machine's locale.
    static func dateHeader(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }

    /// Quoted-printable (RFC 2045): printable ASCII as it is, every other byte as `=XX`, lines kept under 76
    /// characters with soft breaks, a space or tab before a line's end encoded.
    static func quotedPrintable(_ text: String) -> String {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { line -> String in
            let bytes = Array(line.utf8)
            var out = ""
            var width = 0
            for (index, byte) in bytes.enumerated() {
                let isLast = index == bytes.count - 1
                let plain = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || ((byte == 32 || byte == 9) && !isLast)
                let piece = plain ? String(UnicodeScalar(byte)) : String(format: "=%02X", byte)
                if width + piece.count > 75 {
                    out += "=\n"
                    width = 0
                }
                out += piece
                width += piece.count
            }
            return out
        }.joined(separator: "\n")
    }
}
