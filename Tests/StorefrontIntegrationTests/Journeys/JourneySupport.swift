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
        // Dollars of any market (`$`, `CA$`), euros and pounds, as English writes them: `-€3.00`.
        guard let match = cleaned.firstMatch(of: /^(.+?)\s{2,}(-?)(?:CA\$|A\$|\$|€|£)([0-9,]+)\.([0-9]{2})$/) else { continue }
        let whole = Int(match.output.3.replacingOccurrences(of: ",", with: "")) ?? 0
        found[String(match.output.1)] = (whole * 100 + (Int(match.output.4) ?? 0)) * (match.output.2.isEmpty ? 1 : -1)
    }
    return found
}

/// `storefront` run on a shop's data directory as its merchant would, from a shell beside the server.
struct ShopCommandLine {
    let dataDirectory: String
    var environment: [String: String] = [:]

    func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Subprocess {
        try Subprocess.run(
            try BuiltProduct.requireStorefront(sourceLocation: sourceLocation), arguments + ["--data-dir", dataDirectory],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }

    /// The JSON object a `--json` command prints.
    func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let run = try run(arguments + ["--json"], sourceLocation: sourceLocation)
        try #require(run.status == 0, "storefront \(arguments.joined(separator: " ")): \(run.stderr)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], sourceLocation: sourceLocation)
    }

    func subscription(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try json(["subscriptions", "show", id], sourceLocation: sourceLocation)["subscription"] as? [String: Any])
    }

    /// Every order, oldest first.
    func orders(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let orders = try #require(try json(["orders"], sourceLocation: sourceLocation)["orders"] as? [[String: Any]], sourceLocation: sourceLocation)
        return orders.sorted { ($0["number"] as? String ?? "") < ($1["number"] as? String ?? "") }
    }

    /// Moves the shop's clock `days` on, then runs one renewal pass; whether it or serve's own pass renewed, the shop is
    /// the same after.
    func advanceAndRenew(days: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if days > 0 {
            let moved = try run(["clock", "advance", "--days", "\(days)"], sourceLocation: sourceLocation)
            try #require(moved.status == 0, "clock advance: \(moved.stderr)", sourceLocation: sourceLocation)
        }
        let pass = try run(["subscriptions-worker", "--once"], sourceLocation: sourceLocation)
        try #require(pass.status == 0, "subscriptions-worker: \(pass.stdout) \(pass.stderr)", sourceLocation: sourceLocation)
    }
}

extension TmuxTerminal {
    /// From the shop's list: Compile-Time Coffee's page, subscribe, every two weeks chosen on the sheet's Every row;
    /// returns the sheet, before paying.
    @discardableResult
    func openCoffeeSheetEveryTwoWeeks(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try selectRow(containing: "Compile-Time Coffee")
        try press("Enter")
        try waitFor("Also by subscription: every 1, 2 or 4 weeks", sourceLocation: sourceLocation)
        try press("r")
        try waitFor("Every     week · next", sourceLocation: sourceLocation)
        try press("Up", "Enter")
        try waitFor("Choose", sourceLocation: sourceLocation)
        try selectRow(containing: "2 weeks")
        try press("Enter")
        return try waitFor("Every     2 weeks · next", sourceLocation: sourceLocation)
    }

    /// On the payment sheet: `p`, then Enter at the prompt; returns the screen once the order is paid.
    @discardableResult
    func payOnTheSheet(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try press("p")
        try waitFor("Enter confirm", sourceLocation: sourceLocation)
        try press("Enter")
        return try waitFor("is paid", timeout: .seconds(30), sourceLocation: sourceLocation)
    }
}
