import Foundation
import LiveObjects
import StorefrontTesting
import Testing

/// The shoppers' messages end to end: written to the outbox with each change, sent by `storefront mail-worker`
/// through msmtp (Debian `msmtp`) to a loopback SMTP sink (Debian `python3-aiosmtpd`), parsed by Python's `email`.
@Suite("Mail to shoppers", .serialized, .ownThreads)
struct MailDeliveryTests {
    /// The sink, started on `port` (0: a free one), keeping what it receives in `directory`.
    final class Sink: LiveObject {
        let directory: String
        let pid: pid_t
        let port: Int

        init(directory: String, port: Int = 0) throws {
            self.directory = directory
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/smtp-sink.py").path
            let (child, line) = try LocalStripe.spawnAnnouncing(
                ["/usr/bin/python3", script, directory, String(port)], errorFile: directory + "/sink.err")
            guard let line, let announced = Int(line.dropFirst("listening ".count)) else {
                let why = (try? String(contentsOfFile: directory + "/sink.err", encoding: .utf8)) ?? ""
                Issue.record("the SMTP sink (Debian python3-aiosmtpd) did not start: \(why)")
                throw TmuxError(message: "no SMTP sink")
            }
            pid = child
            self.port = announced
        }

        func stop() { LocalStripe.stopServer(pid) }
        deinit { stop() }

        /// Each message received, parsed by Python's email package: headers and the decoded text.
        func messages() throws -> [[String: String]] {
            let parse = """
                import email, email.policy, glob, json, sys
                out = []
                for path in sorted(glob.glob(sys.argv[1] + "/*.eml")):
                    message = email.message_from_bytes(open(path, "rb").read(), policy=email.policy.default)
                    text = message.get_body(preferencelist=("plain",))
                    html = message.get_body(preferencelist=("html",))
                    out.append({"from": str(message["From"]), "to": str(message["To"]), "subject": str(message["Subject"]),
                                "id": str(message["Message-ID"]), "date": str(message["Date"]), "body": text.get_content(),
                                "html": html.get_content() if html is not None else "", "type": message.get_content_type(),
                                "list-unsubscribe": str(message["List-Unsubscribe"] or ""),
                                "list-unsubscribe-post": str(message["List-Unsubscribe-Post"] or "")})
                print(json.dumps(out))
                """
            let run = try Subprocess.run("/usr/bin/python3", ["-c", parse, directory])
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: String]], "\(run.stderr)")
        }
    }

    /// msmtp's configuration for `sink`, mode 0600 as msmtp requires.
    func msmtp(_ sink: Sink, in directory: String) throws -> String {
        let path = directory + "/msmtprc"
        try "account default\nhost 127.0.0.1\nport \(sink.port)\nfrom shop@example.com\nauth off\ntls off\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/msmtp") else {
            Issue.record("msmtp is missing: install Debian's msmtp")
            throw TmuxError(message: "no msmtp")
        }
        return "/usr/bin/msmtp -C \(path) -t"
    }

    func worker(_ binary: String, _ data: String, _ command: String, environment: [String: String] = [:]) throws -> Subprocess {
        try Subprocess.run(
            binary,
            [
                "mail-worker", "--once", "--retry-after", "0", "--data-dir", data, "--mail-command", command,
                "--mail-from", "shop@example.com", "--mail-reply-to", "help@example.com",
            ],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }

    @Test func aPurchaseAShipmentAndARefundEachMailOneReadableMessage() throws {
        let binary = try BuiltProduct.requireStorefront()
        let root = TemporaryDirectory.make().path
        let data = root + "/data"
        let sink = try Sink(directory: root + "/sink")
        let command = try msmtp(sink, in: root)
        let bought = try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "enter,a,a,c,enter,p,enter"])
        try #require(bought.status == 0, "\(bought.stderr)")
        #expect(
            try Subprocess.run(
                binary,
                [
                    "orders", "ship", "SF-000001", "--carrier", "UPS", "--tracking-number", "1Z999", "--tracking-url", "https://ups.example/1Z999",
                    "--data-dir", data,
                ]
            ).status == 0)
        #expect(
            try Subprocess.run(binary, ["orders", "refund", "SF-000001", "--line", "keycap-dusk:1", "--reason", "arrived bent", "--data-dir", data])
                .status == 0)

        let sent = try worker(binary, data, command)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout == "sent MSG-000001\nsent MSG-000002\nsent MSG-000003\n")
        let messages = try sink.messages()
        #expect(
            messages.map { $0["subject"] } == [
                "Your receipt for order SF-000001 from Storefront", "Your order SF-000001 has shipped", "A refund of $68.64 for order SF-000001",
            ])
        #expect(messages.allSatisfy { $0["from"] == "Storefront <shop@example.com>" && $0["to"] == "Jane Appleseed <jane@example.com>" })
        #expect(
            messages[0]["body"]?.contains("2 × Dusk Keycap Set") == true && messages[0]["body"]?.contains("$137.28") == true,
            "\(messages[0]["body"] ?? "")")
        #expect(messages[0]["body"]?.contains("Visa ••4242") == true)
        // The receipt is multipart/alternative, its HTML the same order laid out: the lines, the tax by its jurisdiction, the
        // total; nothing fetched from elsewhere, nothing run. The notices come as HTML too, their links links.
        #expect(messages.map { $0["type"] ?? "" } == ["multipart/alternative", "multipart/alternative", "multipart/alternative"])
        let html = messages[0]["html"] ?? ""
        #expect(html.contains("2 × Dusk Keycap Set") && html.contains("$137.28") && html.contains("US-CA") && html.contains("Visa ••4242"), "\(html)")
        #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("http"), "no scripts, images or remote parts")
        #expect(html.contains("max-width:600px"))
        #expect(messages[1]["body"]?.contains("Tracking number: 1Z999") == true && messages[1]["body"]?.contains("https://ups.example/1Z999") == true)
        #expect(messages[2]["body"]?.contains("Reason: arrived bent") == true)
        #expect(
            messages[1]["html"]?.contains(#"<a href="https://ups.example/1Z999" style="word-break:break-all">"#) == true,
            "\(messages[1]["html"] ?? "")")
        #expect(messages[2]["html"]?.contains("Reason: arrived bent") == true && messages[2]["html"]?.contains("<script") == false)
        #expect(Set(messages.compactMap { $0["id"] }).count == 3)
        // Nothing is due any more: a second pass sends nothing.
        #expect(try worker(binary, data, command).stdout.isEmpty)
        #expect(try sink.messages().count == 3)
    }

    /// msmtp against an SMTP server that accepts the connection and never speaks: the try is killed at
    /// `--mail-timeout` and recorded as failed, and a shop quitting with such a command running is not held.
    @Test func aMailServerThatNeverSpeaksCostsOneTimedOutTryAndHoldsNoQuit() throws {
        let binary = try BuiltProduct.requireStorefront()
        let root = TemporaryDirectory.make().path
        let data = root + "/data"
        // An SMTP server that accepts and never speaks: a listening socket nobody reads.
        let (silent, port) = try OpenSSHServer.boundLoopbackSocket(listening: true)
        defer { close(silent) }
        let rc = root + "/msmtprc"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "account default\nhost 127.0.0.1\nport \(port)\nfrom shop@example.com\nauth off\ntls off\ntimeout 600\n".write(
            toFile: rc, atomically: true, encoding: .utf8)
        chmod(rc, 0o600)
        try #require(try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        let tried = try Subprocess.run(
            binary,
            [
                "mail-worker", "--once", "--data-dir", data, "--mail-command", "/usr/bin/msmtp -C \(rc) -t", "--mail-timeout", "1s", "--mail-from",
                "shop@example.com", "--retry-after", "0",
            ], timeout: .seconds(60))
        #expect(tried.status == 75, "\(tried.stderr)")
        #expect(
            tried.stderr.contains(
                "MSG-000001 not sent, tried again later: the mail command /usr/bin/msmtp was killed: it did not finish within 1.0 seconds"),
            "\(tried.stderr)")
        let listed = try Subprocess.run(binary, ["outbox", "list", "--json", "--data-dir", data])
        #expect(listed.stdout.contains("\"attempts\" : 1") && listed.stdout.contains("was killed"), "\(listed.stdout)")

        // `serve` sending through a command that hangs (its first pass, at start): SIGTERM still stops it, the
        // running command killed, well before the command's own minute.
        let server = try ServeProcess(arguments: ["--mail-command", "/bin/sleep 600", "--mail-from", "shop@example.com"], dataDirectory: data)
        try server.waitForLog(#/mail: sending the shoppers' messages with \/bin\/sleep 600/#)
        #expect(try server.terminate() == 0)
        #expect(server.log.contains("stopped"), "\(server.log)")
        let left = try Subprocess.run("/usr/bin/pgrep", ["-f", "^/bin/sleep 600$"])
        #expect(left.stdout.isEmpty, "the hung command was killed with the shop, not left behind: \(left.stdout)")
    }

    @Test func theSinkDownThenUpGetsEachMessageOnce() throws {
        let binary = try BuiltProduct.requireStorefront()
        let root = TemporaryDirectory.make().path
        let data = root + "/data"
        var sink = try Sink(directory: root + "/sink")
        let command = try msmtp(sink, in: root)
        let port = sink.port
        sink.stop()
        try #require(try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        let down = try worker(binary, data, command)
        #expect(down.status == 75 && down.stderr.contains("MSG-000001 not sent, tried again later"), "\(down.stderr)")
        let listed = try Subprocess.run(binary, ["outbox", "list", "--json", "--data-dir", data])
        #expect(listed.stdout.contains("\"state\" : \"pending\"") && listed.stdout.contains("\"attempts\" : 1"), "\(listed.stdout)")
        let shown = try Subprocess.run(binary, ["outbox", "show", "MSG-000001", "--data-dir", data])
        #expect(
            shown.status == 0 && shown.stdout.contains("Subject: Your receipt for order SF-000001") && shown.stdout.contains("Order SF-000001"),
            "\(shown.stdout)")
        let unknown = try Subprocess.run(binary, ["outbox", "show", "MSG-000009", "--data-dir", data])
        #expect(unknown.status == 65 && unknown.stderr.contains("There is no message MSG-000009."), "\(unknown.stderr)")

        sink = try Sink(directory: root + "/sink", port: port)
        #expect(try worker(binary, data, command).status == 0)
        #expect(try worker(binary, data, command).stdout.isEmpty)
        #expect(try sink.messages().count == 1)
    }

    @Test func aWorkerKilledBetweenSendingAndRecordingSendsOneDuplicateWithTheSameMessageID() throws {
        let binary = try BuiltProduct.requireStorefront()
        let root = TemporaryDirectory.make().path
        let data = root + "/data"
        let sink = try Sink(directory: root + "/sink")
        let command = try msmtp(sink, in: root)
        try #require(try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        #expect(
            try Subprocess.run(binary, ["orders", "ship", "SF-000001", "--carrier", "UPS", "--tracking-number", "1Z", "--data-dir", data]).status == 0
        )
        let killed = try worker(binary, data, command, environment: ["STOREFRONT_FAULT": "kill-after-sending"])
        #expect(killed.status != 0)
        #expect(try sink.messages().count == 1, "the first message went before the kill")
        #expect(try worker(binary, data, command).status == 0)
        let messages = try sink.messages()
        #expect(messages.count == 3, "the first once more, the second once")
        #expect(messages[0]["id"] == messages[1]["id"], "the duplicate carries the same Message-ID")
        #expect(messages[2]["subject"] == "Your order SF-000001 has shipped")
    }

    /// `run` with a mail command sends its own shopper's receipt: the purchase, then quitting, and the receipt is in
    /// the sink once, and the order's page says it was sent.
    @Test func aShopWithAMailCommandSendsItsOwnReceipt() throws {
        let binary = try BuiltProduct.requireStorefront()
        let terminal = try TmuxTerminal()
        let root = terminal.directory.path
        let sink = try Sink(directory: root + "/sink")
        let command = try msmtp(sink, in: root)
        try terminal.type(
            "'\(binary)' --data-dir '\(root)/data' --sandbox-latency-ms 20 --mail-command '\(command)' --mail-from shop@example.com; echo EXIT=$?")
        try terminal.waitForShop()
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        try terminal.waitFor("Thank you")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        #expect(try sink.messages().map { $0["subject"] } == ["Your receipt for order SF-000001 from Storefront"])
        let page = try Subprocess.run(binary, ["headless", "--data-dir", root + "/data", "--size", "100x30", "--keys", "o,enter"])
        #expect(page.stdout.contains("Receipt sent to jane@example.com"), "\(page.stdout)")
    }
}
