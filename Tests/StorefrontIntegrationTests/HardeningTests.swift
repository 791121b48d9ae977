import Crypto
import Foundation
import GRDB
import StorefrontTesting
import Testing

/// Files, permissions and what reaches a terminal: each test is one way the shop used to crash,
/// hang, leak or mislead, driven through the built binary.
@Suite("Hardening: files and messages", .ownThreads)
struct HardeningTests {
    let scratch = TemporaryDirectory.make()

    private func file(_ name: String, _ text: String) throws -> String {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let path = scratch.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func fifo(_ name: String) throws -> String {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let path = scratch.appendingPathComponent(name).path
        try #require(mkfifo(path, 0o600) == 0, "mkfifo failed")
        return path
    }

    /// True when the output holds a byte that starts or ends a terminal control sequence.
    private func hasTerminalControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" || $0 == "\u{9D}" }
    }

    // MARK: - Escape sequences in messages (10)

    @Test(
        "values from a catalog reach stderr without escape sequences",
        arguments: [
            #"[{"id":"\u001b]52;c;UFdORUQ=\u0007x","name":"W","description":"d.","price":1}]"#,
            #"{"store":{"currency":"\u001b]0;PWNED\u0007"},"products":[{"id":"a","name":"W","description":"d.","price":1}]}"#,
            #"{"store":{"supportedNetworks":["\u001b[2J"]},"products":[{"id":"a","name":"W","description":"d.","price":1}]}"#,
            #"[{"id":"a","name":"W","description":"d.","price":1,"currency":"\u001b]0;x\u0007"}]"#,
            "{\"\u{1B}]0;PWNED\u{07}\" 1}",
        ])
    func catalogValuesAreSanitized(json: String) throws {
        let path = try file("catalog.json", json)
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["catalog", "validate", path])
        #expect(result.status == 65)
        #expect(!result.stderr.isEmpty)
        #expect(!hasTerminalControls(result.stderr + result.stdout), "raw control bytes in: \(result.stderr.debugDescription)")
    }

    /// ArgumentParser quotes a refused value back; the quote goes through the shop's sanitizer.
    @Test(
        "a refused argument is echoed without its escape sequences",
        arguments: [
            ["headless", "--keys", "a,\u{1B}]0;PWNED\u{07}"],
            ["headless", "--size", "\u{1B}[2J80x24"],
            ["headless", "--keys", "a", "--cast", "/tmp/never.cast", "--pace", "\u{1B}[31m1s"],
            ["serve", "--idle-timeout", "\u{9B}2J5m"],
            ["--\u{1B}[2Jnot-an-option"],
        ])
    func argumentErrorsAreSanitized(arguments: [String]) throws {
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!result.stderr.isEmpty)
        #expect(!hasTerminalControls(result.stderr + result.stdout), "raw control bytes in: \(result.stderr.debugDescription)")
    }

    @Test func aCatalogPathFromTheConfigFileAndAFingerprintAreSanitized() throws {
        let binary = try BuiltProduct.requireStorefront()
        let config = scratch.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("storefront"), withIntermediateDirectories: true)
        try "catalog = /nowhere/\u{1B}]0;PWNED\u{07}.json\n".write(
            to: config.appendingPathComponent("storefront/config"), atomically: true, encoding: .utf8)
        let badPath = try Subprocess.run(
            binary, ["headless", "--data-dir", scratch.path + "/data"], environment: ["XDG_CONFIG_HOME": config.path, "PATH": "/usr/bin:/bin"])
        #expect(badPath.status == 66)
        #expect(badPath.stderr.contains("no such catalog file: /nowhere/"))
        #expect(!hasTerminalControls(badPath.stderr))

        let fingerprint = try Subprocess.run(
            binary, ["headless", "--data-dir", scratch.path + "/data"],
            environment: [
                "STOREFRONT_SSH_KEY_FINGERPRINT": "SHA256:\u{1B}]52;c;UFdORUQ=\u{07}", "PATH": "/usr/bin:/bin", "HOME": scratch.path,
            ])
        #expect(fingerprint.status == 64)
        #expect(fingerprint.stderr.contains("is not an OpenSSH SHA256 fingerprint"))
        #expect(!hasTerminalControls(fingerprint.stderr))
    }

    // MARK: - Config files that cannot be read (9)

    @Test(
        "a config file that cannot be used stops the program with exit 78",
        arguments: [
            ("directory", "is a directory, not a config file"),
            ("latin1", "config:2: is not valid UTF-8"),
            ("fifo", "is not a regular file"),
        ])
    func unusableConfigFilesAreErrors(kind: String, message: String) throws {
        let config = scratch.appendingPathComponent("config/storefront")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let path = config.appendingPathComponent("config").path
        switch kind {
        case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        case "latin1": try (Data("theme = mono\ndata-dir = /tmp/caf".utf8) + [0xE9, 0x0A]).write(to: URL(fileURLWithPath: path))
        default: try #require(mkfifo(path, 0o600) == 0)
        }
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--data-dir", scratch.path + "/data"],
            environment: [
                "XDG_CONFIG_HOME": scratch.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
            ], timeout: .seconds(30))
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    // MARK: - FIFOs where a file is expected (8)

    @Test func aFIFOAsTheCredentialFileIsRefusedWithoutHanging() throws {
        let config = scratch.appendingPathComponent("config/storefront")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try #require(mkfifo(config.appendingPathComponent("credentials").path, 0o600) == 0)
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--size", "200x24", "--data-dir", scratch.path + "/data"],
            environment: [
                "XDG_CONFIG_HOME": scratch.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin", "HOME": scratch.path,
            ], timeout: .seconds(30))
        #expect(result.status == 0, "killed by the watchdog means it hung: \(result.status)")
        #expect(result.stdout.contains("not a regular file"))
    }

    @Test func aFIFOAsTheHostKeyOrTheCatalogIsRefusedWithoutHanging() throws {
        let binary = try BuiltProduct.requireStorefront()
        let hostKey = try fifo("host_key")
        let serve = try Subprocess.run(
            binary, ["serve", "--host", "127.0.0.1", "--port", "0", "--host-key", hostKey, "--data-dir", scratch.path + "/data"],
            timeout: .seconds(30))
        #expect(serve.status == 78, "\(serve.stderr)")
        #expect(serve.stderr.contains("not a regular file"))

        let catalog = try fifo("catalog.json")
        let validate = try Subprocess.run(binary, ["catalog", "validate", catalog], timeout: .seconds(30))
        #expect(validate.status == 66)
        #expect(validate.stderr.contains("is not a regular file"))
        let headless = try Subprocess.run(binary, ["headless", "--catalog", catalog, "--data-dir", scratch.path + "/data"], timeout: .seconds(30))
        #expect(headless.status == 66)
    }

    // MARK: - The database file (6, 7)

    private func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    @Test func aDatabaseFromANewerStorefrontIsLeftByteForByte() throws {
        let binary = try BuiltProduct.requireStorefront()
        let data = scratch.appendingPathComponent("data")
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", data.path, "--keys", "a"]).status == 0)
        let path = data.appendingPathComponent("storefront.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try queue.close()
        }
        let before = try sha256(path)
        let refused = try Subprocess.run(binary, ["headless", "--data-dir", data.path])
        #expect(refused.status == 74)
        #expect(refused.stderr.contains("was written by a newer storefront (schema steps v99-from-the-future"))
        #expect(try sha256(path) == before, "the refused file was modified")

        let orders = try Subprocess.run(binary, ["orders", "--data-dir", data.path])
        #expect(orders.status == 74)
        #expect(try sha256(path) == before, "orders modified a refused file")
    }

    @Test func listingOrdersLeavesTheDatabaseAsItWas() throws {
        let binary = try BuiltProduct.requireStorefront()
        let data = scratch.appendingPathComponent("data")
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", data.path, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        let path = data.appendingPathComponent("storefront.sqlite").path
        let before = try sha256(path)
        let listed = try Subprocess.run(binary, ["orders", "--data-dir", data.path])
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("SF-000001"))
        #expect(try sha256(path) == before)
        let none = try Subprocess.run(binary, ["orders", "--data-dir", scratch.appendingPathComponent("none").path])
        #expect(none.status == 66 && none.stdout.isEmpty, "a data directory that was named must exist")
        #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("none").path), "listing created a data directory")
    }

    @Test func theDatabaseAndItsWALAreOwnerOnlyInAnOpenDirectory() throws {
        let data = scratch.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = data.appendingPathComponent("storefront.sqlite").path
        // An older storefront left it readable by everyone: it is closed to them on the next start.
        try Data().write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        #expect(try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless", "--data-dir", data.path, "--keys", "a"]).status == 0)
        #expect(try mode(path) == 0o600)
        // SQLite gives the -wal and -shm the database's own mode: open it and look while they exist.
        let pool = try DatabasePool(path: path)
        try pool.write { db in try db.execute(sql: "UPDATE catalog_meta SET value = value") }
        #expect(try mode(path + "-wal") == 0o600)
        #expect(try mode(path + "-shm") == 0o600)
        try pool.close()
    }
}

/// The permission bits of `path`.
private func mode(_ path: String) throws -> Int {
    ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1) & 0o777
}

/// The full-disk log (4) and the open data directory (7), with `run` in a real terminal.
@Suite("Hardening: in a terminal", .serialized, .ownThreads)
struct HardeningTerminalTests {
    @Test func aLogOnAFullDiskNeverStopsTheShopAndIsToldOnce() throws {
        let terminal = try TmuxTerminal()
        let data = terminal.directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: data.appendingPathComponent("storefront.log").path, withDestinationPath: "/dev/full")
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("'\(binary)' --data-dir '\(data.path)' --sandbox-latency-ms 0 2>'\(terminal.directory.path)/err'; echo EXIT=$?")
        try terminal.waitForShop()
        try terminal.press("Enter")
        try terminal.press("a")
        try terminal.waitFor("Added")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        let stderr = try String(contentsOfFile: terminal.directory.path + "/err", encoding: .utf8)
        let told = stderr.components(separatedBy: "cannot write the log").count - 1
        #expect(told == 1, "said once: \(stderr)")
        #expect(stderr.contains("No space left on device"))
        #expect(!stderr.contains("Fatal error"))
    }

    @Test func anOpenDataDirectoryIsWarnedOfAndTheWALIsOwnerOnly() throws {
        let terminal = try TmuxTerminal()
        let data = terminal.directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("'\(binary)' --data-dir '\(data.path)'; echo EXIT=$?")
        try terminal.waitForShop()
        // Add to the cart so the database has been written through its WAL while the shop is open.
        try terminal.press("a")
        try terminal.waitFor("Added")
        for suffix in ["", "-wal", "-shm"] {
            let path = data.appendingPathComponent("storefront.sqlite").path + suffix
            let bits = try mode(path)
            #expect(bits == 0o600, "\(path) is \(String(bits, radix: 8))")
        }
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        let log = try String(contentsOf: data.appendingPathComponent("storefront.log"), encoding: .utf8)
        #expect(log.contains("is open to other users (mode 755)"))
    }
}

/// A data directory on a file system with no space left: a tmpfs the test mounts (it needs root, as CI has).
@Suite("Hardening: a full disk", .serialized, .ownThreads)
struct FullDiskTests {
    @Test func aFullDiskIsNamedAndWhatOnlyReadsStillWorks() throws {
        let binary = try BuiltProduct.requireStorefront()
        let mountPoint = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let mounted = try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=3m,mode=0700", "tmpfs", mountPoint.path])
        try #require(mounted.status == 0, "mounting a 3 MB tmpfs needs root (util-linux's mount): \(mounted.stderr)")
        defer { _ = try? Subprocess.run("/bin/umount", ["-l", mountPoint.path]) }
        let data = mountPoint.appendingPathComponent("data").path
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        // Fill every block that is left.
        let filler = try Subprocess.run("/bin/dd", ["if=/dev/zero", "of=\(mountPoint.path)/filler", "bs=64k"])
        #expect(filler.stderr.contains("No space left on device"), "\(filler.stderr)")

        let orders = try Subprocess.run(binary, ["orders", "--data-dir", data])
        #expect(orders.status == 0, "orders only reads: \(orders.stderr)")
        #expect(orders.stdout.contains("SF-000001"))

        let browsing = try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "down,enter"])
        #expect(browsing.status == 0, "\(browsing.stderr)")
        #expect(browsing.stdout.contains("stdout Mug"), "the shop can be browsed:\n\(browsing.stdout)")

        let adding = try Subprocess.run(binary, ["headless", "--data-dir", data, "--size", "300x24", "--keys", "a"])
        #expect(adding.stdout.contains("the disk holding \(data)/storefront.sqlite is full"), "a save says why it failed:\n\(adding.stdout)")

        let fresh = try Subprocess.run(binary, ["headless", "--data-dir", mountPoint.path + "/fresh", "--keys", "down"])
        #expect(fresh.status == 74 || fresh.status == 73, "\(fresh.status)")
        #expect(fresh.stderr.contains("is full") || fresh.stderr.contains("No space left on device"), "\(fresh.stderr)")
        #expect(!fresh.stderr.contains("disk I/O error"), "the cause is named: \(fresh.stderr)")
    }
}
