import Foundation
import StorefrontTesting
import Testing

/// `storefront serve` over the real OpenSSH client and others: its host key, its limits, what it refuses and logs.
@Suite("Serving over SSH: host key, limits, refusals and other clients", .serialized, .ownThreads)
struct ServeAdmissionTests {
    @Test func theHostKeyIsMadeOnceKeptPrivateAndNamedAtStart() throws {
        let server = try ServeProcess()
        let announced = try server.waitForLog(#/host key fingerprint (SHA256:\S+)/#)
        #expect(
            String(announced.output.1) == (try ServeProcess.fingerprint(ofKey: server.hostKeyPath)),
            "the printed fingerprint is the one ssh-keygen computes")
        let mode = try #require(FileManager.default.attributesOfItem(atPath: server.hostKeyPath)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        // The client saw the same key.
        let key = try server.makeClientKey("checker")
        _ = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false))
        let known = try String(contentsOf: server.directory.appendingPathComponent("known_hosts"), encoding: .utf8)
        let published = try String(contentsOfFile: server.hostKeyPath + ".pub", encoding: .utf8).split(separator: " ").prefix(2).joined(
            separator: " ")
        #expect(known.contains(published))
    }

    @Test func idleSessionsAreClosedWithAReason() throws {
        let server = try ServeProcess(arguments: ["--idle-timeout", "2s"])
        let key = try server.makeClientKey("sleepy")
        let terminal = try TmuxTerminal()
        // Not `connect`, which waits to see the shop: on a loaded host the 2 s can pass between two looks at the screen.
        try terminal.type(server.sshCommand(key: key) + "; echo EXIT=$?")
        let screen = try terminal.waitForSSHExit()
        #expect(screen.contains("storefront: closed after 2s without a key; your cart is saved."))
        try server.waitForLog(#/session 1 closed: idle/#)
    }

    @Test func sigtermDrainsOpenSessionsAndExits() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("late")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        #expect(try server.terminate() == 0)
        let screen = try terminal.waitForSSHExit()
        #expect(screen.contains("the shop is closing for maintenance; your cart is saved."))
        #expect(server.log.contains("session 1 closed: server shutting down"))
        // Nothing new is accepted afterwards.
        let late = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false))
        #expect(late.status == 255)
    }

    /// A server with `drainTimeout` whose one session is stopped (SIGSTOP), then sent SIGTERM;
    /// returns the server, once it has exited, and the session's pid.
    private func drainWithAStoppedSession(drainTimeout: String) throws -> (server: ServeProcess, pid: Substring) {
        let server = try ServeProcess(arguments: ["--drain-timeout", drainTimeout])
        let key = try server.makeClientKey("stuck")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        let opened = try server.waitForLog(#/session 1 open: .* pid (\d+)/#)
        // A stopped process cannot act on SIGTERM; only SIGKILL ends it.
        try ProcessTree.stop(try #require(pid_t(opened.output.1)))
        #expect(try server.terminate() == 0)
        return (server, opened.output.1)
    }

    @Test func aSessionThatWillNotEndIsKilledAfterTheDrainTimeout() throws {
        let (server, pid) = try drainWithAStoppedSession(drainTimeout: "1s")
        #expect(server.log.contains("killed 1 session still open after 1s"), "log: \(server.log)")
        #expect(server.log.contains("session 1 closed: server shutting down, pid \(pid) SIGKILL"))
    }

    /// The instant a log line was written, from its timestamp.
    private func stamp(of line: Substring) throws -> Date {
        let text = String(try #require(line.split(separator: " ").first))
        return try #require(
            try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)))
    }

    @Test func theDrainTimeoutIsHonouredBeyondFiveSeconds() throws {
        let (server, _) = try drainWithAStoppedSession(drainTimeout: "7s")
        let lines = server.log.split(separator: "\n")
        let draining = try #require(lines.first { $0.contains("SIGTERM: draining") })
        let killed = try #require(lines.first { $0.contains("killed 1 session still open after 7s") }, "log: \(server.log)")
        let waited = try stamp(of: killed).timeIntervalSince(try stamp(of: draining))
        #expect(waited >= 6.9, "the stopped session was killed after \(waited) s, not the drain timeout's 7 s")
        #expect(waited < 12)
    }

    @Test func aSessionThatEndsGivesItsSlotBack() throws {
        let server = try ServeProcess(arguments: ["--max-sessions", "1"])
        let key = try server.makeClientKey("returning")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        try terminal.press("q")
        #expect(try terminal.waitForSSHExit().contains("EXIT=0"))
        try server.waitForLog(#/session 1 closed/#)
        try terminal.type("clear")
        try server.connect(terminal, key: key)
        try server.waitForLog(#/session 2 open/#)
    }

    @Test func aSubsystemNameWithEscapesIsLoggedEscaped() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("sneaky")
        let result = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false) + ["-s", "sftp\u{1B}]0;PWNED\u{07}"])
        #expect(result.status == 1)
        try server.waitForLog(#/refused subsystem/#)
        #expect(!server.log.contains("\u{1B}") && !server.log.contains("\u{07}"), "raw escapes in the log: \(server.log.debugDescription)")
        #expect(!result.stderr.contains("\u{1B}"))
    }

    /// One connection asking for hundreds of channels with huge commands: the log grows by a few lines, not megabytes.
    @Test func aChannelAndExecFloodAddsLittleToTheLog() async throws {
        let server = try ServeProcess()
        let before = server.log.utf8.count
        let client = SSHFloodClient()
        try await client.connect(port: server.port)
        let opened = await client.flood(channels: 300, command: String(repeating: "x", count: 120_000))
        await client.closedByServer()
        await client.close()
        try server.waitForLog(#/closed the connection from 127\.0\.0\.1: more than 10 channels/#)
        #expect(opened <= 11, "the server stopped the flood at its allowance (\(opened) channels opened)")
        // A line of another kind, after the flood's: every line the flood caused is in the log by then.
        let key = try server.makeClientKey("after")
        _ = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false) + ["-s", "sftp"])
        try server.waitForLog(#/refused subsystem "sftp"/#)
        let grown = server.log.utf8.count - before
        #expect(grown < 1_000_000, "the flood added \(grown) bytes of log")
        #expect(grown < 10_000, "a line for each refusal, each short: \(grown) bytes")
        #expect(
            server.log.contains(#"refused exec "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (120000 bytes) from 127.0.0.1"#),
            "\(server.log.suffix(2000))")
    }

    /// A window change is held to the largest terminal the shop draws, as the first pty request is.
    /// Read from the session's process's own stdin: a process per session.
    @Test func aHugeWindowChangeIsCappedAtTheLargestTerminal() async throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "1"])
        let client = SSHFloodClient()
        try await client.connect(port: server.port)
        let shell = try await client.openShell(columns: 80, rows: 24)
        let opened = try server.waitForLog(#/session 1 open: .* pid (\d+)/#)
        let pid = try #require(pid_t(opened.output.1))
        // The session's pty, as the shop sees it.
        let pty = open("/proc/\(pid)/fd/0", O_RDONLY | O_NOCTTY)
        try #require(pty >= 0, "cannot open the session's pty")
        defer { close(pty) }
        func ptySize() -> [Int] {
            var window = winsize()
            _ = ioctl(pty, UInt(TIOCGWINSZ), &window)
            return [Int(window.ws_col), Int(window.ws_row)]
        }
        #expect(ptySize() == [80, 24])
        try await client.resize(shell, columns: 10_000, rows: 10_000)
        // The server says so once the pty holds the size it was held to.
        try server.waitForLog(#/session 1: window 10000x10000 held to 640x240/#)
        #expect(ptySize() == [640, 240], "the pty reports no more than the largest terminal")
        await client.close()
    }

    /// swift-nio-ssh 0.15.1 verifies no RSA signatures, so an RSA-only client cannot sign in; the
    /// operator is told why instead of seeing a silent disconnect.
    @Test func anRSAOnlyClientIsRefusedAndTheLogSaysWhy() throws {
        let server = try ServeProcess()
        let key = server.directory.appendingPathComponent("rsa").path
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "3072", "-N", "", "-f", key])
        try #require(made.status == 0, "ssh-keygen failed: \(made.stderr)")
        let result = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false))
        #expect(result.status == 255)
        #expect(result.stderr.contains("Permission denied (password,publickey)"), "a password would make it a guest: \(result.stderr)")
        try server.waitForLog(#/closed without proving a key: this server accepts Ed25519 or ECDSA \(nistp256, nistp384, nistp521\) keys, not RSA/#)
    }

    /// Dropbear's client offers chacha20-poly1305 and AES-CTR, swift-nio-ssh only AES-GCM: the log names the cause,
    /// not RSA. (Dropbear reaches the shop through the OpenSSH front instead.)
    @Test func aClientWithNoCipherInCommonIsLoggedForWhatItIs() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbclient") else {
            Issue.record("Dropbear's client is missing: install Debian's package dropbear-bin")
            return
        }
        let server = try ServeProcess()
        let key = server.directory.appendingPathComponent("dropbear_ed25519").path
        let made = try Subprocess.run("/usr/bin/dropbearkey", ["-t", "ed25519", "-f", key])
        try #require(made.status == 0, "dropbearkey failed: \(made.stderr)")
        let result = try Subprocess.run("/usr/bin/dbclient", ["-y", "-i", key, "-p", "\(server.port)", "127.0.0.1"], timeout: .seconds(30))
        #expect(result.status != 0)
        try server.waitForLog(
            #/connection from 127\.0\.0\.1 closed: no algorithm in common with the client; this server offers the ciphers aes256-gcm@openssh.com, aes128-gcm@openssh.com/#
        )
        #expect(!server.log.contains("not RSA"), "the key was never asked for: \(server.log)")
    }

    /// PuTTY's plink (Debian's putty-tools) with an Ed25519 key made by puttygen: in, as that key, a purchase, and out with q.
    @Test func puttysPlinkShopsWithAnEd25519Key() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/plink"), FileManager.default.isExecutableFile(atPath: "/usr/bin/puttygen") else {
            Issue.record("PuTTY's plink and puttygen are missing: install Debian's package putty-tools")
            return
        }
        let server = try ServeProcess()
        let key = server.directory.appendingPathComponent("putty.ppk").path
        let made = try Subprocess.run("/usr/bin/puttygen", ["-q", "-t", "ed25519", "-o", key, "--new-passphrase", "/dev/null"])
        try #require(made.status == 0, "puttygen failed: \(made.stderr)")
        let exported = try Subprocess.run("/usr/bin/puttygen", [key, "-O", "public-openssh", "-o", key + ".pub"])
        try #require(exported.status == 0, "\(exported.stderr)")
        let fingerprint = try #require(
            try Subprocess.run("/usr/bin/ssh-keygen", ["-lf", key + ".pub"]).stdout.split(separator: " ").dropFirst().first)
        let hostKey = try #require(
            try Subprocess.run("/usr/bin/ssh-keygen", ["-lf", server.hostKeyPath + ".pub"]).stdout.split(separator: " ").dropFirst().first)
        let terminal = try TmuxTerminal()
        try terminal.type("plink -batch -ssh -P \(server.port) -i '\(key)' -hostkey '\(hostKey)' -t shopper@127.0.0.1; echo EXIT=$?")
        try terminal.waitFor("q quit", timeout: .seconds(30))
        try server.waitForLog(Regex<Substring>(verbatim: "authenticated \(fingerprint) from 127.0.0.1"))
        try terminal.press("a")
        try terminal.waitFor("cart: 1 item")
        try terminal.press("c", "Enter", "p", "Enter")
        try terminal.waitFor("Thank you")
        try terminal.press("q")
        try terminal.waitForSSHExit()
        #expect(try terminal.screen().contains("EXIT=0"))
    }

    @Test func theSessionLimitTurnsTheNextShopperAway() throws {
        let server = try ServeProcess(arguments: ["--max-sessions", "1"])
        let key = try server.makeClientKey("crowd")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        let second = try TmuxTerminal()
        try second.type(server.sshCommand(key: key) + "; echo EXIT=$?")
        let screen = try second.waitForSSHExit()
        #expect(screen.contains("the shop is full (1 session)"))
        #expect(screen.contains("EXIT=1"))
    }

    @Test func fiftyConcurrentSessionsEachReachTheFirstFrame() throws {
        let server = try ServeProcess(arguments: ["--connections-per-minute", "100"])
        let key = try server.makeClientKey("crowd")
        let clients = try (0..<50).map { _ in try SSHClientProcess(arguments: server.sshArguments(key: key)) }
        // The footer is the last row drawn: once it is there, the first frame is whole.
        let missing = waitForAll(clients, timeout: .seconds(120)) { $0.received.contains("Products") && $0.received.contains("quit") }
        #expect(missing.isEmpty, "\(missing.count) of 50 sessions drew no first frame; one said: \(missing.first?.received.suffix(300) ?? "")")
        try server.waitForLog(#/session 50 open/#)

        for client in clients { client.hangUp() }
        for number in 1...50 { try server.waitForLog(Regex("session \(number) closed: client went away")) }
        #expect(try server.terminate() == 0)

        // Fifty processes appended to one log file, and no line overwrote another.
        let log = try String(contentsOfFile: server.dataDirectory + "/storefront.log", encoding: .utf8)
        let lines = log.split(separator: "\n")
        #expect(lines.filter { $0.contains("starting: catalog") && $0.contains("over SSH for ssh:SHA256:") }.count == 50)
        #expect(lines.allSatisfy { $0.wholeMatch(of: /\d{4}-\d\d-\d\dT\S+ \w+ storefront: .*/) != nil }, "every line whole: \(lines.prefix(5))")
    }

    @Test func tooManyConnectionsFromOneAddressAreTurnedAway() throws {
        let server = try ServeProcess(arguments: ["--connections-per-minute", "2"])
        let key = try server.makeClientKey("eager")
        for _ in 0..<2 {
            let refused = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false))
            #expect(refused.stderr.contains("needs an interactive terminal"), "the first two get in: \(refused.stderr)")
        }
        let third = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false))
        #expect(third.status == 255)
        try server.waitForLog(#/refused a connection from 127\.0\.0\.1: too many connections from your address \(2 a minute\)/#)
    }

    @Test func aBusyPortAndAnOpenHostKeyAreRefusedWithWhatToDo() throws {
        let server = try ServeProcess()
        let scratch = TemporaryDirectory.make().path
        let busy = try Subprocess.run(BuiltProduct.storefront, ["serve", "--host", "127.0.0.1", "--port", "\(server.port)", "--data-dir", scratch])
        #expect(busy.status == 69)
        #expect(busy.stderr.contains("cannot listen on 127.0.0.1:\(server.port)"), "stderr: \(busy.stderr)")

        chmod(server.hostKeyPath, 0o644)
        let open = try Subprocess.run(
            BuiltProduct.storefront, ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", scratch, "--host-key", server.hostKeyPath])
        #expect(open.status == 78)
        #expect(open.stderr.contains("permissions 644 for host key '\(server.hostKeyPath)' are too open"), "stderr: \(open.stderr)")
        #expect(open.stderr.contains("chmod 600"))

        let badFlag = try Subprocess.run(BuiltProduct.storefront, ["serve", "--idle-timeout", "soon", "--data-dir", scratch])
        #expect(badFlag.status == 64)
        #expect(badFlag.stderr.contains("--idle-timeout must be a duration such as 30s, 15m or 2h (up to 7 days), got \"soon\""), "\(badFlag.stderr)")
    }
}
