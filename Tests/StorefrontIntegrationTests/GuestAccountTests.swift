import Foundation
import StorefrontTesting
import Testing

/// The OpenSSH front's guest account, made as docs/openssh.md says (the shop user's UID, an empty password, the
/// storefront binary as its shell), tried by an unprivileged local user with su: no shell, no command, no file.
@Suite("The guest account under su", .serialized, .ownThreads)
struct GuestAccountTests {
    @Test func anUnprivilegedUserGetsNoShellNorCommandThroughTheGuestAccount() throws {
        guard getuid() == 0 else {
            Issue.record("this test makes system users (useradd), which takes root, as CI runs")
            return
        }
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let (shop, guest, mallory) = ("sfshop\(suffix)", "sfguest\(suffix)", "sfmal\(suffix)")
        // The binary in a root-owned place, as the docs ask; not listed in /etc/shells.
        let directory = "/run/storefront-guest-test-\(suffix)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let binary = directory + "/storefront"
        #expect(try Subprocess.run("/bin/cp", [try BuiltProduct.requireStorefront(), binary]).status == 0)
        let data = TemporaryDirectory.make().path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        defer {
            for user in [mallory, guest, shop] { _ = try? Subprocess.run("/usr/sbin/userdel", [user]) }
            try? FileManager.default.removeItem(atPath: directory)
        }
        func must(_ tool: String, _ arguments: [String]) throws {
            let done = try Subprocess.run(tool, arguments)
            try #require(done.status == 0, "\(tool) \(arguments): \(done.stderr)")
        }
        try must("/usr/sbin/useradd", ["--system", "--user-group", "--no-create-home", "--home-dir", data, "--shell", "/bin/sh", shop])
        let uid = String(getpwnam(shop)!.pointee.pw_uid)
        try must(
            "/usr/sbin/useradd", ["--non-unique", "--uid", uid, "--gid", shop, "--no-create-home", "--home-dir", data, "--shell", binary, guest])
        try must("/usr/bin/passwd", ["-d", guest])
        try must("/usr/sbin/useradd", ["--no-create-home", "--shell", "/bin/sh", mallory])
        try "secret of the shop\n".write(toFile: data + "/storefront.sqlite", atomically: true, encoding: .utf8)
        _ = chown(data, uid_t(uid)!, getpwnam(shop)!.pointee.pw_gid)
        _ = chmod(data, 0o700)
        _ = chown(data + "/storefront.sqlite", uid_t(uid)!, getpwnam(shop)!.pointee.pw_gid)
        _ = chmod(data + "/storefront.sqlite", 0o600)

        // Mallory's own attempts, each through su with no password (PAM's nullok lets the empty one in).
        for attempt in [
            "su \(guest) -c 'id; cat \(data)/storefront.sqlite'",
            "su -s /bin/sh \(guest) -c 'id; cat \(data)/storefront.sqlite'",
            "su \(guest) < /dev/null",
            "su - \(guest) < /dev/null",
            "su \(guest) -c '\(binary) sshd-session; cat \(data)/storefront.sqlite'",
        ] {
            let tried = try Subprocess.run("/usr/bin/su", [mallory, "-s", "/bin/sh", "-c", attempt], timeout: .seconds(30))
            let said = tried.stdout + tried.stderr
            #expect(!said.contains("uid=") && !said.contains("secret of the shop"), "\(attempt): \(said)")
            #expect(tried.status != 0, "\(attempt) failed")
            #expect(said.contains("only opens the shop's guest sessions"), "\(attempt): refused in words: \(said)")
        }
        // What sshd runs still runs: the forced command, called as the account's shell.
        let forced = try Subprocess.run("/usr/bin/su", [guest, "-c", "\(binary) sshd-session --guest"], timeout: .seconds(30))
        #expect(
            forced.stderr.contains("needs an interactive terminal") && !forced.stderr.contains("only opens"),
            "the session ran and asked for its terminal: \(forced.stderr)")
    }

    /// The binary's path and the run options land in sshd's configuration: nothing in them may add a directive,
    /// reach the shell, or break every login.
    @Test(arguments: [
        "/usr/bin/storefront\nPermitRootLogin yes", "/usr/bin/store front", "/usr/bin/storefront;id", "/usr/bin/(storefront)",
        "/usr/bin/sf\u{1B}]0;x\u{07}",
    ])
    func sshdConfigRefusesABinaryThatWouldChangeWhatSshdRuns(_ binary: String) throws {
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["sshd-config", "--binary", binary])
        #expect(result.status == 64, "\(result.stdout)")
        #expect(result.stderr.contains("--binary must be a plain path") && !result.stdout.contains("PermitRootLogin"), "\(result.stderr)")
        let option = try Subprocess.run(try BuiltProduct.requireStorefront(), ["sshd-config", "--", "--data-dir", "/var/lib/(shop)"])
        #expect(option.status == 64)
    }
}
