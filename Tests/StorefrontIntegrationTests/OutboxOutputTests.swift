import Foundation
import GRDB
import StorefrontTesting
import Testing

/// What `storefront outbox` prints comes from shoppers: a name or an address written before today's rules (or by
/// hand into the database) holding escape sequences reaches the merchant's terminal as text, never as sequences.
@Suite("Outbox output", .ownThreads)
struct OutboxOutputTests {
    @Test func escapeSequencesInAStoredMessageNeverReachTheTerminalRaw() throws {
        let binary = try BuiltProduct.requireStorefront()
        let data = TemporaryDirectory.make().path + "/data"
        try #require(try Subprocess.run(binary, ["headless", "--data-dir", data, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        // An OSC 52 clipboard write and an OSC 0 title change, as an older row could hold them.
        let attack = "Eve\u{1B}]52;c;aGk=\u{07}\u{1B}]0;pwned\u{07}"
        let queue = try DatabaseQueue(path: data + "/storefront.sqlite")
        try queue.write { db in
            try db.execute(sql: "UPDATE outbox SET recipient_name = ?, last_error = ?", arguments: [attack, "said \(attack)"])
            try db.execute(sql: "UPDATE orders SET email_name = ?", arguments: [attack])
        }
        try queue.close()
        for arguments in [["outbox", "list"], ["outbox", "list", "--json"], ["outbox", "show", "MSG-000001"]] {
            let shown = try Subprocess.run(binary, arguments + ["--data-dir", data])
            #expect(shown.status == 0, "\(arguments): \(shown.stderr)")
            #expect(
                !shown.stdout.contains("\u{1B}") && !shown.stdout.contains("\u{07}"),
                "\(arguments) printed an escape raw: \(shown.stdout.debugDescription)")
        }
    }
}
