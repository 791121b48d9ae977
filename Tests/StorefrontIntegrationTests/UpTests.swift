import Foundation
import ShopStripe
import StorefrontTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `storefront up` as an operator runs it: one config file enabling every front and the mail worker, a limit changed
/// by SIGHUP under an open session, SIGTERM draining with the session told, and a front that cannot start stopping
/// the start-up with its reason.
@Suite("storefront up: one configuration, one supervised process", .serialized, .ownThreads)
struct UpTests {
    /// A config file in a directory of its own; returns its path.
    static func writeConfig(_ text: String) throws -> String {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("storefront.conf").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let everyFront = """
        # every front on loopback, on ports the system picks
        [ssh]
        enabled = on
        listen = "127.0.0.1:0"
        [web]
        enabled = on
        listen = "127.0.0.1:0"
        [api]
        enabled = on
        listen = "127.0.0.1:0"
        [mail]
        command = "cat"
        [mail-worker]
        enabled = on
        interval = "1s"
        [admin]
        listen = "127.0.0.1:0"
        """

    /// A SIGHUP while `up` starts (systemd's reload sends one) is answered once it runs, never the end of it.
    @Test func aSIGHUPWhileStartingIsAnsweredOnceRunning() async throws {
        let config = try Self.writeConfig(Self.everyFront)
        let server = try ServeProcess(command: ["up", "--config", config], waitsForListening: false)
        try server.waitForLog(#/up: .* starting ssh/#)
        kill(server.pid, SIGHUP)
        try server.waitForLog(#/up: running/#)
        try server.waitForLog(#/reload: nothing changed/#)
        // And the reload service has it from then on.
        let before = server.log.count
        kill(server.pid, SIGHUP)
        try server.waitForLog(#/reload: nothing changed/#, after: before)
        #expect(try server.terminate() == 0, "\(server.log)")
    }

    @Test func oneFileRunsEveryFrontSIGHUPChangesALimitUnderAnOpenSessionAndSIGTERMDrains() async throws {
        let config = try Self.writeConfig(Self.everyFront)
        let server = try ServeProcess(command: ["up", "--config", config])
        for front in ["web", "api"] { try server.waitForLog(try Regex("\(front): listening on 127\\.0\\.0\\.1:\\d+")) }
        try server.waitForLog(#/mail-worker: every 1 s/#)
        let admin = try #require(Int(try server.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        let ready = try await AdminListenerTests.get(admin, "/readyz")
        #expect(ready.status == 200, "\(ready.body)")
        #expect(AdminListenerTests.checkNames(ready.body) == ["database", "payments", "ssh sessions", "web sessions", "accepting"])

        let key = try server.makeClientKey("regular")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        try Data(Self.everyFront.replacingOccurrences(of: "[ssh]\nenabled = on", with: "[ssh]\nenabled = on\nmax-sessions = 1").utf8)
            .write(to: URL(fileURLWithPath: config))
        let before = server.log.count
        kill(server.pid, SIGHUP)
        try server.waitForLog(#/reload: ssh\.max-sessions: 64 → 1/#, after: before)

        let second = try TmuxTerminal()
        try second.type(server.sshCommand(key: key) + "; echo EXIT=$?")
        #expect(try second.waitForSSHExit().contains("the shop is full (1 session)"), "the new limit turns the next shopper away")
        // A reload with a file it cannot use changes nothing, not even what it could have applied, and says so.
        let garbage = URL(fileURLWithPath: config).deletingLastPathComponent().appendingPathComponent("admin-keys-garbage").path
        try Data("this is not an authorized_keys line\n".utf8).write(to: URL(fileURLWithPath: garbage))
        try Data(
            Self.everyFront.replacingOccurrences(
                of: "[ssh]\nenabled = on", with: "[ssh]\nenabled = on\nmax-sessions = 2\nadmin-keys = \"\(garbage)\""
            ).utf8
        ).write(to: URL(fileURLWithPath: config))
        let beforeGarbage = server.log.count
        kill(server.pid, SIGHUP)
        try server.waitForLog(#/reload: refused, nothing changed: 1 problem/#, after: beforeGarbage)
        let refusal = String(server.log.dropFirst(beforeGarbage))
        #expect(refusal.contains("reload: ssh.admin-keys:") && !refusal.contains("max-sessions: 1 → 2"), "\(refusal)")
        let third = try TmuxTerminal()
        try third.type(server.sshCommand(key: key) + "; echo EXIT=$?")
        #expect(try third.waitForSSHExit().contains("the shop is full (1 session)"), "the limit stays as it was")
        // The session that was open before the reload is still the shop's.
        try terminal.press("c")
        try terminal.waitFor("Your cart")

        #expect(try server.terminate() == 0)
        #expect(try terminal.waitForSSHExit().contains("the shop is closing for maintenance; your cart is saved."))
        #expect(server.log.contains("draining: 1 session open"))
        #expect(server.log.contains("session 1 closed: server shutting down"))
    }

    @Test func aFrontThatCannotStartStopsTheStartUpWithItsReason() throws {
        let taken = try ServeProcess(command: ["api", "--listen", "127.0.0.1:0"])
        let config = try Self.writeConfig("[api]\nenabled = on\nlisten = \"127.0.0.1:\(taken.port)\"\n")
        let data = TemporaryDirectory.make().path
        let run = try Subprocess.run(try BuiltProduct.requireStorefront(), ["up", "--config", config, "--data-dir", data])
        #expect(run.status == 69, "\(run)")
        #expect(run.stderr.contains("cannot listen on 127.0.0.1:\(taken.port)"), "\(run)")
        #expect(!run.stdout.contains("up: running"))
    }

    /// A config file named on the command line that is not there is named, not read as "nothing is enabled".
    @Test func aNamedConfigFileThatIsNotThereIsSaidSo() throws {
        for command in [["up"], ["config", "check"]] {
            let run = try Subprocess.run(try BuiltProduct.requireStorefront(), command + ["--config", "/no/such/storefront.conf"])
            #expect(run.status == 78 && run.stderr.contains("/no/such/storefront.conf: no such config file"), "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("nothing is enabled"), "\(run.stderr)")
        }
    }

    /// A sender `up` would refuse is named by `config check` too.
    @Test func aMailSenderThatIsNoEmailIsNamedByTheCheck() throws {
        let config = try Self.writeConfig(
            Self.everyFront.replacingOccurrences(of: "[mail]\ncommand = \"cat\"", with: "[mail]\ncommand = \"cat\"\nfrom = \"shop at example\""))
        let checked = try Subprocess.run(try BuiltProduct.requireStorefront(), ["config", "check", "--config", config])
        #expect(checked.status == 78 && checked.stderr.contains("mail.from \"shop at example\""), "\(checked.stderr)")
    }

    /// One pass names every problem: a port two fronts share beside a value that does not read; an admin listener
    /// other machines can reach is warned of, not refused.
    @Test func theCheckNamesAPortClashBesideABadValueAndWarnsOfAPublicAdminListener() throws {
        let config = try Self.writeConfig(
            "[ssh]\nenabled = maybe\n[api]\nenabled = on\nlisten = \"127.0.0.1:18181\"\n[admin]\nlisten = \"127.0.0.1:18181\"\n")
        let checked = try Subprocess.run(try BuiltProduct.requireStorefront(), ["config", "check", "--config", config])
        #expect(checked.status == 78, "\(checked)")
        #expect(checked.stderr.contains("ssh.enabled must be on or off") && checked.stderr.contains("takes port 18181"), "\(checked.stderr)")
        let open = try Self.writeConfig("[api]\nenabled = on\nlisten = \"127.0.0.1:0\"\n[admin]\nlisten = \"0.0.0.0:18182\"\n")
        let warned = try Subprocess.run(try BuiltProduct.requireStorefront(), ["config", "check", "--config", open])
        #expect(warned.status == 0 && warned.stderr.contains("warning: admin.listen 0.0.0.0:18182 is reachable from other machines"), "\(warned)")
    }

    @Test func aConfigurationWithProblemsStartsNothingAndNamesThemAll() throws {
        let config = try Self.writeConfig("[ssh]\nenabled = maybe\n[api]\nrate-limit = 0\n")
        let run = try Subprocess.run(try BuiltProduct.requireStorefront(), ["up", "--config", config])
        #expect(run.status == 78)
        #expect(run.stderr.contains("\(config):2: ssh.enabled must be on or off, got \"maybe\""), "\(run)")
        #expect(run.stderr.contains("\(config):4: api.rate-limit must be a whole number from 1 to 1000000, got \"0\""), "\(run)")
        let checked = try Subprocess.run(try BuiltProduct.requireStorefront(), ["config", "check", "--config", config])
        #expect(
            checked.status == 78
                && checked.stderr
                    == run.stderr.replacingOccurrences(
                        of: "nothing started: 2 problems in the configuration (storefront config check)", with: "2 problems in the configuration")
        )
    }
}

/// `/metrics` as Prometheus scrapes it from `up`: a purchase over SSH, in a browser and through the API each counted
/// under its front, with the sessions' own timings brought over from their processes.
@Suite("storefront up: metrics", .serialized, .ownThreads)
struct UpMetricsTests {
    /// The samples of `/metrics` (not the comments), by their name and labels as written.
    /// Labels are put in alphabetical order, so a test names a series one way.
    static func scrape(_ port: Int) async throws -> [String: Double] {
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/metrics"))
        let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 10))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        var samples: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            var series = String(line[..<space])
            if let open = series.firstIndex(of: "{"), series.hasSuffix("}") {
                let labels = series[series.index(after: open)..<series.index(before: series.endIndex)].split(separator: ",").sorted()
                series = String(series[..<open]) + "{" + labels.joined(separator: ",") + "}"
            }
            samples[series] = value
        }
        return samples
    }

    /// A fresh server's first scrape has every counter a dashboard shows, at 0, and the process's own figures.
    @Test func aFreshServersMetricsAreZeroNotMissing() async throws {
        let server = try ServeProcess(command: ["web", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"])
        let admin = try #require(Int(try server.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        let samples = try await Self.scrape(admin)
        #expect(samples[#"storefront_orders_total{front="web",outcome="paid"}"#] == 0, "\(samples.keys.sorted())")
        #expect(samples[#"storefront_sessions_started_total{front="web"}"#] == 0)
        #expect(samples["storefront_mail_failures_total"] == 0 && samples["storefront_log_lines_dropped_total"] == 0)
        #expect((samples["process_open_fds"] ?? 0) > 0 && (samples["process_resident_memory_bytes"] ?? 0) > 1_000_000)
        #expect((samples["process_start_time_seconds"] ?? 0) > Date().timeIntervalSince1970 - 3_600)
        #expect(samples["process_cpu_seconds_total"] != nil && samples["process_max_fds"] != nil)
        #expect(try server.terminate() == 0)
    }

    @Test func aPurchaseOverSSHInABrowserAndThroughTheAPIIsEachCounted() async throws {
        let config = try UpTests.writeConfig(UpTests.everyFront)
        let server = try ServeProcess(command: ["up", "--config", config])
        let web = try #require(Int(try server.waitForLog(#/web: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        let api = try #require(Int(try server.waitForLog(#/api: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        let admin = try #require(Int(try server.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+) .* and \/metrics/#).output.1))

        // Another process of this user, not one of the server's, forges a paid order and floods invented series at the
        // sessions' relay, whose abstract name anyone can read in /proc/net/unix: none of it is taken.
        // Read whole: a /proc file has no size, and a busy machine lists more sockets than one read returns.
        let sockets = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/net/unix")).readDataToEndOfFile(), as: UTF8.self)
        let relay = try #require(
            sockets.firstMatch(of: try Regex("@(storefront-metrics-\(server.pid)-\\d+)")).map { String($0.output[1].substring ?? "") },
            "the relay is listed")
        let forged =
            ["c storefront_orders_total front=ssh,outcome=paid 1000000000000"]
            + (0..<200).map { "c storefront_orders_total front=ssh,outcome=x\($0) 1" }
        let send = try Subprocess.run(
            "/usr/bin/python3",
            [
                "-c",
                "import socket,sys\ns=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\nfor line in sys.argv[2:]: s.sendto(line.encode(),'\\0'+sys.argv[1])",
                relay,
            ] + forged)
        #expect(send.status == 0, "\(send.stderr)")

        // Over SSH: the sandbox's test card, then a token for the API from the account screen.
        let key = try server.makeClientKey("ada")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        #expect(try terminal.waitFor("Thank you").contains(/Order SF-\d{6} is paid/))
        try terminal.press("Enter", "u", "t")
        try terminal.type("script")
        let shown = try terminal.waitFor("copy it now")
        let token = try #require(shown.firstMatch(of: /sfp_[0-9A-Za-z]{43}/).map { String($0.output) }, "\(shown)")
        try server.leave(terminal)

        // In a browser tab: a guest's purchase.
        let browser = try Browser(width: 1100, height: 700)
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(web)/"])
        try browser.waitFor("│")
        try browser.press("ENTER", "a", "c", "ENTER", "p", "ENTER")
        #expect(try browser.waitFor("Thank you").contains(/Order SF-\d{6} is paid/))

        // Through the API, with the token made over SSH and that shopper's saved card and address.
        let http = HTTPClient(port: api)
        let products = try await http.send("GET", "/v1/products?limit=1", token: token)
        let first = try #require((products.json["data"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try await http.send("PUT", "/v1/cart/lines/\(first)", token: token, json: #"{"quantity": 1}"#).status == 200)
        let order = try await http.send("POST", "/v1/orders", token: token, json: "{}", headers: ["Idempotency-Key": "metrics-order"])
        #expect(order.status == 201 && order.json["status"] as? String == "paid", "\(order.json)")

        // The sessions' updates travel by datagram, a moment behind the screen: scraped again until the browser's has
        // come, as Prometheus would, for up to 10 s.
        let deadline = ContinuousClock.now + .seconds(10)
        var samples = try await Self.scrape(admin)
        while samples[#"storefront_orders_total{front="web",outcome="paid"}"#] == nil, ContinuousClock.now < deadline {
            samples = try await Self.scrape(admin)
        }
        #expect(samples[#"storefront_orders_total{front="ssh",outcome="paid"}"#] == 1, "\(samples.keys.sorted())")
        #expect(samples[#"storefront_orders_total{front="web",outcome="paid"}"#] == 1)
        #expect(samples[#"storefront_orders_total{front="api",outcome="paid"}"#] == 1)
        #expect(samples[#"storefront_sessions_started_total{front="ssh"}"#] == 1)
        #expect(samples[#"storefront_sessions_started_total{front="web"}"#] == 1)
        #expect((samples[#"storefront_key_to_frame_seconds_count{front="ssh"}"#] ?? 0) > 0, "the SSH session's keys, timed in its process")
        #expect(samples[#"storefront_payment_seconds_count{operation="charge",outcome="succeeded",provider="sandbox"}"#] == 3)
        #expect(
            samples[#"storefront_api_requests_total{operation="createOrder",status="2xx"}"#] == 1, "\(samples.keys.filter { $0.contains("api") })")
        #expect(!samples.keys.contains { $0.contains("outcome=\"x") }, "no forged series")
        // No shopper's data in any label: no key, address or order number.
        #expect(!samples.keys.contains { $0.contains("SF-") || $0.contains("SHA256") || $0.contains("127.0.0.1") })
        #expect(try server.terminate() == 0)
    }
}

/// `up --log-format json`: every line of a run with an SSH purchase and API requests is one JSON object with the
/// time, level, component and message, the request's id where there is one, and no secret.
@Suite("storefront up: JSON log", .serialized, .ownThreads)
struct UpJSONLogTests {
    @Test func theLogOfARunParsesLineByLineWithNoSecretInIt() async throws {
        let config = try UpTests.writeConfig(UpTests.everyFront)
        let server = try ServeProcess(command: ["up", "--config", config, "--log-format", "json"])
        let api = try #require(
            Int(try server.waitForLog(#/"component":"api","level":"info","message":"listening on 127\.0\.0\.1:(\d+)"/#).output.1))
        let key = try server.makeClientKey("grace")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        try terminal.waitFor("Thank you")
        try terminal.press("Enter", "u", "t")
        try terminal.type("script")
        let shown = try terminal.waitFor("copy it now")
        let token = try #require(shown.firstMatch(of: /sfp_[0-9A-Za-z]{43}/).map { String($0.output) })
        try server.leave(terminal)
        let http = HTTPClient(port: api)
        let orders = try await http.send("GET", "/v1/orders", token: token)
        #expect(orders.status == 200)
        let requestID = try #require(orders.headers["request-id"])
        #expect(try await http.send("GET", "/v1/orders", token: "sfp_" + String(repeating: "x", count: 43)).status == 401)
        #expect(try server.terminate() == 0)

        let lines = server.log.split(separator: "\n")
        #expect(lines.count > 10)
        var components: Set<String> = []
        for line in lines {
            let object = try #require(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "not one JSON object: \(line)")
            #expect(["time", "level", "component", "message"].allSatisfy { object[$0] != nil }, "\(object)")
            components.insert(object["component"] ?? "")
        }
        #expect(components.isSuperset(of: ["ssh", "web", "api", "admin", "mail-worker"]), "\(components)")
        #expect(server.log.contains(#""request_id":"\#(requestID)""#), "the request's id is a field of its line")
        for secret in [token, String(token.suffix(20)), "4242424242424242", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"] {
            #expect(!server.log.contains(secret), "a secret in the log")
        }
    }
}

/// `up` with Stripe: the webhooks front beside SSH, web, the API and the mail worker, from one file, hearing a signed
/// event and counting it.
@Suite("storefront up: with Stripe's webhooks", .serialized, .ownThreads)
struct UpWebhooksTests {
    @Test func oneFileRunsEveryFrontWithTheWebhooksAndCountsAnEvent() async throws {
        let stripe = try LocalStripe()
        let secret = "whsec_up_test_secret_4d2a"
        let config = try UpTests.writeConfig(
            """
            payments = "stripe"
            stripe-api-base = "\(stripe.base)"
            stripe-raw-card-data = on
            """ + "\n" + UpTests.everyFront + """

                [webhooks]
                enabled = on
                listen = "127.0.0.1:0"
                """)
        let server = try ServeProcess(
            environment: ["STOREFRONT_STRIPE_SECRET_KEY": LocalStripe.secretKey, "STOREFRONT_STRIPE_WEBHOOK_SECRET": secret],
            command: ["up", "--config", config])
        let hooks = try #require(Int(try server.waitForLog(#/webhooks: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        let admin = try #require(Int(try server.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        try server.waitForLog(#/up: running/#)
        #expect(server.log.contains("starting ssh, web, api, webhooks, mail-worker"), "\(server.log)")

        let payload = Array(#"{"id":"evt_up_1","type":"customer.created","data":{"object":{"id":"cus_1"}}}"#.utf8)
        let signature = StripeWebhookSignature.header(for: payload, secret: secret, at: Date())
        let answer = try LocalStripe.exchange(
            "POST /webhooks/stripe HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nStripe-Signature: \(signature)\r\nContent-Length: \(payload.count)\r\n\r\n"
                + String(decoding: payload, as: UTF8.self), port: hooks)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        try server.waitForLog(#/webhook customer\.created evt_up_1/#)
        let samples = try await UpMetricsTests.scrape(admin)
        #expect(
            samples[#"storefront_webhook_events_total{result="accepted",type="other"}"#] == 1, "\(samples.keys.filter { $0.contains("webhook") })")
        #expect(try server.terminate() == 0)
    }
}
