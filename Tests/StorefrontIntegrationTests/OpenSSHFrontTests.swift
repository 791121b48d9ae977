import Foundation
import StorefrontTesting
import Testing

/// The shop behind the system's OpenSSH (`storefront sshd-config`): every key type sshd verifies gets the shop as
/// that key's account, with OpenSSH's, PuTTY's and Dropbear's clients; nothing but the shop runs.
@Suite("The shop behind OpenSSH", .serialized, .ownThreads)
struct OpenSSHFrontTests {
    /// Connects from a shell in `terminal` with `command` and waits for the first frame; sshd's log on failure. Once
    /// the client exits, the shell prints `TTY=restored` if the terminal's modes are what they were before it.
    func open(_ terminal: TmuxTerminal, _ command: String, _ server: OpenSSHServer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try terminal.type("S=$(stty -g); " + command + "; echo EXIT=$?; [ \"$(stty -g)\" = \"$S\" ] && echo TTY=restored")
        do {
            try terminal.waitForShop(timeout: .seconds(30), sourceLocation: sourceLocation)
        } catch {
            Issue.record("sshd's log:\n\(server.log)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Buys the first product with the keys the footers show, quits, and returns the order's number.
    func buy(_ terminal: TmuxTerminal) throws -> String {
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        let thanks = try terminal.waitFor("Thank you")
        let number = try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1)
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        try terminal.waitFor("TTY=restored")
        return String(number)
    }

    func orders(of fingerprint: String, _ server: OpenSSHServer) throws -> String {
        let listed = try Subprocess.run(BuiltProduct.storefront, ["orders", "--data-dir", server.dataDirectory, "--customer", "ssh:\(fingerprint)"])
        #expect(listed.status == 0, "\(listed.stderr)")
        return listed.stdout
    }

    @Test func anRSAKeyBuysAndFindsItsOrderOnTheNextConnection() throws {
        let server = try OpenSSHServer()
        let key = try server.makeClientKey("rsa", type: "rsa")
        let fingerprint = try ServeProcess.fingerprint(ofKey: key)
        let terminal = try TmuxTerminal()
        try open(terminal, server.sshCommand(key: key), server)
        #expect(try terminal.screen().contains(String(fingerprint.prefix(12))), "the header names the key's account")
        let number = try buy(terminal)
        try server.waitForLog(Regex<Substring>(verbatim: "Accepted publickey for \(server.user) from 127.0.0.1"))
        #expect(try orders(of: fingerprint, server).contains(number), "the order is the RSA key's")

        let again = try TmuxTerminal()
        try open(again, server.sshCommand(key: key), server)
        try again.press("o")
        try again.waitFor(number)
        try again.press("q")
        try again.waitFor("EXIT=0")
    }

    @Test("Ed25519 and ECDSA keys each get the shop as their own account", arguments: ["ed25519", "ecdsa"])
    func everyKeyTypeIsItsOwnAccount(type: String) throws {
        let server = try OpenSSHServer()
        let key = try server.makeClientKey(type, type: type)
        let terminal = try TmuxTerminal()
        try open(terminal, server.sshCommand(key: key), server)
        #expect(try terminal.screen().contains(String(try ServeProcess.fingerprint(ofKey: key).prefix(12))))
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
    }

    @Test func puttysPlinkAndDropbearsClientEachBuy() throws {
        for tool in ["/usr/bin/plink", "/usr/bin/puttygen"] where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is missing: install Debian's package putty-tools")
            return
        }
        for tool in ["/usr/bin/dbclient", "/usr/bin/dropbearkey"] where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is missing: install Debian's package dropbear-bin")
            return
        }
        let server = try OpenSSHServer()
        let hostKey = try ServeProcess.fingerprint(ofKey: server.hostKeyPath + ".pub")

        let putty = server.directory.appendingPathComponent("putty.ppk").path
        let made = try Subprocess.run("/usr/bin/puttygen", ["-q", "-t", "ed25519", "-o", putty, "--new-passphrase", "/dev/null"])
        try #require(made.status == 0, "puttygen failed: \(made.stderr)")
        _ = try Subprocess.run("/usr/bin/puttygen", [putty, "-O", "public-openssh", "-o", putty + ".pub"])
        let plink = try TmuxTerminal()
        try open(plink, "plink -batch -ssh -P \(server.port) -i '\(putty)' -hostkey '\(hostKey)' -t \(server.user)@127.0.0.1", server)
        let bought = try buy(plink)
        #expect(try orders(of: try ServeProcess.fingerprint(ofKey: putty + ".pub"), server).contains(bought))

        let dropbear = server.directory.appendingPathComponent("dropbear_ed25519").path
        let generated = try Subprocess.run("/usr/bin/dropbearkey", ["-t", "ed25519", "-f", dropbear])
        try #require(generated.status == 0, "dropbearkey failed: \(generated.stderr)")
        let dbclient = try TmuxTerminal()
        try open(dbclient, "dbclient -y -t -i '\(dropbear)' -p \(server.port) \(server.user)@127.0.0.1", server)
        let second = try buy(dbclient)
        #expect(second != bought)
        let dropbearFingerprint = try #require(generated.stdout.firstMatch(of: /SHA256:[A-Za-z0-9+\/]{43}/).map { String($0.output) })
        #expect(try orders(of: dropbearFingerprint, server).contains(second))
    }

    @Test func nothingButTheShopRuns() throws {
        let server = try OpenSSHServer()
        let key = try server.makeClientKey("prober")
        let ssh = [
            "-p", "\(server.port)", "-i", key, "-F", "/dev/null", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
        ]
        let target = "\(server.user)@127.0.0.1"

        let command = try Subprocess.run("/usr/bin/ssh", ssh + ["-T", target, "id; cat /etc/passwd"], timeout: .seconds(30))
        #expect(command.status == 1)
        #expect(command.stderr.contains("runs no commands: connect with ssh -t and no command"), "\(command.stderr)")
        #expect(!command.stdout.contains("uid="), "no command ran")

        let noTerminal = try Subprocess.run("/usr/bin/ssh", ssh + ["-T", target], timeout: .seconds(30))
        #expect(noTerminal.status == 1)
        #expect(noTerminal.stderr.contains("needs an interactive terminal: use ssh -t"), "\(noTerminal.stderr)")

        let subsystem = try Subprocess.run("/usr/bin/ssh", ssh + ["-T", "-s", target, "sftp"], timeout: .seconds(30))
        #expect(subsystem.status == 1, "sftp is the forced command too, which refuses it: \(subsystem.stderr)")

        let stdio = try Subprocess.run("/usr/bin/ssh", ssh + ["-W", "127.0.0.1:\(server.port)", target], timeout: .seconds(30))
        #expect(stdio.status == 255, "no forwarding to any address: \(stdio.stderr)")

        let remote = try Subprocess.run(
            "/usr/bin/ssh", ssh + ["-N", "-o", "ExitOnForwardFailure=yes", "-R", "0:127.0.0.1:\(server.port)", target], timeout: .seconds(30))
        #expect(remote.status == 255, "no remote forwarding: \(remote.stderr)")
        #expect(remote.stderr.contains("remote port forwarding failed"), "\(remote.stderr)")

        let agent = try Subprocess.run("/usr/bin/ssh", ssh + ["-A", "-T", target, "echo $SSH_AUTH_SOCK"], timeout: .seconds(30))
        #expect(!agent.stdout.contains("/"), "no agent socket, and no command to print it")
    }

    /// sshd-session as sshd's guest user runs it (ForceCommand, SSH_CONNECTION set): the guest's shop, held to the guest
    /// limits on this host by lock files that go with each session's process.
    @Test func guestSessionsKeepNothingAndAreHeldToTheirLimits() throws {
        let data = TemporaryDirectory.make().path
        // Both spellings of the data directory name the same slots.
        func guest(from address: String, _ limits: [String]) -> String {
            let dataOption = address.hasSuffix("7") ? "--data-dir \(data)" : "--data-dir=\(data)"
            return
                "env -u SSH_USER_AUTH SSH_CONNECTION='\(address) 50000 127.0.0.1 22' \(BuiltProduct.storefront) sshd-session --guest \(limits.joined(separator: " ")) \(dataOption); echo EXIT=$?"
        }
        let limits = ["--max-guests", "2", "--guests-per-address", "1"]
        let first = try TmuxTerminal()
        try first.type(guest(from: "10.9.8.7", limits))
        #expect(try first.waitForShop(timeout: .seconds(30)).contains("Guest: nothing is kept after you leave"))

        let sameAddress = try TmuxTerminal()
        try sameAddress.type(guest(from: "10.9.8.7", limits))
        #expect(try sameAddress.waitFor("EXIT=1").contains("your address has 1 guest session open already"))

        let second = try TmuxTerminal()
        try second.type(guest(from: "10.9.8.8", limits))
        try second.waitForShop(timeout: .seconds(30))
        let third = try TmuxTerminal()
        try third.type(guest(from: "10.9.8.9", limits))
        #expect(try third.waitFor("EXIT=1").contains("the shop has room for no more guests (2)"))

        // A guest who leaves frees the slot: the lock went with the shop's process.
        try first.press("q")
        try first.waitFor("EXIT=0")
        let later = try TmuxTerminal()
        try later.type(guest(from: "10.9.8.9", limits))
        try later.waitForShop(timeout: .seconds(30))
        try later.press("q")
        try second.press("q")
        try later.waitFor("EXIT=0")
    }

    @Test func sshdRefusesAnythingThatIsNotAKeyBeforeTheShop() throws {
        let listed = try Subprocess.run(BuiltProduct.storefront, ["sshd-keys", "ssh-ed25519", "not base64 at all"])
        #expect(listed.status == 0 && listed.stdout.isEmpty, "nothing printed: sshd refuses the key")
        let lying = try Subprocess.run(
            BuiltProduct.storefront, ["sshd-keys", "ssh-rsa", "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"])
        #expect(lying.stdout.isEmpty, "a key whose blob names another type is refused")
        let good = try Subprocess.run(
            BuiltProduct.storefront, ["sshd-keys", "ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"])
        #expect(good.stdout == "restrict,pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")
    }
}
