import CustomDump
import Foundation
import LiveObjects
import PseudoTerminal
import ShopBootstrap
import ShopServices
import ShopSessions
import Testing

@testable import ShopCommands

/// The one configuration `up` runs on: its file's syntax, the precedence over it, its problems named with their
/// lines, and what it turns into for each front.
@Suite("Service configuration")
struct ServiceConfigurationTests {
    private let file = """
        # the shop
        data-dir = /srv/shop
        database = "postgres://shop:hunter2@db/shop?sslmode=require"

        [ssh]
        enabled = on
        listen = "0.0.0.0:2222"   # every interface
        max-sessions = 100

        [api]
        enabled = on
        rate-limit = 60
        """

    @Test func theFileReadsAsSectionsOfKeysWithTOMLStrings() {
        let document = ConfigDocument(
            parsing: """
                theme = dark # bare, as before
                [web]
                origin = "https://shop.example" # a comment after a string
                public-origins = 'https://a.example, https://b.example'
                openssh-front = "ssh \\"shop\\"@host\\u00e9"
                """)
        expectNoDifference(document.problems, [])
        expectNoDifference(
            document.entries.map { "\($0.name)=\($0.value)@\($0.line)" },
            [
                "theme=dark@1", "web.origin=https://shop.example@3", "web.public-origins=https://a.example, https://b.example@4",
                "web.openssh-front=ssh \"shop\"@hosté@5",
            ])
    }

    /// A file written on Windows (CRLF, a byte-order mark) reads as any other; a control character escaped into a
    /// string is refused (a NUL would cut a path short); a count is digits with single underscores between them.
    @Test func crlfABOMAndEscapedControlCharactersAndStrictNumbers() {
        let windows = ConfigDocument(parsing: "\u{FEFF}[ssh]\r\nenabled = on\r\nmax-sessions = 1_000\r\n")
        expectNoDifference(windows.problems, [])
        expectNoDifference(windows.entries.map { "\($0.name)=\($0.value)@\($0.line)" }, ["ssh.enabled=on@2", "ssh.max-sessions=1_000@3"])
        let nul = ConfigDocument(parsing: #"data-dir = "/srv/shop\u0000/../etc""#)
        expectNoDifference(nul.problems.map(\.message), [#"data-dir: \u0000 is a control character, which no setting takes"#])
        for (text, number) in [("1_000", 1_000), ("64", 64), ("1__0_", nil), ("+10", nil), ("_10", nil), ("10_", nil), ("-1", nil), ("", nil)] {
            #expect(ServiceKey.wholeNumber(text) == number, "\(text)")
        }
    }

    @Test func everyLineThatCannotBeReadIsNamedAndTheRestStillRead() {
        let document = ConfigDocument(
            parsing: """
                [ssh]
                listen = "127.0.0.1:22
                max-sessions = 5
                [Bad Header]
                max-sessions = 6
                just words
                [ssh]
                origin = "\\q"
                """)
        expectNoDifference(
            document.problems.map { "\($0.line): \($0.message)" },
            [
                "2: listen: the string has no closing \"",
                "4: expected a section header such as [ssh], got \"[Bad Header]\"",
                "5: ssh.max-sessions is set twice (first on line 3)",
                "6: expected key = value, got \"just words\"",
                "7: [ssh] appears twice; put its keys under one header",
                "8: origin: unknown escape \\q",
            ])
        #expect(document.entries.map(\.name) == ["ssh.max-sessions"])
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverDefaults() {
        let configuration = ServiceConfiguration.resolve(
            text: file, path: "/etc/storefront.conf", environment: ["STOREFRONT_SSH_MAX_SESSIONS": "200", "STOREFRONT_API_RATE_LIMIT": "90"],
            overrides: ["api.rate-limit=30"])
        #expect(configuration.problems.isEmpty, "\(configuration.problems)")
        #expect(configuration["ssh.max-sessions"] == "200")
        #expect(configuration.source(of: "ssh.max-sessions") == .environment("STOREFRONT_SSH_MAX_SESSIONS"))
        #expect(configuration["api.rate-limit"] == "30")
        #expect(configuration.source(of: "api.rate-limit") == .flag("--set api.rate-limit"))
        #expect(configuration.source(of: "ssh.listen") == .file(path: "/etc/storefront.conf", line: 7))
        #expect(configuration["web.max-sessions"] == "32")
        #expect(configuration.source(of: "web.max-sessions") == .defaultValue)
        #expect(configuration.enabled == ["ssh", "api"])
        #expect(configuration.sshLimits.maxSessions == 200)
        #expect(configuration.apiSettings.limits.requestsPerMinute == 30)
        #expect(configuration.shop.dataDirectory == "/srv/shop", "the shop's keys above the first header are the shop's")
    }

    @Test func theOlderVariablesKeepTheirNames() {
        let configuration = ServiceConfiguration.resolve(
            text: nil, path: "config",
            environment: [
                "STOREFRONT_DATABASE_URL": "postgres://db/shop", "STOREFRONT_MAIL_COMMAND": "msmtp -t", "STOREFRONT_WEB_ORIGIN": "https://s.example",
            ],
            overrides: [])
        #expect(configuration["shop.database"] == "postgres://db/shop")
        #expect(configuration["mail.command"] == "msmtp -t")
        #expect(configuration["web.origin"] == "https://s.example")
        #expect(configuration.mail.webOrigin == "https://s.example")
    }

    @Test func everyProblemIsNamedWithItsSourceInTheFilesOrder() {
        let configuration = ServiceConfiguration.resolve(
            text: """
                payments = paypal
                [ssh]
                max-sessions = lots
                colour = red
                [web]
                idle-timeout = 3 weeks
                [shipping]
                carrier = ups
                """, path: "shop.conf", environment: ["STOREFRONT_API_LISTEN": "everywhere"], overrides: ["ssh.nope=1"])
        expectNoDifference(
            configuration.problems.map(\.description),
            [
                "shop.conf:1: payments must be sandbox or stripe, got \"paypal\"",
                "shop.conf:3: ssh.max-sessions must be a whole number from 1 to 10000, got \"lots\"",
                "shop.conf:4: unknown key \"colour\" in [ssh]; known keys: enabled, listen, host-key, max-sessions, max-guests, guests-per-address, connections-per-minute, idle-timeout, drain-timeout, admin-keys, openssh-front, join-socket, openid-providers",
                "shop.conf:6: web.idle-timeout must be a duration such as 30s, 15m or 2h (up to 7 days), got \"3 weeks\"",
                "shop.conf:7: unknown section [shipping]; known sections: [shop], [ssh], [web], [api], [webhooks], [mail], [mail-worker], [renewals], [sessions], [admin], [metrics], [log]",
                "STOREFRONT_API_LISTEN: api.listen: \"everywhere\" is not HOST:PORT (such as 127.0.0.1:8088)",
                "--set: \"ssh.nope=1\" is not SECTION.KEY=VALUE with a known key",
            ])
    }

    @Test func whatCannotRunIsNamedThoughEachValueReads() {
        let configuration = ServiceConfiguration.resolve(
            text: """
                [web]
                enabled = on
                listen = "0.0.0.0:8080"
                [api]
                enabled = on
                listen = "127.0.0.1:8080"
                [webhooks]
                enabled = on
                listen = "127.0.0.1:0"
                """, path: "shop.conf", environment: [:], overrides: [])
        #expect(configuration.problems.isEmpty)
        expectNoDifference(
            configuration.runProblems.map(\.description),
            [
                "shop.conf:6: api.listen 127.0.0.1:8080 takes port 8080, which web.listen has already",
                "shop.conf:3: [web] --public-origin is needed when listening on 0.0.0.0: the address visitors' browsers show, such as https://shop.example (docs/web.md)",
                "shop.conf:8: webhooks.enabled: webhooks come from Stripe; set shop.payments = stripe (the sandbox sends none)",
            ])
        let empty = ServiceConfiguration.resolve(text: "", path: "shop.conf", environment: [:], overrides: [])
        #expect(
            empty.runProblems.map(\.description) == [
                "shop.conf: nothing is enabled: set enabled = on under [ssh], [web], [api], [webhooks], [mail-worker] or [renewals]"
            ])
    }

    @Test func secretsAreMaskedWhereverTheyHide() {
        #expect(ConfigCommands.masked("postgres://shop:hunter2@db/shop?sslmode=require") == "postgres://shop:****@db/shop?sslmode=require")
        #expect(ConfigCommands.masked("postgres://db/shop?password=hunter2") == "postgres://db/shop?password=****")
        #expect(ConfigCommands.masked("whsec_abc") == "****")
        #expect(ServiceKey.all.first { $0.name == "shop.database" }?.secret == true)
    }

    @Test func aReloadNamesWhatChangedAndWhatTakesARestart() {
        let before = ServiceConfiguration.resolve(text: file, path: "f", environment: [:], overrides: [])
        let after = ServiceConfiguration.resolve(
            text: file.replacingOccurrences(of: "max-sessions = 100", with: "max-sessions = 3").replacingOccurrences(
                of: "0.0.0.0:2222", with: "0.0.0.0:2200"),
            path: "f", environment: [:], overrides: [])
        let changes = ServiceConfiguration.changes(from: before, to: after)
        expectNoDifference(
            changes.map { "\($0.key.name) \($0.description) \($0.key.reloadable ? "live" : "restart")" },
            ["ssh.listen 0.0.0.0:2222 → 0.0.0.0:2200 restart", "ssh.max-sessions 100 → 3 live"])
    }

    /// docs/configuration.md's table is the settings table, so a setting added, renamed or reworded is documented as
    /// the code has it. `STOREFRONT_RECORD_DOCS=1` writes the page's table anew.
    @Test func theDocsTableIsTheSettingsTable() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/configuration.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let (begin, end) = ("<!-- settings table: begin -->\n", "<!-- settings table: end -->")
        let start = try #require(text.range(of: begin), "docs/configuration.md has no \(begin)")
        let stop = try #require(text.range(of: end, range: start.upperBound..<text.endIndex), "docs/configuration.md has no \(end)")
        let table = ServiceKey.documentationTable + "\n"
        if ProcessInfo.processInfo.environment["STOREFRONT_RECORD_DOCS"] == "1" {
            try text.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: table).write(to: page, atomically: true, encoding: .utf8)
        }
        expectNoDifference(String(text[start.upperBound..<stop.lowerBound]), table, "docs/configuration.md: STOREFRONT_RECORD_DOCS=1 writes it")
        #expect(Set(ServiceKey.all.map(\.name)).count == ServiceKey.all.count, "each setting is in the table once")
    }
}

/// `up`'s workers: a pass that fails is tried again after a back-off that doubles, and a pass that works resets it.
@Suite("Supervised workers")
struct SupervisedWorkerTests {
    /// What the worker did, in order: its log lines and the waits it asked for.
    final class Record: @unchecked Sendable, LiveObject {
        private let lock = NSLock()
        private var events: [String] = []
        private var passes = 0
        func add(_ event: String) { lock.withLock { events.append(event) } }
        func nextPass() -> Int {
            lock.withLock {
                passes += 1
                return passes
            }
        }
        var all: [String] { lock.withLock { events } }
    }

    struct OutboxDown: Error, CustomStringConvertible { var description: String { "the outbox cannot be read" } }

    @Test func aFailingWorkerBacksOffDoublingAndComesBackToItsIntervalOnceItWorks() async throws {
        let record = Record()
        // Passes 1-3 fail, 4 works, 5 fails; the sixth wait ends the run.
        let worker = SupervisedWorker(
            name: "mail-worker", interval: .seconds(10), maxBackOff: .seconds(30),
            pass: {
                let number = record.nextPass()
                if [1, 2, 3, 5].contains(number) { throw OutboxDown() }
                return ["sent MSG-\(number)"]
            },
            log: { line, _ in record.add(line) },
            sleep: { duration in
                record.add("wait \(duration.components.seconds) s")
                if record.all.filter({ $0.hasPrefix("wait") }).count == 6 { throw CancellationError() }
            })
        try await worker.run()
        expectNoDifference(
            record.all,
            [
                "mail-worker: failed (1 in a row): the outbox cannot be read; trying again in 20 s", "wait 20 s",
                "mail-worker: failed (2 in a row): the outbox cannot be read; trying again in 30 s", "wait 30 s",
                "mail-worker: failed (3 in a row): the outbox cannot be read; trying again in 30 s", "wait 30 s",
                "mail-worker: sent MSG-4", "wait 10 s",
                "mail-worker: failed (1 in a row): the outbox cannot be read; trying again in 20 s", "wait 20 s",
                "mail-worker: sent MSG-6", "wait 10 s",
            ])
    }
}

/// The server's log: JSON lines with the component and the ids a pipeline joins on, levels per component, and a
/// reader that stops reading costing dropped lines, never a stalled front.
@Suite("Server log")
struct ServerLogTests {
    @Test func aLineBecomesOneJSONObjectWithItsComponentAndIDs() throws {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        let line = LogLine(time: time, level: .info, message: "api: req_ab12 POST /v1/orders 201 3.1 ms token tok_9")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.json.utf8)) as? [String: String])
        expectNoDifference(
            object,
            [
                "time": "2027-01-15T08:00:00.000Z", "level": "info", "component": "api", "message": "req_ab12 POST /v1/orders 201 3.1 ms token tok_9",
                "request_id": "req_ab12",
            ])
        #expect(line.text == "2027-01-15T08:00:00.000Z api: req_ab12 POST /v1/orders 201 3.1 ms token tok_9\n", "text is as it always was")
        let session = LogLine(time: time, level: .info, message: "web session 4 open: browser guest from 127.0.0.1\u{1B}[2J")
        #expect(session.component == "web" && session.fields.map(\.1) == ["4"])
        #expect(!session.json.contains("\u{1B}"), "a control character is escaped in JSON")
    }

    @Test func eachComponentHasItsOwnLevel() throws {
        var pipe: [Int32] = [0, 0]
        #expect(Foundation.pipe(&pipe) == 0)
        let log = ServerLog(descriptor: pipe[1])
        log.configure(format: .json, defaultLevel: .info, levels: ["api": .warning])
        log.write("api: req_1 GET /v1/products 200 1.0 ms")
        log.write("ssh: listening on 127.0.0.1:2222")
        log.write("api: the database is gone", level: .warning)
        log.flush()
        close(pipe[1])
        let written = String(decoding: FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true).readDataToEndOfFile(), as: UTF8.self)
        let messages = written.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])?["message"]
        }
        #expect(messages == ["listening on 127.0.0.1:2222", "the database is gone"])
    }

    @Test func aReaderThatStopsReadingCostsDroppedLinesNotAStall() {
        var pipe: [Int32] = [0, 0]
        #expect(Foundation.pipe(&pipe) == 0)
        defer { close(pipe[0]) }
        let log = ServerLog(descriptor: pipe[1])
        // Nobody reads: the pipe fills at 64 KiB, the writer thread blocks, the queue fills, and the rest is dropped.
        // Were a write to wait for the reader, this loop would never end.
        for number in 0..<(ServerLog.capacity * 3) { log.write("web: a line the reader never takes, number \(number)") }
        #expect(log.droppedInAll >= ServerLog.capacity)
        log.flush(timeout: .milliseconds(100))
    }
}

/// SIGHUP's merchant keys reach the SSH server, which holds its own copy of the sessions' command.
@Suite("Merchant keys on reload")
struct AdminKeysReloadTests {
    @Test func everyCopyOfTheSessionCommandTakesTheKeysReadAgain() {
        let command = SessionCommand(
            executable: "/usr/bin/storefront", arguments: ["run"], environment: [:], largestTerminal: TerminalSize(columns: 80, rows: 24),
            adminArguments: ["admin"], adminFingerprints: ["SHA256:before"])
        let serversCopy = command
        command.updateAdminFingerprints(["SHA256:after"])
        #expect(serversCopy.arguments(forKey: "SHA256:after") == (["admin"], true))
        #expect(serversCopy.arguments(forKey: "SHA256:before") == (["run"], false), "a key taken out of the file is a shopper again")
    }
}

/// A client's window as the session's pty gets it: cells within the largest terminal, pixels in proportion.
@Suite("A client's window, bounded")
struct ClientWindowTests {
    static let command = SessionCommand(
        executable: "/usr/bin/storefront", arguments: ["run"], environment: [:], largestTerminal: TerminalSize(columns: 200, rows: 60))

    @Test func pixelsStayInProportionToTheCellsKept() {
        #expect(
            Self.command.bounded(TerminalSize(columns: 120, rows: 34, pixelWidth: 964, pixelHeight: 582))
                == TerminalSize(columns: 120, rows: 34, pixelWidth: 964, pixelHeight: 582), "within the bounds: as asked")
        #expect(
            Self.command.bounded(TerminalSize(columns: 400, rows: 120, pixelWidth: 3_200, pixelHeight: 2_400))
                == TerminalSize(columns: 200, rows: 60, pixelWidth: 1_600, pixelHeight: 1_200), "capped: the cell's size kept")
        #expect(
            Self.command.bounded(TerminalSize(columns: 0, rows: 0, pixelWidth: 800, pixelHeight: 600))
                == TerminalSize(columns: 80, rows: 24), "no terminal: 80x24 and no pixels")
        #expect(
            Self.command.bounded(TerminalSize(columns: 100, rows: 30, pixelWidth: Int(UInt32.max), pixelHeight: -5))
                == TerminalSize(columns: 100, rows: 30, pixelWidth: 65_535, pixelHeight: 0), "bounded before arithmetic")
    }
}
