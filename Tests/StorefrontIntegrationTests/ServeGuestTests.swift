import Foundation
import StorefrontTesting
import Testing

/// Guests on the embedded server: no key, no prompt as `guest`, any password as anyone (the way in for a client
/// whose only key is RSA); nothing kept; counted apart from key holders.
@Suite("Guests over SSH", .serialized, .ownThreads)
struct ServeGuestTests {
    /// The OpenSSH client offering no key at all, as `user`.
    func keyless(_ server: ServeProcess, user: String = "guest") -> String {
        "ssh -tt -p \(server.port) -F /dev/null -o PubkeyAuthentication=no -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \(user)@127.0.0.1"
    }

    @Test func aGuestShopsWithNoKeyAndNoPromptAndIsToldNothingIsKept() throws {
        let server = try ServeProcess()
        let terminal = try TmuxTerminal()
        try terminal.type(keyless(server) + "; echo EXIT=$?")
        let first = try terminal.waitForShop(timeout: .seconds(30))
        #expect(first.contains("Guest: nothing is kept after you leave"), "\(first)")
        let opened = try server.waitForLog(#/session 1 open: guest (ssh-guest:[0-9a-f]{16}) from 127\.0\.0\.1/#)
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        let thanks = try terminal.waitFor("Thank you")
        let number = try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1)
        try server.leave(terminal)

        // The merchant has the order, under the guest's one-time id; the guest's next visit starts afresh.
        let orders = try Subprocess.run(BuiltProduct.storefront, ["orders", "--data-dir", server.dataDirectory, "--json"])
        #expect(orders.stdout.contains(String(number)) && orders.stdout.contains(String(opened.output.1)), "\(orders.stdout)")
        let again = try TmuxTerminal()
        try again.type(keyless(server) + "; echo EXIT=$?")
        let second = try again.waitForShop(timeout: .seconds(30))
        #expect(second.contains("cart: empty"))
        let reopened = try server.waitForLog(#/session 2 open: guest (ssh-guest:[0-9a-f]{16})/#)
        #expect(reopened.output.1 != opened.output.1, "a new guest each time")
        try again.press("o")
        try again.waitFor("No orders yet")
        try server.leave(again)
    }

    @Test func anRSAOnlyClientGetsInAsAGuestAtThePasswordPromptAndIsToldTheWaysToAnAccount() throws {
        let server = try ServeProcess(arguments: ["--openssh-front", "ssh shop@shop.example"])
        let key = server.directory.appendingPathComponent("rsa").path
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "3072", "-N", "", "-f", key])
        try #require(made.status == 0, "ssh-keygen failed: \(made.stderr)")
        let terminal = try TmuxTerminal()
        try terminal.type(
            "ssh -tt -p \(server.port) -i '\(key)' -F /dev/null -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR shopper@127.0.0.1; echo EXIT=$?"
        )
        try terminal.waitFor("password:", timeout: .seconds(30))
        try terminal.type("whatever")
        let first = try terminal.waitForShop(timeout: .seconds(30))
        #expect(first.contains("Guest: nothing is kept"))
        try server.waitForLog(#/session 1 open: guest ssh-guest:/#)
        #expect(!server.log.contains("whatever"), "a password is never logged")
        try server.leave(terminal)
        // Written before the shop took the screen, so there again once it gives the screen back.
        let after = try terminal.screen()
        #expect(after.contains("this server cannot use RSA keys"), "\(after)")
        #expect(after.contains("RSA keys and every other client work through OpenSSH: ssh shop@shop.example"), "\(after)")
    }

    @Test func guestsOverTheirCapAreToldWhyAndKeyHoldersStillGetIn() throws {
        let server = try ServeProcess(arguments: ["--max-sessions", "1", "--max-guests", "1"])
        let first = try TmuxTerminal()
        try first.type(keyless(server) + "; echo EXIT=$?")
        try first.waitForShop(timeout: .seconds(30))

        let turnedAway = try Subprocess.run("/bin/sh", ["-c", keyless(server) + " < /dev/null"], timeout: .seconds(30))
        #expect(turnedAway.status == 1)
        #expect(turnedAway.stderr.contains("the shop has room for no more guests (1); connect with an SSH key to get in"), "\(turnedAway.stderr)")

        let key = try server.makeClientKey("holder")
        let holder = try TmuxTerminal()
        try server.connect(holder, key: key)
        try server.leave(holder)
        try server.leave(first)
    }

    @Test func aServerWithoutGuestsOffersNoWayInWithoutAKey() throws {
        let server = try ServeProcess(arguments: ["--max-guests", "0"])
        let refused = try Subprocess.run("/bin/sh", ["-c", keyless(server) + " -o BatchMode=yes < /dev/null"], timeout: .seconds(30))
        #expect(refused.status == 255)
        #expect(refused.stderr.contains("Permission denied (publickey)"), "\(refused.stderr)")
    }
}
