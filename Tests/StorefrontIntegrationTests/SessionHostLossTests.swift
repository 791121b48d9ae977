import Foundation
import StorefrontTesting
import Testing

/// The session host killed under a running `serve` (as the OOM killer would): its sessions go on, each is reported
/// when it ends, and the server serves the next shopper from a new host.
@Suite("Losing the session host", .serialized, .ownThreads)
struct SessionHostLossTests {
    /// Sessions as processes of their own: the host's forks, orphaned. (In workers, see `ServeWorkersTests`.)
    @Test func twoOrphanedSessionsQuitAndAThirdShopperIsServed() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "1"])
        let key = try server.makeClientKey("orphans")
        let first = try TmuxTerminal()
        try server.connect(first, key: key)
        let second = try TmuxTerminal()
        try server.connect(second, key: key)
        let host = try #require(ProcessTree.child(of: server.pid, named: "session-host"), "the server's session host")
        #expect(kill(host, SIGKILL) == 0)
        try server.waitForLog(#/session host ended \(SIGKILL\) with 2 session\(s\) running/#)

        try first.press("a")
        try first.waitFor("cart: 1 item")
        for terminal in [first, second] {
            try terminal.press("q")
            try terminal.waitFor("EXIT=255", timeout: .seconds(15))
        }
        try server.waitForLog(#/session 1 closed: finished, pid \d+ ended, status unknown/#)
        try server.waitForLog(#/session 2 closed: finished, pid \d+ ended, status unknown/#)
        #expect(kill(server.pid, 0) == 0, "serve is still running")

        let third = try TmuxTerminal()
        try server.connect(third, key: key)
        try server.waitForLog(#/session host: it had ended; starting a new one/#)
        #expect(try third.screen().contains("cart: 1 item"), "the cart the orphaned session filled was kept")
        try server.leave(third)
        try server.waitForLog(#/session 3 closed: finished, pid \d+ exit 0/#)
    }
}
