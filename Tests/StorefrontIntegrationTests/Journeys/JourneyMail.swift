import Foundation
import LiveObjects
import Testing

/// The mail a journey's shop sends, as its people receive it: an SMTP sink (aiosmtpd) reached through msmtp, and
/// `storefront mail-worker --once` run when the person would look in their inbox, so each message arrives at a known
/// step instead of on the server's ten-second pass.
final class JourneyMail: LiveObject {
    let sink: MailDeliveryTests.Sink
    /// The `--mail-command` that reaches the sink.
    let command: String
    private var seen = 0

    init(in root: String) throws {
        sink = try MailDeliveryTests.Sink(directory: root + "/sink")
        command = try MailDeliveryTests().msmtp(sink, in: root)
    }

    deinit { sink.stop() }

    /// Sends what the shop in `dataDirectory` has due, and returns the messages that arrived since the last look.
    func deliver(
        dataDirectory: String, environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [[String: String]] {
        let pass = try MailDeliveryTests().worker(try BuiltProduct.requireStorefront(), dataDirectory, command, environment: environment)
        try #require(pass.status == 0, "mail-worker: \(pass.stderr)", sourceLocation: sourceLocation)
        let messages = try sink.messages()
        defer { seen = messages.count }
        return Array(messages.dropFirst(seen))
    }
}

/// The amounts a screen or a message shows, by the label at the start of their line: "Subtotal $54.00" gives 5400.
func amounts(in text: String) -> [String: Int] {
    var found: [String: Int] = [:]
    for line in text.split(whereSeparator: \.isNewline) {
        let cleaned = line.replacingOccurrences(of: "│", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let match = cleaned.firstMatch(of: /^(.+?)\s{2,}-?\$([0-9,]+)\.([0-9]{2})$/) else { continue }
        let whole = Int(match.output.2.replacingOccurrences(of: ",", with: "")) ?? 0
        found[String(match.output.1)] = (whole * 100 + (Int(match.output.3) ?? 0)) * (cleaned.contains("-$") ? -1 : 1)
    }
    return found
}
