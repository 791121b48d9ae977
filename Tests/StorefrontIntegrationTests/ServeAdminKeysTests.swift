import Foundation
import ShopSSH
import StorefrontTesting
import Testing

/// `serve --admin-keys`: the keys in the file get the merchant console over SSH, every other key the shop.
@Suite("Serve with admin keys", .serialized, .ownThreads)
struct ServeAdminKeysTests {
    @Test func anAdminKeyGetsTheConsoleAndAShoppersKeyCannot() throws {
        let keys = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        let admin = keys.appendingPathComponent("admin").path
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "ops", "-f", admin])
        try #require(made.status == 0, "ssh-keygen failed: \(made.stderr)")
        // An authorized_keys file as operators write them: a comment, and options before the key.
        let file = keys.appendingPathComponent("admin_keys").path
        try ("# the shop's operators\n" + String(contentsOfFile: admin + ".pub", encoding: .utf8)).write(
            toFile: file, atomically: true, encoding: .utf8)

        let server = try ServeProcess(arguments: ["--admin-keys", file])
        try server.waitForLog(#/merchant console for 1 admin key from/#)
        let shopper = try server.makeClientKey("shopper")
        let shop = try TmuxTerminal()
        try server.connect(shop, key: shopper)
        try shop.press("Enter", "a", "c", "Enter", "p", "Enter")
        let thanks = try shop.waitFor("Thank you")
        let number = try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1)
        // The console's keys mean nothing in the shop.
        try shop.press("s", "2")
        try shop.waitFor("Products")
        #expect(try !shop.screen().contains("merchant console"))
        try server.leave(shop)
        try server.waitForLog(#/session 1 open: customer ssh:/#)

        let console = try TmuxTerminal()
        try console.type(server.sshCommand(key: admin) + "; echo EXIT=$?")
        try console.waitFor("merchant console", timeout: .seconds(30))
        try console.waitFor(String(number))
        try console.press("Enter")
        try console.waitFor("s ship")
        try console.press("s")
        try console.write("UPS")
        try console.press("Enter")
        try console.write("1Z999")
        try console.press("Enter", "Enter")
        try console.waitFor("Ship \(number) with UPS, tracking 1Z999?")
        try console.press("Enter")
        try console.waitFor("\(number) is shipped.")
        // The buyer by name and email, never by their key; their page from a search, and a note left on it.
        let buyer = try ServeProcess.fingerprint(ofKey: shopper)
        try console.press("Escape")
        try console.press("Tab")
        try console.waitFor("Jane Appleseed · jane@")
        #expect(try !console.screen().contains(buyer), "the queue shows no fingerprint")
        try console.press("7")
        try console.waitFor("Find a customer")
        try console.write("jane@")
        try console.press("Enter")
        try console.waitFor("Customers · jane@")
        try console.press("Enter")
        try console.waitFor("Orders (1)")
        try console.waitFor(String(buyer.prefix(20)))
        try console.press("n")
        try console.write("Asked for gift wrapping")
        try console.press("Enter")
        try console.waitFor("Asked for gift wrapping")
        let fingerprint = try ServeProcess.fingerprint(ofKey: admin)
        try server.waitForLog(Regex("session 2 open: merchant console for admin key ssh:\(NSRegularExpression.escapedPattern(for: fingerprint))"))
        try server.leave(console)

        let shown = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["orders", "show", String(number), "--json", "--data-dir", server.dataDirectory])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("\"actor\" : \"merchant:ssh:\(fingerprint)\""), "the change is the admin key's: \(shown.stdout)")
    }

    /// `storefront admins add` names an account a merchant by its key: that key opens the console at its next connection,
    /// with no file; `admins remove` takes it back.
    @Test func anAccountNamedAMerchantOpensTheConsoleUntilItIsTakenBack() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("ops")
        let fingerprint = try ServeProcess.fingerprint(ofKey: key)
        let binary = try BuiltProduct.requireStorefront()
        let added = try Subprocess.run(binary, ["admins", "add", fingerprint, "--data-dir", server.dataDirectory])
        #expect(
            added.status == 0 && added.stdout.contains("is a merchant: its 1 SSH key open the merchant console"), "\(added.stdout)\(added.stderr)")
        let listed = try Subprocess.run(binary, ["admins", "list", "--json", "--data-dir", server.dataDirectory])
        #expect(listed.stdout.contains(fingerprint) && listed.stdout.contains("\"account\" : \"ssh:\(fingerprint)\""), "\(listed.stdout)")

        let console = try TmuxTerminal()
        try console.type(server.sshCommand(key: key) + "; echo EXIT=$?")
        try console.waitFor("merchant console", timeout: .seconds(30))
        try server.leave(console)

        let removed = try Subprocess.run(binary, ["admins", "remove", "ssh:" + fingerprint, "--data-dir", server.dataDirectory])
        #expect(removed.status == 0 && removed.stdout.contains("is no longer a merchant"), "\(removed.stderr)")
        let again = try Subprocess.run(binary, ["admins", "remove", fingerprint, "--data-dir", server.dataDirectory])
        #expect(again.status == 65 && again.stderr.contains("is not a merchant"), "\(again.stderr)")
        let shop = try TmuxTerminal()
        try server.connect(shop, key: key)
        #expect(try !shop.screen().contains("merchant console"))
        try server.leave(shop)
    }

    @Test func aFileWithoutKeysStopsServeWithTheLine() throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("admin_keys").path
        try "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHh0 ops\nnot a key\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(),
            ["serve", "--port", "0", "--data-dir", directory.appendingPathComponent("data").path, "--admin-keys", file])
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(file), line 1: the ssh-ed25519 key is not valid base64 of a ssh-ed25519 key"), "\(result.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/ssh_host_ed25519_key").path),
            "refused before anything was made")
    }
}
