import Foundation
import StorefrontTesting
import Testing

/// The reminder before a renewal, in real processes with the shop's clock moved: a subscriber on SSH, the mail through
/// msmtp to an SMTP sink, read by Python's `email`, and its links opened on `storefront web`. A GET only asks; a
/// foreign page's POST is refused; the page's own POST skips exactly the reminded renewal; a mail client's RFC 8058
/// one-click stops the reminders; a link of a renewal gone by, altered, or past its end changes nothing.
@Suite("Journey: the renewal reminder", .ownThreads)
struct RenewalReminderJourneyTests {
    let root = TemporaryDirectory.make().path
    static let environment = ["STOREFRONT_CODE_KEY": Data(repeating: 9, count: 32).base64EncodedString()]

    /// One HTTP exchange with the web front: `origin` as a browser would send it (nil: none, as a mail client's POST).
    func request(_ method: String, _ path: String, port: Int, origin: String? = nil, form: String? = nil) throws -> WebSignInTests.Page {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let origin { text += "Origin: \(origin)\r\n" }
        if let form { text += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n" }
        let answer = try LocalStripe.exchange(text + "\r\n" + (form ?? ""), port: port)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        return WebSignInTests.Page(head: parts[0], body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func theRemindersSkipSkipsThatRenewalAndOneClickStopsTheReminders() throws {
        let mail = try JourneyMail(in: root)
        let shop = try ServeProcess(environment: Self.environment)
        let web = try ServeProcess(environment: Self.environment, command: ["web", "--listen", "127.0.0.1:0"], dataDirectory: shop.dataDirectory)
        let origin = "http://127.0.0.1:\(web.port)"
        let mailEnvironment = Self.environment.merging(["STOREFRONT_WEB_ORIGIN": origin]) { $1 }
        func inbox() throws -> [[String: String]] { try mail.deliver(dataDirectory: shop.dataDirectory, environment: mailEnvironment) }
        let cli = ShopCommandLine(dataDirectory: shop.dataDirectory)
        let key = try shop.makeClientKey("sam")
        let terminal = try TmuxTerminal(columns: 120, rows: 34)

        // Subscribe every two weeks over SSH.
        try shop.connect(terminal, key: key)
        try terminal.openCoffeeSheetEveryTwoWeeks()
        try terminal.payOnTheSheet()
        try shop.leave(terminal)
        let number = try #require(try cli.orders().first?["number"] as? String)
        let id = "sub_\(number)"
        #expect(try inbox().count == 1, "the receipt")

        // Ten days on, nothing; eleven (three before the renewal), the reminder, once however often the worker passes.
        try cli.advanceAndRenew(days: 10)
        #expect(try inbox().isEmpty)
        try cli.advanceAndRenew(days: 1)
        try cli.advanceAndRenew(days: 0)
        let reminders = try inbox()
        try #require(reminders.count == 1, "\(reminders)")
        let reminder = reminders[0]
        #expect(reminder["subject"]?.hasPrefix("Your Compile-Time Coffee — Whole bean · 250 g subscription renews on ") == true, "\(reminder)")
        #expect(reminder["type"] == "multipart/alternative" && reminder["html"]?.contains("Skip this delivery</a>") == true)
        let body = reminder["body"] ?? ""
        func link(_ label: String, in text: String) throws -> String {
            let line = try #require(text.split(whereSeparator: \.isNewline).first { $0.hasPrefix(label + ": ") }, "\(label) in \(text)")
            return String(line.dropFirst(label.count + 2).dropFirst(origin.count))
        }
        let skip = try link("Skip this delivery", in: body)
        let stop = try link("Stop these reminders", in: body)
        #expect(
            reminder["list-unsubscribe"] == "<\(origin)\(stop)>" && reminder["list-unsubscribe-post"] == "List-Unsubscribe=One-Click", "\(reminder)")

        // A GET asks and changes nothing (a mail scanner follows links); its form carries the link's parts.
        let asked = try request("GET", skip, port: web.port)
        #expect(asked.status == 200 && asked.body.contains("Skip your delivery of Compile-Time Coffee"), "\(asked.head)\n\(asked.body)")
        #expect(asked.head.contains("Referrer-Policy: no-referrer"))
        #expect(try cli.subscription(id)["skipsNext"] as? Bool == false)
        var fields: [String] = []
        for name in ["p", "e", "s"] {
            let value = try #require(
                asked.body.firstMatch(of: Regex("name=\"\(name)\" value=\"([^\"]+)\"")).map { String($0.output[1].substring ?? "") })
            fields.append("\(name)=\(value)")
        }
        let form = fields.joined(separator: "&")
        let action = String(skip.prefix { $0 != "?" })
        // Another site's page, however it came by the link, cannot press the button.
        let forged = try request("POST", action, port: web.port, origin: "https://evil.example", form: form)
        let skippingAfterForgery = try cli.subscription(id)["skipsNext"] as? Bool
        #expect(forged.status == 403 && skippingAfterForgery == false, "\(forged.head)")
        // The page's own button skips it.
        let done = try request("POST", action, port: web.port, origin: origin, form: form)
        #expect(done.status == 200 && done.body.contains("Skipped: your delivery of Compile-Time Coffee"), "\(done.head)\n\(done.body)")
        #expect(try cli.subscription(id)["skipsNext"] as? Bool == true)

        // The reminded renewal comes: nothing charged; the period passes.
        try cli.advanceAndRenew(days: 3)
        let period = try cli.subscription(id)["period"] as? Int
        #expect(try cli.orders().count == 1 && period == 3, "a skipped delivery is no order")
        // The same link now names a renewal gone by: refused, and the next renewal is not skipped.
        let late = try request("POST", action, port: web.port, origin: origin, form: form)
        #expect(late.status == 409 && late.body.contains("That delivery has been renewed already"), "\(late.head)\n\(late.body)")
        #expect(try cli.subscription(id)["skipsNext"] as? Bool == false)

        // The next reminder; its List-Unsubscribe takes a mail client's one-click POST, with no origin.
        try cli.advanceAndRenew(days: 11)
        let second = try #require(try inbox().first)
        let unsubscribe = String((second["list-unsubscribe"] ?? "").dropFirst(1 + origin.count).dropLast())
        let clicked = try request("POST", unsubscribe, port: web.port, form: "List-Unsubscribe=One-Click")
        let reminding = try cli.subscription(id)["reminders"] as? Bool
        #expect(clicked.status == 200 && reminding == false, "\(clicked.head)\n\(clicked.body)")
        // It renews, and the period after is not reminded.
        try cli.advanceAndRenew(days: 3)
        #expect(try cli.orders().count == 2, "the renewal after the skip")
        #expect(try inbox().map { $0["subject"] ?? "" }.allSatisfy { $0.hasPrefix("Your subscription renewed") }, "its receipt alone")
        try cli.advanceAndRenew(days: 11)
        #expect(try inbox().isEmpty, "no reminder once stopped")

        // Altered, it opens nothing; past its end (a month after its renewal), it is gone.
        let altered = skip.replacingOccurrences(of: "/skip?", with: "/cancel?")
        #expect(try request("GET", altered, port: web.port).status == 404)
        try cli.advanceAndRenew(days: 30)
        let expired = try request("GET", skip, port: web.port)
        #expect(expired.status == 410 && expired.body.contains("This link has expired"), "\(expired.head)")
        #expect(try cli.run(["clock", "reset"]).status == 0)
    }
}
