import Foundation
import StorefrontTesting
import Testing

/// `storefront serve` driven by the real OpenSSH client, in tmux, as a shopper would.
@Suite("Serving over SSH with the OpenSSH client", .serialized, .ownThreads)
struct ServeOverSSHTests {

    @Test func buyEndToEndAndTheOrderBelongsToTheKey() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("shopper")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        let fingerprint = try ServeProcess.fingerprint(ofKey: key)
        // The header names the customer by the key's fingerprint, shortened.
        #expect(try terminal.screen().contains(String(fingerprint.prefix(12))))

        // A new key's wallet starts with the sandbox test cards and sample addresses: it buys the
        // first product at once, with the keys the footers show.
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        let thanks = try terminal.waitFor("Thank you")
        let number = try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1)
        try server.leave(terminal)
        try server.waitForLog(#/session 1 closed: finished, pid \d+ exit 0/#)

        let orders = try Subprocess.run(BuiltProduct.storefront, ["orders", "--data-dir", server.dataDirectory, "--customer", "ssh:\(fingerprint)"])
        #expect(orders.status == 0)
        #expect(orders.stdout.contains(String(number)), "the order is the key's: \(orders.stdout)")
    }

    @Test func twoKeysGetTwoCartsAndAKeyGetsItsCartBack() throws {
        let server = try ServeProcess()
        let alice = try server.makeClientKey("alice")
        let bob = try server.makeClientKey("bob")

        // Each connection gets a terminal of its own, so nothing typed for one can reach the next.
        let first = try TmuxTerminal()
        try server.connect(first, key: alice)
        try first.press("a")
        try first.waitFor("cart: 1 item")
        try server.leave(first)

        let other = try TmuxTerminal()
        try server.connect(other, key: bob)
        #expect(try other.screen().contains("cart: empty"), "bob's cart is his own")
        try other.press("Down", "a")
        try other.waitFor("cart: 1 item · $18.00")
        try server.leave(other)

        let again = try TmuxTerminal()
        try server.connect(again, key: alice)
        let back = try again.waitFor("cart: 1 item")
        #expect(back.contains("$64.00"), "alice's cart came back: \(back)")
    }

    @Test func theTerminalTypeSizeAndResizesReachTheRemoteShopAndCtrlZStopsNothing() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("resizer")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        // The pty request carried the client's TERM and size.
        try server.waitForLog(#/session 1 open: .* xterm-256color 100x30/#)
        #expect(try terminal.screen().contains("│"), "a preview pane at 100 columns")

        // Ctrl-Z reaches the shop as a key: nothing is suspended, the next key still works.
        try terminal.press("C-z", "a")
        try terminal.waitFor("cart: 1 item")
        try terminal.press("Up", "a")
        try terminal.waitFor("cart: 2 items")

        try terminal.resize(columns: 50, rows: 15)
        let small = try terminal.waitUntil("the 50x15 layout over SSH") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.first.map { $0.contains("2 items") && $0.count <= 50 } == true && !screen.contains("│") && screen.contains("1 of 24")
        }
        #expect(small.split(separator: "\n").allSatisfy { $0.count <= 50 })
    }

    @Test func aClientTerminalTheHostDoesNotKnowStillGetsTheShop() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("kitty")
        let terminal = try TmuxTerminal()
        // A name no terminfo has, as xterm-kitty or alacritty are on a host without ncurses-term.
        try terminal.type("TERM=xterm-from-the-future " + server.sshCommand(key: key) + "; echo EXIT=$?")
        try terminal.waitFor("q quit", timeout: .seconds(30))
        try server.waitForLog(#/session 1: TERM "xterm-from-the-future" is not in this host's terminfo; using xterm-256color/#)
    }

    @Test func disconnectingHangsUpTheSessionProcess() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("leaver")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        try terminal.press("a")
        try terminal.waitFor("cart: 1 item")
        let opened = try server.waitForLog(#/session 1 open: .* pid (\d+).*/#)
        let pid = try #require(pid_t(opened.output.1))
        #expect(kill(pid, 0) == 0, "the session process runs while the client is there")

        // The ssh client dies with its terminal, as when a laptop lid closes.
        _ = try terminal.tmux(["kill-server"])
        try server.waitForLog(#/session 1 closed: client went away, pid \d+ exit 129/#)
        // A process of its own is gone and reaped; a session in a worker is gone from it, its end reported with 129.
        if !opened.output.0.contains("in a worker") {
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the session process is gone and reaped")
        }

        // The cart outlived the session.
        let again = try TmuxTerminal()
        try server.connect(again, key: key)
        #expect(try again.screen().contains("cart: 1 item"))
    }

    /// `--session-start exec`, the way before the session host: each session a new program, the server's own child.
    @Test func withSessionStartExecEachSessionIsANewProgramOfTheServer() throws {
        let server = try ServeProcess(arguments: ["--session-start", "exec"])
        let key = try server.makeClientKey("exec")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        let opened = try server.waitForLog(#/session 1 open: .* pid (\d+)/#)
        let pid = try #require(pid_t(opened.output.1))
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let parent = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")[1]
        #expect(parent == "\(server.pid)", "the server's child, not a host's")
        #expect(!server.log.contains("session host"))
        try terminal.press("a")
        try terminal.waitFor("cart: 1 item")
        try server.leave(terminal)
        try server.waitForLog(#/session 1 closed: finished, pid \d+ exit 0/#)
    }

    /// The shop starts off the server's event loop: keys and a window change that come while it starts (the session
    /// host and its spare worker held stopped, so the start waits for an answer) are kept and reach the shop once it runs.
    @Test func keysAndAResizeWhileTheShopStartsReachIt() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("early")
        // The server names its host once it has started it; stopped before it is ready to fork, it forks nothing either.
        let host = try #require(pid_t(try server.waitForLog(#/forked from a session host, pid (\d+)/#).output.1), "the session host's pid")
        // A spare worker forked before the stop would start the session at once; it is held too.
        // Stopped for certain before its children are listed: a host not yet stopped could still fork one after.
        try ProcessTree.stop(host)
        let held = [host] + ProcessTree.children(of: host)
        for process in held.dropFirst() { try ProcessTree.stop(process) }
        var stopped = true
        defer { if stopped { for process in held { kill(process, SIGCONT) } } }
        let terminal = try TmuxTerminal()
        try terminal.type(server.sshCommand(key: key) + "; echo EXIT=$?")
        try Self.waitForQueuedRequest(to: held)
        try terminal.press("c")
        try terminal.resize(columns: 120, rows: 40)
        for process in held { kill(process, SIGCONT) }
        stopped = false
        let header = { (screen: String) in screen.split(separator: "\n").first { $0.contains("cart: empty") }.map(String.init) ?? "" }
        let screen = try terminal.waitUntil("the cart, drawn at 120 columns") { $0.contains("Your cart") && header($0).count > 100 }
        #expect(header(screen).count > 100, "drawn at the width the client had when it started: \(header(screen))")
        try server.leave(terminal)
    }

    /// Waits until a request to start a session sits unread on a stopped process's socket (`ss` from iproute2).
    private static func waitForQueuedRequest(to held: [pid_t], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(4))
        while ContinuousClock.now < deadline {
            let listing = try Subprocess.run("/usr/bin/ss", ["-x", "-a", "-p"]).stdout
            let queued = listing.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return held.contains { line.contains("pid=\($0),") } && fields.count > 2 && (Int(fields[2]) ?? 0) > 0
            }
            if queued { return }
        }
        Issue.record("no start request reached the session host (ss, from iproute2)", sourceLocation: sourceLocation)
        throw TmuxError(message: "no start request reached the session host")
    }

    /// A session process signalled: a process each (in workers, a crash ends one worker: `ServeWorkersTests`).
    @Test func aCrashedSessionEndsWithAMessageAndOthersGoOn() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "1"])
        let key = try server.makeClientKey("crasher")
        let crashing = try TmuxTerminal()
        let bystander = try TmuxTerminal()
        try server.connect(crashing, key: key)
        let first = try server.waitForLog(#/session 1 open: .* pid (\d+)/#)
        try server.connect(bystander, key: key)
        try server.waitForLog(#/session 2 open/#)

        kill(try #require(pid_t(first.output.1)), SIGSEGV)
        let screen = try crashing.waitForSSHExit()
        #expect(screen.contains("storefront: this session stopped unexpectedly (SIGSEGV); your cart is saved."))
        #expect(screen.contains("EXIT=139"))
        try server.waitForLog(#/session 1 closed: crashed/#)

        try bystander.press("a")
        try bystander.waitFor("cart: 1 item")
    }

    /// A session that dies without putting the terminal back (SIGKILL cannot be caught; a crash may not get to):
    /// the server sends the reset, so the shopper's shell is usable and clicks type nothing into it.
    @Test("a killed or crashed session leaves the client's terminal as a shell needs it", arguments: [SIGKILL, SIGSEGV])
    func aKilledSessionLeavesTheTerminalUsable(signal: Int32) throws {
        // The session's own process is signalled; a worker's crash resets its terminals the same way (`ServeWorkersTests`).
        let server = try ServeProcess(arguments: ["--sessions-per-worker", "1"])
        let key = try server.makeClientKey("killed")
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: key)
        let opened = try server.waitForLog(#/session 1 open: .* pid (\d+)/#)
        #expect(try terminal.paneFlag("alternate_on") == "1" && terminal.paneFlag("mouse_any_flag") == "1", "the shop set the modes up")
        kill(try #require(pid_t(opened.output.1)), signal)
        _ = try terminal.waitForSSHExit()
        for (flag, expected) in [
            ("alternate_on", "0"), ("cursor_flag", "1"), ("mouse_any_flag", "0"), ("mouse_sgr_flag", "0"), ("keypad_flag", "0"),
            ("keypad_cursor_flag", "0"),
        ] {
            #expect(try terminal.paneFlag(flag) == expected, "\(flag) after the session died of signal \(signal)")
        }
    }

    @Test func withoutAPtyTheClientIsToldToUseSshT() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("scripted")
        let shell = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false))
        #expect(shell.status == 1)
        #expect(shell.stderr.contains("storefront needs an interactive terminal: use ssh -t"), "stderr: \(shell.stderr)")

        let command = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false) + ["cat", "/etc/passwd"])
        #expect(command.status == 1)
        #expect(command.stderr.contains("storefront runs no commands"))
        #expect(!command.stdout.contains("root:"))

        let subsystem = try Subprocess.run("/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false) + ["-s", "sftp"])
        #expect(subsystem.status == 1)
        #expect(subsystem.stderr.contains("storefront offers no subsystems"))

        let tunnel = try Subprocess.run(
            "/usr/bin/ssh", server.sshArguments(key: key, allocateTerminal: false) + ["-N", "-o", "ExitOnForwardFailure=yes", "-R", "0:localhost:9"])
        #expect(tunnel.status == 255, "remote forwarding is refused: \(tunnel.stderr)")

        let noKey = try Subprocess.run(
            "/usr/bin/ssh", server.sshArguments(key: "/dev/null", allocateTerminal: false) + ["-o", "PubkeyAuthentication=no"])
        #expect(noKey.status == 255)
        #expect(
            noKey.stderr.contains("Permission denied (password,publickey)"), "a key, or a password for a guest (none in batch mode): \(noKey.stderr)")
        #expect(!server.log.contains("session 1 open"))
    }

    @Test func withTheTestCardsOffANewKeyBuysInOneGuidedPathUsingOnlyKeysTheScreenShows() throws {
        let server = try ServeProcess(environment: ["STOREFRONT_SANDBOX_TEST_CARDS": "off"])
        let terminal = try TmuxTerminal()
        try server.connect(terminal, key: try server.makeClientKey("newcomer"))
        /// Presses `key` after checking the screen offers it as `hint` (a footer or a button).
        func press(_ key: String, shown hint: String) throws {
            #expect(try terminal.screen().contains(hint), "the screen offers \(hint) before \(key) is pressed")
            try terminal.press(key)
        }
        try press("Enter", shown: "Enter open")
        try terminal.waitFor("Product")
        try press("a", shown: "a add")
        try terminal.waitFor("cart: 1 item")
        try press("c", shown: "c cart")
        try terminal.waitFor("Your cart")
        try press("Enter", shown: "Enter checkout")
        try terminal.waitFor("No card in your wallet works here")
        try press("Enter", shown: "Enter set up card")
        try terminal.waitFor("Add a card")
        try terminal.fill(["4242424242424242", "12/30", "123", "Sam Shopper", "95014"])
        // Back on the sheet with the new card, which says what Pay still needs.
        try terminal.waitFor("Add a shipping address to pay.")
        try press("p", shown: "p what's missing")
        try terminal.waitUntil("the cursor on Ship to") { $0.contains("Ship to   Choose an address") }
        try press("Enter", shown: "Enter change")
        try terminal.waitFor("Add an address")
        try terminal.fill(["Sam Shopper", "1 Loop Road", "", "Cupertino", "CA", "95014", "sam@example.com", ""])
        let ready = try terminal.waitFor("Ship to   Sam Shopper, 1 Loop Road")
        #expect(ready.contains("p pay"), "Pay is offered once the sheet is complete: \(ready)")
        try press("p", shown: "p pay")
        try terminal.waitFor("Enter to confirm")
        try terminal.press("Enter")
        let thanks = try terminal.waitFor("Thank you")
        #expect(thanks.contains("Paid with  Visa ••4242"), "paid with the card it added: \(thanks)")
        try server.leave(terminal)
    }

    /// A click over SSH: the real client forwards the SGR report the session asked its terminal for.
    @Test func aClickOnAFooterHintWorksOverSSH() throws {
        let server = try ServeProcess()
        let client = try SSHClientProcess(arguments: server.sshArguments(key: try server.makeClientKey("clicker")))
        let drawn = waitForAll([client], timeout: .seconds(30)) { $0.received.contains("Products") && $0.received.contains("quit") }
        try #require(drawn.isEmpty, "no first frame: \(client.received.suffix(300))")
        #expect(client.received.contains("\u{1B}[?1006;1000h"), "the session asked for SGR mouse reports")
        // The client's stdin is a pipe, so its pty is 80x24; the footer reads " Enter open  a add …": "a add" starts at column 14.
        client.send("\u{1B}[<0;14;24M\u{1B}[<0;14;24m")
        let added = waitForAll([client], timeout: .seconds(30)) { $0.received.contains("Added Dusk Keycap Set to your cart.") }
        #expect(added.isEmpty, "the click added the selected product: \(client.received.suffix(300))")
        client.hangUp()
    }
}
