import Foundation
import PseudoTerminal
import StorefrontTesting
import Testing

/// The system's OpenSSH handing its sessions to a server's workers (`sshd-config --join`, `serve --join-socket`):
/// the shop as the key's account, window changes and the end passed through, a crash told as on `serve`, and a shop
/// of its own whenever no server takes the session.
@Suite("OpenSSH's sessions in a server's workers", .serialized, .ownThreads)
struct OpenSSHJoinTests {
    /// Connects from a shell in `terminal`; once the client exits, the shell prints its status and `TTY=restored` if the
    /// terminal's modes are what they were before it.
    func open(_ terminal: TmuxTerminal, key: String, _ sshd: OpenSSHServer) throws {
        try terminal.type("S=$(stty -g); " + sshd.sshCommand(key: key) + "; echo EXIT=$?; [ \"$(stty -g)\" = \"$S\" ] && echo TTY=restored")
        do {
            try terminal.waitForShop(timeout: .seconds(30))
        } catch {
            Issue.record("sshd's log:\n\(sshd.log)")
            throw error
        }
    }

    @Test(.timeLimit(.minutes(4)))
    func aKeysSessionRunsInTheServersWorkerAndFallsBackToItsOwnProcessWithoutOne() throws {
        let socketDirectory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: socketDirectory) }
        let join = socketDirectory.appendingPathComponent("join.sock").path
        let sshd = try OpenSSHServer(setupOptions: ["--join", join])
        let key = try sshd.makeClientKey("joiner")
        let account = String(try ServeProcess.fingerprint(ofKey: key).prefix(12))

        // Nothing listens yet: the session is the shop in a process of its own, as without --join.
        let alone = try TmuxTerminal()
        try open(alone, key: key, sshd)
        try alone.press("a")
        try alone.waitFor("cart: 1 item")
        try alone.press("q")
        try alone.waitFor("EXIT=0")
        try alone.waitFor("TTY=restored")

        let server = try ServeProcess(
            arguments: ["--sessions-per-worker", "4", "--join-socket", join], environment: ServeProcess.crashingOnBang,
            dataDirectory: sshd.dataDirectory)
        try server.waitForLog(#/taking OpenSSH's sessions at /#)
        let host = try #require(pid_t(try server.waitForLog(#/forked from a session host, pid (\d+), up to 4 in each worker/#).output.1))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: join)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "only the server's user may hand it sessions")

        let terminal = try TmuxTerminal()
        try open(terminal, key: key, sshd)
        let opened = try server.waitForLog(
            #/session 1 opened: customer ssh:(SHA256:\S+) from 127\.0\.0\.1, joined through \S+, pid (\d+), in a worker/#)
        let worker = try #require(pid_t(String(opened.output.2)))
        #expect(ProcessTree.children(of: host).contains(worker), "the session runs in a worker of the server's host")
        #expect(opened.output.1.hasPrefix(account), "the key sshd verified is the customer")
        #expect(try terminal.screen().contains("cart: 1 item"), "the same account's cart, filled in the session of its own")

        _ = try terminal.tmux(["resize-window", "-t", "main", "-x", "60", "-y", "20"])
        try terminal.waitUntil("the shop laid out again at 60 columns") { $0.split(separator: "\n").first?.contains("cart: 1 item") == true }
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        try terminal.waitFor("TTY=restored")
        try server.waitForLog(#/session 1 closed: finished, pid \d+ exit 0, in a worker/#)

        // A crash in the worker: this shopper is told with the serve front's words, and the terminal is reset.
        let crashing = try TmuxTerminal()
        try open(crashing, key: key, sshd)
        try server.waitForLog(#/session 2 opened: .*, in a worker/#)
        try crashing.press("!")
        do {
            try crashing.waitFor("this session stopped unexpectedly (SIGILL); your cart is saved. Reconnect to go on.", timeout: .seconds(20))
        } catch {
            _ = try? server.waitForLog(#/no such line/#, timeout: .seconds(3))
            Issue.record("server's log:\n\(server.log)\nsshd's log:\n\(sshd.log)")
            throw error
        }
        try crashing.waitFor("EXIT=132")
        try crashing.waitFor("TTY=restored")
        #expect(!(try crashing.screen().contains("q quit")), "the shop's screen is gone: the terminal was reset")
        try server.waitForLog(#/session 2 closed: crashed, pid \d+ SIGILL, in a worker/#)

        // A client that goes away: sshd hangs up the terminal and the joiner, and the session ends in its worker,
        // whichever the worker hears first (the terminal's hang-up, or the server passing the joiner's on).
        let leaving = try TmuxTerminal()
        try open(leaving, key: key, sshd)
        try server.waitForLog(#/session 3 opened: .*, in a worker/#)
        _ = try leaving.tmux(["kill-server"])
        let gone = try server.waitForLog(#/session 3 closed: (client went away|finished), pid \d+ (.*), in a worker/#)
        #expect(!gone.output.2.contains("SIG") || gone.output.2.contains("SIGHUP"), "ended as a hang-up ends it: \(gone.output.0)")

        // A drain reaches the joined sessions too: told why, and the socket file is gone with the server.
        let drained = try TmuxTerminal()
        try open(drained, key: key, sshd)
        try server.waitForLog(#/session 4 opened: .*, in a worker/#)
        #expect(try server.terminate() == 0)
        try drained.waitFor("the shop is closing for maintenance; your cart is saved.")
        try drained.waitFor("TTY=restored")
        #expect(!FileManager.default.fileExists(atPath: join), "the join socket is removed at the end")
    }

    /// Waits (bounded) until the server closes `socket`: a read that returns end of file.
    func closedByTheServer(_ socket: Int32) -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        var byte: UInt8 = 0
        while !waitReadable([socket], before: deadline).isEmpty {
            if recv(socket, &byte, 1, 0) <= 0 { return true }
        }
        return false
    }

    @Test(.timeLimit(.minutes(2)))
    func aJoinerThatSaysNothingNonsenseOrNoCustomerIsTurnedAwayAndTheServerServesOn() throws {
        let socketDirectory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: socketDirectory) }
        let join = socketDirectory.appendingPathComponent("join.sock").path
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "4", "--join-socket", join])
        try server.waitForLog(#/taking OpenSSH's sessions at /#)
        // A joiner brings a socket and a terminal (a pipe here): those are counted, and named when some stay. Files
        // are left out: the server opens its database's files as it needs them. (Under stress-ng this named 7 joiners'
        // sockets never closed: a join refused before its reader was filed, fixed in OpenSSHJoin's `listen`.)
        let joinerKinds = { ProcessTree.descriptorTargets(of: server.pid).filter { $0.contains("socket:") || $0.contains("pipe:") } }
        let descriptors = { joinerKinds().count }
        let before = descriptors()
        let targetsBefore = joinerKinds()

        let nonsense = try SessionJoin.connect(path: join)
        defer { close(nonsense) }
        #expect(write(nonsense, "GET / HTTP/1.1\r\n\r\n", 18) == 18)
        #expect(closedByTheServer(nonsense))
        try server.waitForLog(#/closed a joiner on \S+: a message out of order or malformed/#)

        let silent = try SessionJoin.connect(path: join)
        defer { close(silent) }
        #expect(closedByTheServer(silent), "a joiner that sends nothing is let go after its deadline")
        try server.waitForLog(#/closed a joiner on \S+ that sent no join within 5/#)

        let nameless = try SessionJoin.connect(path: join)
        defer { close(nameless) }
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        try SessionJoin.send(.join(environment: ["TERM": "xterm"], terminal: ends[1]), on: nameless)
        guard case .message(let reply) = SessionJoin.receiveReply(on: nameless) else {
            Issue.record("no reply to a join without a customer")
            return
        }
        #expect(reply == .refused("storefront: sshd named no verified key and no guest: the session has no customer"))
        #expect(closedByTheServer(nameless))
        // Every refused joiner's connection is let go of: twenty more leave the server's descriptors as they were.
        for _ in 0..<20 {
            let another = try SessionJoin.connect(path: join)
            defer { close(another) }
            try SessionJoin.send(.join(environment: ["TERM": "xterm"], terminal: ends[1]), on: another)
            #expect(closedByTheServer(another))
        }
        // A refused joiner's socket is shut down at once (what the joiner sees) and closed once its dispatch source's
        // cancel handler has run: on a loaded machine more than the last three can still be open when the loop ends, so
        // the count is given until a deadline to come back. Nothing announces a closed descriptor, so /proc is read
        // again every 10 ms: a busy loop here took the core the server needed to close them.
        _ = ProcessTree.waitUntil(timeout: .seconds(60)) { descriptors() <= before + 3 }
        #expect(
            descriptors() <= before + 3,
            "the server holds \(descriptors()) sockets and pipes, \(before) before the joiners; new: \(joinerKinds().subtracting(targetsBefore).sorted())"
        )

        let key = try server.makeClientKey("after")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        try server.leave(terminal)
    }

    @Test func aJoinSocketNeedsSessionsInWorkers() throws {
        let directory = TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let refused = try Subprocess.run(
            try BuiltProduct.requireStorefront(),
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory.appendingPathComponent("data").path, "--sessions-per-worker",
                "1", "--join-socket", directory.appendingPathComponent("join.sock").path,
            ], timeout: .seconds(60))
        #expect(refused.status == 78, "a configuration error (docs/exit-codes.md): \(refused.stderr)")
        #expect(refused.stderr.contains("a join socket needs sessions in workers"), "\(refused.stderr)")
    }
}
