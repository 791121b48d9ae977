import Foundation
import StorefrontTesting
import Testing

/// `storefront up` as an operator runs it: one config file enabling every front and the mail worker, a limit changed
/// by SIGHUP under an open session, SIGTERM draining with the session told, and a front that cannot start stopping
/// the start-up with its reason.
@Suite("storefront up: one configuration, one supervised process", .serialized)
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

    @Test func oneFileRunsEveryFrontSIGHUPChangesALimitUnderAnOpenSessionAndSIGTERMDrains() async throws {
        let config = try Self.writeConfig(Self.everyFront)
        let server = try ServeProcess(command: ["up", "--config", config])
        for front in ["web", "api"] { try server.waitForLog(try Regex("\(front): listening on 127\\.0\\.0\\.1:\\d+")) }
        try server.waitForLog(#/mail-worker: every 1 s/#)
        let admin = try #require(Int(try server.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        let ready = try await AdminListenerTests.get(admin, "/readyz")
        #expect(ready.status == 200, "\(ready.body)")
        #expect(AdminListenerTests.checkNames(ready.body) == ["database", "payments", "ssh sessions", "web sessions"])

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

    @Test func aConfigurationWithProblemsStartsNothingAndNamesThemAll() throws {
        let config = try Self.writeConfig("[ssh]\nenabled = maybe\n[api]\nrate-limit = 0\n")
        let run = try Subprocess.run(try BuiltProduct.requireStorefront(), ["up", "--config", config])
        #expect(run.status == 78)
        #expect(run.stderr.contains("\(config):2: ssh.enabled must be on or off, got \"maybe\""), "\(run)")
        #expect(run.stderr.contains("\(config):4: api.rate-limit must be a whole number from 1 to 100000, got \"0\""), "\(run)")
        let checked = try Subprocess.run(try BuiltProduct.requireStorefront(), ["config", "check", "--config", config])
        #expect(
            checked.status == 78
                && checked.stderr
                    == run.stderr.replacingOccurrences(
                        of: "nothing started: 2 problems in the configuration (storefront config check)", with: "2 problems in the configuration")
        )
    }
}
