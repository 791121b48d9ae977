import Foundation
import StorefrontTesting
import Testing

/// The operator's day with `storefront up`: a configuration file checked, then run with every front and the mail
/// worker; purchases over SSH and the API, counted on /metrics and mailed; a limit raised by SIGHUP; a backup while the
/// shop runs, then a purchase after it; the shop stopped; a restore held at its swap while a timer's workers (renewals,
/// mail, a scripted purchase) start and are refused, none of them losing a paid order into the replaced file; and the
/// shop started again on the same file, with the backup's orders, ready.
@Suite("Journey: the operator's day", .ownThreads)
struct OperatorDayJourneyTests {
    let root = TemporaryDirectory.make().path

    @Test func configCheckUpMetricsReloadBackupAndARestoreWhileATimersWorkerStarts() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let mail = try JourneyMail(in: root)
        let data = root + "/data"
        let configuration = """
            # the operator's shop: every front on loopback, receipts through msmtp
            [ssh]
            enabled = on
            listen = "127.0.0.1:0"
            max-sessions = 8
            [api]
            enabled = on
            listen = "127.0.0.1:0"
            [mail]
            command = "\(mail.command)"
            [mail-worker]
            enabled = on
            interval = "1s"
            [admin]
            listen = "127.0.0.1:0"
            """
        let config = root + "/storefront.conf"
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        let storefront = try BuiltProduct.requireStorefront()
        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Subprocess {
            try Subprocess.run(
                storefront, arguments + ["--data-dir", data], environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        }

        // The check first: a typo is named with its line, and nothing starts; the file as meant passes.
        let typo = root + "/typo.conf"
        try configuration.replacingOccurrences(of: "max-sessions = 8", with: "max-sessions = eight").write(
            toFile: typo, atomically: true, encoding: .utf8)
        let refused = try Subprocess.run(storefront, ["config", "check", "--config", typo])
        #expect(refused.status == 78 && refused.stderr.contains("typo.conf:5: ssh.max-sessions must be a whole number"), "\(refused)")
        let checked = try Subprocess.run(storefront, ["config", "check", "--config", config])
        #expect(checked.status == 0, "\(checked)")

        // Up, ready.
        var shop = try ServeProcess(command: ["up", "--config", config], dataDirectory: data)
        let api = try #require(Int(try shop.waitForLog(#/api: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        let admin = try #require(Int(try shop.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        #expect(try await AdminListenerTests.get(admin, "/readyz").status == 200)

        // Two purchases: over SSH, then through the API with a token made on the account screen.
        let key = try shop.makeClientKey("ada")
        let terminal = try TmuxTerminal()
        try shop.connect(terminal, key: key)
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        let first = String(try #require(try terminal.waitFor("Thank you").firstMatch(of: /Order (SF-\d{6}) is paid/)?.1))
        try terminal.press("Enter", "u", "t")
        try terminal.type("script")
        let token = try #require(try terminal.waitFor("copy it now").firstMatch(of: /sfp_[0-9A-Za-z]{43}/).map { String($0.output) })
        try shop.leave(terminal)
        let http = HTTPClient(port: api)
        #expect(try await http.send("PUT", "/v1/cart/lines/mug-stdout", token: token, json: #"{"quantity": 2}"#).status == 200)
        let second = try await http.send("POST", "/v1/orders", token: token, json: "{}", headers: ["Idempotency-Key": "operator-day"])
        #expect(second.status == 201, "\(second.json)")

        // /metrics counts both (the SSH session's count travels from its process a moment behind: scraped again until
        // it has come, as Prometheus would, for up to 10 s); the mail worker sent both receipts.
        let deadline = ContinuousClock.now + .seconds(10)
        var samples = try await UpMetricsTests.scrape(admin)
        while samples[#"storefront_orders_total{front="ssh",outcome="paid"}"#] == nil, ContinuousClock.now < deadline {
            samples = try await UpMetricsTests.scrape(admin)
        }
        #expect(samples[#"storefront_orders_total{front="ssh",outcome="paid"}"#] == 1, "\(samples.keys.sorted())")
        #expect(samples[#"storefront_orders_total{front="api",outcome="paid"}"#] == 1)
        try shop.waitForLog(#/mail-worker: sent MSG-000002/#)
        #expect(try mail.sink.messages().map { $0["subject"] ?? "" }.filter { $0.hasPrefix("Your receipt") }.count == 2)

        // A reload raises the limit live.
        try configuration.replacingOccurrences(of: "max-sessions = 8", with: "max-sessions = 12").write(
            toFile: config, atomically: true, encoding: .utf8)
        let beforeReload = shop.log.count
        kill(shop.pid, SIGHUP)
        try shop.waitForLog(#/reload: ssh\.max-sessions: 8 → 12/#, after: beforeReload)

        // A backup while it runs; a purchase after it, which the backup does not hold.
        let backup = root + "/shop.backup"
        let backedUp = try run(["backup", backup])
        #expect(backedUp.status == 0 && backedUp.stdout.contains("2 orders"), "\(backedUp)")
        #expect(try await http.send("PUT", "/v1/cart/lines/rubber-duck", token: token, json: #"{"quantity": 1}"#).status == 200)
        let late = try await http.send("POST", "/v1/orders", token: token, json: "{}", headers: ["Idempotency-Key": "after-backup"])
        #expect(late.status == 201, "\(late.json)")
        #expect(try shop.terminate() == 0, "\(shop.log)")

        // The restore, held between its copy and its swap; the timer's workers start meanwhile and are refused.
        let fifo = root + "/hold"
        try #require(mkfifo(fifo, 0o600) == 0)
        let restore = try Subprocess.start(
            storefront, ["restore", backup, "--data-dir", data],
            environment: ProcessInfo.processInfo.environment.merging(["STOREFRONT_FAULT_RESTORE_HOLD": fifo]) { $1 })
        let holding = try await RestoreRaceTests.release(fifo)
        try #require(holding >= 0, "the restore reached its hold")
        for worker in [["subscriptions-worker", "--once"], ["mail-worker", "--once", "--mail-command", mail.command], RestoreRaceTests.buy] {
            let started = try run(worker)
            #expect(started.status == 75 && started.stderr.contains("is being restored"), "\(worker[0]): \(started.status) \(started.stderr)")
        }
        var go: UInt8 = 1
        #expect(write(holding, &go, 1) == 1)
        close(holding)
        let restored = restore.wait()
        #expect(restored.status == 0 && restored.stdout.contains("2 orders"), "\(restored.status) \(restored.stdout) \(restored.stderr)")

        // Up again on the same file: ready, with the backup's two orders and not the later one.
        shop = try ServeProcess(command: ["up", "--config", config], dataDirectory: data)
        let adminAgain = try #require(Int(try shop.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        #expect(try await AdminListenerTests.get(adminAgain, "/readyz").status == 200)
        let listed = try run(["orders", "--json"]).stdout
        let orders = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])["orders"] as? [[String: Any]]
        let numbers = (orders ?? []).compactMap { $0["number"] as? String }.sorted()
        #expect(numbers.count == 2 && numbers.first == first, "\(numbers)")
        #expect(!numbers.contains(late.json["number"] as? String ?? "none"), "the order after the backup is not in it")
        #expect(try shop.terminate() == 0)
    }
}
