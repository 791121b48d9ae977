import Foundation
import PseudoTerminal
import Testing

/// Sessions sharing worker processes (`--sessions-per-worker`), over the real OpenSSH client: a crash ends one
/// worker's sessions and no other's, each of its shoppers is told and given their terminal back, and the next shopper
/// is served by the spare worker without waiting on a fork.
@Suite("Sessions in worker processes", .serialized, .ownThreads)
struct ServeWorkersTests {
    /// The pid the server logged for session `number` (its worker's).
    private func pid(ofSession number: Int, in server: ServeProcess) throws -> pid_t {
        let opened = try server.waitForLog(try Regex("session \(number) open: .* pid (\\d+)"))
        return try #require(pid_t(String(opened.output[1].substring ?? "")))
    }

    @Test(.timeLimit(.minutes(3)))
    func aCrashEndsItsWorkersSessionsOnlyAndTheSpareServesTheNextShopper() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "2"], environment: ServeProcess.crashingOnBang)
        let host = try #require(pid_t(try server.waitForLog(#/forked from a session host, pid (\d+), up to 2 in each worker/#).output.1))
        let key = try server.makeClientKey("worker")
        var terminals: [TmuxTerminal] = []
        for _ in 0..<4 {
            let terminal = try TmuxTerminal()
            try server.connect(terminal, key: key)
            terminals.append(terminal)
        }
        let pids = try (1...4).map { try pid(ofSession: $0, in: server) }
        #expect(pids[0] == pids[1] && pids[2] == pids[3] && pids[0] != pids[2], "two workers of two sessions each: \(pids)")
        // The spare: a worker of the host's holding no session yet.
        let workers = ProcessTree.children(of: host)
        let spare = try #require(workers.first { !pids.contains($0) }, "a spare worker beside \(pids): \(workers)")

        try terminals[0].press("!")
        for (index, terminal) in terminals.prefix(2).enumerated() {
            try terminal.waitFor("this session stopped unexpectedly (SIGILL); your cart is saved. Reconnect to go on.", timeout: .seconds(60))
            try terminal.waitFor("EXIT=")
            #expect(!(try terminal.screen().contains("q quit")), "session \(index + 1) left the shop's screen: the terminal was reset")
        }
        try server.waitForLog(#/session worker \d+ crashed \(SIGILL\) with 2 session\(s\); they were told/#)
        #expect(kill(pids[0], 0) == -1 && errno == ESRCH, "the crashed worker is gone and reaped")

        // The other worker's shoppers shop on.
        try terminals[2].press("a")
        try terminals[2].waitFor("cart: 1 item")
        try terminals[3].press("j")
        try terminals[3].waitFor("2 of 24")

        // The next shopper goes to the spare worker that was ready before the crash.
        let next = try TmuxTerminal()
        try server.connect(next, key: key)
        #expect(try pid(ofSession: 5, in: server) == spare, "served by the spare, pid \(spare)")
        try server.leave(next)
    }

    @Test(.timeLimit(.minutes(2)))
    func aWorkerIsRecycledAfterItsShareOfSessionsAndEndsWithItsLast() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "4", "--worker-recycle-after", "2"])
        let key = try server.makeClientKey("recycled")
        let first = try TmuxTerminal()
        try server.connect(first, key: key)
        let second = try TmuxTerminal()
        try server.connect(second, key: key)
        let worker = try pid(ofSession: 1, in: server)
        #expect(try pid(ofSession: 2, in: server) == worker)
        // Two sessions were its share: the third goes elsewhere, though the worker has room.
        let third = try TmuxTerminal()
        try server.connect(third, key: key)
        #expect(try pid(ofSession: 3, in: server) != worker)
        try server.leave(first)
        #expect(kill(worker, 0) == 0, "it still holds a session")
        try server.leave(second)
        #expect(processEnds(worker, within: .seconds(15)), "the recycled worker ended with its last session")
        try third.press("a")
        try third.waitFor("cart: 1 item")
    }

    /// The session host killed (as the OOM killer would): its workers are the server's still, so their sessions go on
    /// and end as ever, their status known, and the next shopper is served.
    @Test(.timeLimit(.minutes(2)))
    func losingTheSessionHostLeavesTheWorkersSessionsRunning() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "4"])
        let key = try server.makeClientKey("orphans")
        let first = try TmuxTerminal()
        try server.connect(first, key: key)
        let second = try TmuxTerminal()
        try server.connect(second, key: key)
        let host = try #require(ProcessTree.child(of: server.pid, named: "session-host"), "the server's session host")
        #expect(kill(host, SIGKILL) == 0)
        try server.waitForLog(#/session host ended \(SIGKILL\)/#)
        try first.press("a")
        try first.waitFor("cart: 1 item")
        try server.leave(first)
        try server.leave(second)
        try server.waitForLog(#/session 1 closed: finished, pid \d+ exit 0, in a worker/#)
        try server.waitForLog(#/session 2 closed: finished, pid \d+ exit 0, in a worker/#)
        let third = try TmuxTerminal()
        try server.connect(third, key: key)
        // The saved cart is read as the shop opens, so it may come a frame after the first: waited for, not read once.
        try third.waitFor("cart: 1 item")
        try server.leave(third)
    }

    /// On a quiet server the spare opens the storage its sessions will share while it waits, so a shopper (each meets
    /// a spare there, since a worker ends with its last session) waits on no database open; a busy server's spare does
    /// not, and holds no storage until the server is quiet again.
    @Test(.timeLimit(.minutes(2)))
    func aQuietServersSpareOpensTheShopsDatabaseBeforeItsShopper() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "4"])
        let host = try #require(pid_t(try server.waitForLog(#/forked from a session host, pid (\d+)/#).output.1))
        let database = URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("storefront.sqlite").resolvingSymlinksInPath().path
        func opensDatabase(_ pid: pid_t) -> Bool {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == database }
        }
        /// A worker of the host other than `busy` that `holds` says of, within 30 s.
        func worker(besides busy: pid_t?, _ holds: (pid_t) -> Bool) -> pid_t? {
            var found: pid_t?
            _ = ProcessTree.waitUntil(timeout: .seconds(30)) {
                found = ProcessTree.children(of: host).first { $0 != busy && holds($0) }
                return found != nil
            }
            return found
        }
        let prepared = try #require(worker(besides: nil, opensDatabase), "the quiet server's spare opened \(database)")
        let key = try server.makeClientKey("prepared")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        #expect(try pid(ofSession: 1, in: server) == prepared, "the first shopper was served by the prepared spare")
        let busySpare = try #require(worker(besides: prepared) { _ in true }, "a spare forked beside the busy worker")
        #expect(!opensDatabase(busySpare), "a busy server's spare holds no storage")
        try server.leave(terminal)
        #expect(processEnds(prepared, within: .seconds(15)), "the worker ended with its last session")
        #expect(worker(besides: nil, opensDatabase) == busySpare, "quiet again, the spare opened the database")
    }

    @Test(.timeLimit(.minutes(2)))
    func aWindowChangeReachesASessionInAWorker() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "4"])
        let key = try server.makeClientKey("resized")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        #expect(try terminal.screen().split(separator: "\n").first?.contains("cart: empty") == true)
        _ = try terminal.tmux(["resize-window", "-t", "main", "-x", "60", "-y", "20"])
        // Cut to 60 columns, the header loses its right end, "cart: empty"; laid out again at 60, it has it back.
        try terminal.waitUntil("the shop laid out again at 60 columns") { $0.split(separator: "\n").first?.contains("cart: empty") == true }
        try server.leave(terminal)
    }
}
