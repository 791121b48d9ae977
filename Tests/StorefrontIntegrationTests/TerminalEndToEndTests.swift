import StorefrontTesting
import Foundation
import GRDB
import Testing

/// The built binary in a real terminal (tmux at 100x30), driven with keys and read from the screen.
@Suite("In a real terminal", .serialized)
struct TerminalEndToEndTests {
    /// Starts the shop from a shell, so what is left after it exits can be checked too.
    private func startShop(_ terminal: TmuxTerminal, latencyMilliseconds: Int = 20) throws {
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("'\(binary)' --data-dir '\(terminal.directory.path)/data' --sandbox-latency-ms \(latencyMilliseconds); echo EXIT=$?")
        try terminal.waitForShop()
    }

    /// A crash in a local `run`: the crash handler puts every mode back, application cursor and keypad keys too.
    @Test func aCrashLeavesTheTerminalAsAShellNeedsIt() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal)
        #expect(try terminal.paneFlag("keypad_cursor_flag") == "1" && terminal.paneFlag("mouse_any_flag") == "1", "the shop set the modes up")
        let shell = try terminal.paneFlag("pane_pid")
        let children = try Subprocess.run("/usr/bin/pgrep", ["-P", shell])
        let shop = try #require(children.stdout.split(separator: "\n").first.flatMap { pid_t($0) }, "the shop's pid under the shell \(shell)")
        kill(shop, SIGSEGV)
        try terminal.waitFor("EXIT=139")
        for (flag, expected) in [("alternate_on", "0"), ("cursor_flag", "1"), ("mouse_any_flag", "0"), ("keypad_flag", "0"), ("keypad_cursor_flag", "0")] {
            #expect(try terminal.paneFlag(flag) == expected, "\(flag) after a crash")
        }
    }

    @Test func buyTheFirstProductWithTheDefaultCard() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal)
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        let screen = try terminal.waitFor("Thank you")
        #expect(screen.range(of: #"Order SF-\d{6} is paid\."#, options: .regularExpression) != nil)
        #expect(screen.contains("cart: empty"))
    }

    @Test func declineCardShowsTheReasonAndKeepsTheCart() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal)
        // The third card in the sandbox wallet is the generic decline card (…0002).
        try terminal.press("Enter", "a", "c", "Enter", "Enter", "Down", "Down", "Enter", "p", "Enter")
        let screen = try terminal.waitFor("Your card was declined.")
        #expect(screen.contains("cart: 1 item"))
        #expect(screen.contains("Visa ••0002"))
    }

    @Test func resizeToFiftyByFifteenAndBack() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal)
        #expect(try terminal.screen().contains("│"), "a preview pane at 100 columns")
        try terminal.resize(columns: 50, rows: 15)
        let small = try terminal.waitUntil("the 50x15 layout") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            // The whole redraw, not a half-written one: the header, the title row and no preview pane.
            return lines.first.map { $0.hasSuffix("cart: empty") && $0.count <= 50 } == true && !screen.contains("│") && screen.contains("1 of 24")
        }
        #expect(small.split(separator: "\n").allSatisfy { $0.count <= 50 })
        try terminal.resize(columns: 100, rows: 30)
        try terminal.waitUntil("the 100x30 layout") { screen in
            screen.split(separator: "\n").first.map { $0.count > 90 } == true && screen.contains("│")
        }
    }

    @Test func cursesDrawsTheSameScreensWhenAskedTo() throws {
        // The same keys, once through the shop's own bytes and once through curses' doupdate.
        var screens: [String] = []
        for output in ["", "STOREFRONT_OUTPUT=curses "] {
            let terminal = try TmuxTerminal()
            let binary = try BuiltProduct.requireStorefront()
            try terminal.type("\(output)'\(binary)' --data-dir '\(terminal.directory.path)/data'; echo EXIT=$?")
            try terminal.waitForShop()
            try terminal.press("Down", "Down", "a")
            try terminal.waitFor("cart: 1 item")
            try terminal.press("Down")
            try terminal.waitFor("4 of 24")
            screens.append(try terminal.screen())
            try terminal.press("q")
            try terminal.waitFor("EXIT=0")
        }
        #expect(screens[0] == screens[1])
        #expect(screens[0].contains("› "), "the selection is drawn")
    }

    @Test func qQuitsAndLeavesTheTerminalSane() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal)
        #expect(try terminal.paneFlag("alternate_on") == "1")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        #expect(try terminal.paneFlag("alternate_on") == "0")
        #expect(try terminal.paneFlag("cursor_flag") == "1")
        // The marker is computed by the shell, so the echoed command line cannot match it.
        try terminal.type("stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | sort | tr '\\n' ' '; echo MODES$((6*7))")
        let screen = try terminal.waitFor("MODES42")
        #expect(screen.contains("echo icanon MODES42"), "the shell gets its line editing back")
        #expect(screen.contains("$ "), "the shell prompt is visible")
    }

    @Test func ctrlCInTheMiddleOfAPaymentQuitsCleanly() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal, latencyMilliseconds: 5_000)
        try terminal.press("Enter", "a", "c", "Enter", "p", "Enter")
        try terminal.waitFor("Processing…")
        try terminal.press("C-c")
        try terminal.waitFor("EXIT=130")
        #expect(try terminal.paneFlag("alternate_on") == "0")
        #expect(try terminal.paneFlag("cursor_flag") == "1")
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal)
        _ = try Subprocess.run("/usr/bin/env", ["pkill", "-TERM", "-f", "--", "--data-dir \(terminal.directory.path)/data"])
        try terminal.waitFor("EXIT=143")
        #expect(try terminal.paneFlag("alternate_on") == "0")
    }
}

/// Terminals the shop cannot or should not draw on in full.
@Suite("Unusual terminals", .serialized)
struct UnusualTerminalTests {
    @Test("a terminal type that cannot be used gets a reason and exit 69", arguments: [
        ("dumb", "cannot move the cursor"),
        ("no-such-terminal-xyz", "is not in the terminfo database"),
    ])
    func refusedTerminal(term: String, reason: String) throws {
        let terminal = try TmuxTerminal()
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("TERM=\(term) '\(binary)' --data-dir '\(terminal.directory.path)/data'; echo EXIT=$?")
        let screen = try terminal.waitFor("EXIT=69")
        #expect(screen.contains(reason))
        #expect(try terminal.paneFlag("alternate_on") == "0", "nothing was drawn")
    }

    @Test func unsetTermGetsAReason() throws {
        let terminal = try TmuxTerminal()
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("env -u TERM '\(binary)' --data-dir '\(terminal.directory.path)/data'; echo EXIT=$?")
        let screen = try terminal.waitFor("EXIT=69")
        #expect(screen.contains("TERM is not set"))
    }

    @Test func nonUTF8LocaleDrawsASCII() throws {
        let terminal = try TmuxTerminal()
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("LANG=C LC_ALL=C '\(binary)' --data-dir '\(terminal.directory.path)/data'; echo EXIT=$?")
        let screen = try terminal.waitForShop()
        #expect(screen.contains("> Dusk Keycap Set"))
        let isASCII = screen.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(isASCII, "ASCII only:\n\(screen)")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
    }
}

/// What the command line says and returns, with no terminal attached.
@Suite("Command line")
struct CommandLineTests {
    /// Where the binary may write: never the real home directory.
    let scratch = TemporaryDirectory.make().path

    @Test func pipingIntoTheShopSaysToUseHeadless() throws {
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["--data-dir", scratch], input: "q\n")
        #expect(result.status == 69)
        #expect(result.stderr.contains("storefront needs an interactive terminal; for scripts use `storefront headless`"))
        #expect(result.stdout.isEmpty, "nothing is drawn")
    }

    @Test func dumbTerminalIsRefusedWithAReason() throws {
        // stdin/stdout are pipes here, so the TTY check fires first; TERM handling is checked by the screen tests.
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["--data-dir", scratch], environment: ["TERM": "dumb", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 69)
    }

    @Test func badCatalogIsRejectedBeforeTheScreen() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json")
        try #"{"products": [{"id": "x", "name": "X", "description": "d", "price": -1}]}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["--catalog", file.path, "--data-dir", scratch])
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"$.products[0].price (product "x"): must not be negative, got -1"#))
        #expect(result.stdout.isEmpty)
    }

    @Test func catalogValidate() throws {
        let binary = try BuiltProduct.requireStorefront()
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/StoreSandbox/Resources/catalog.json").standardizedFileURL.path
        let valid = try Subprocess.run(binary, ["catalog", "validate", assets])
        #expect(valid.status == 0)
        #expect(valid.stdout.contains("valid, 24 products in USD for Storefront"))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dup-\(UUID()).json")
        try #"[{"id":1,"name":"A","price":1,"description":"d"},{"id":1,"name":"B","price":2.5,"description":"d"}]"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let invalid = try Subprocess.run(binary, ["catalog", "validate", file.path])
        #expect(invalid.status == 65)
        #expect(invalid.stderr.contains("duplicate id"))
        #expect(invalid.stderr.contains("must be a whole number"))

        let missing = try Subprocess.run(binary, ["catalog", "validate", "/nonexistent/catalog.json"])
        #expect(missing.status == 66)
    }

    @Test func headlessPrintsTheFinalFrame() throws {
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless", "--data-dir", scratch, "--size", "80x24", "--keys", "enter,a,c,enter,p,enter"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Thank you!"))
        #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().count == 24, "one line per row")
    }

    @Test func headlessRejectsUnknownKeysAndBadSizes() throws {
        let binary = try BuiltProduct.requireStorefront()
        let key = try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "enter,warp"])
        #expect(key.status == 64)
        #expect(key.stderr.contains("unknown key \"warp\" at position 2"))
        let size = try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--size", "80by24"])
        #expect(size.status == 64)
        #expect(size.stderr.contains("bad size \"80by24\""))
    }

    @Test func badConfigFileNamesTheLine() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID())")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("storefront"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        try "theme = mono\ncolour = blue\n".write(to: home.appendingPathComponent("storefront/config"), atomically: true, encoding: .utf8)
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless"], environment: ["XDG_CONFIG_HOME": home.path, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("config:2: unknown key \"colour\""))
    }
}

extension CommandLineTests {
    @Test func aDamagedDatabaseIsNamedAndLeftAlone() throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("storefront.sqlite")
        try Data("not a database, but someone's file".utf8).write(to: file)
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless", "--data-dir", directory.path])
        #expect(result.status == 74)
        #expect(result.stderr.contains("\(file.path) is not a storefront database or is damaged"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "not a database, but someone's file")
    }
}

extension CommandLineTests {
    @Test func ordersAreKeptAcrossRunsAndListedNewestFirst() throws {
        let binary = try BuiltProduct.requireStorefront()
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        #expect(try Subprocess.run(binary, ["orders", "--data-dir", scratch]).stdout == "No orders yet.\n")
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "enter,a,a,c,enter,p,enter"]).status == 0)
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "down,enter,a,c,enter,p,enter"]).status == 0)
        let table = try Subprocess.run(binary, ["orders", "--data-dir", scratch])
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("SF-000002") && lines[1].contains("$24.48") && lines[1].hasSuffix("local:\(NSUserName())"))
        #expect(lines[2].hasPrefix("SF-000001") && lines[2].contains("$138.56"))
        let json = try Subprocess.run(binary, ["orders", "--data-dir", scratch, "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        let orders = try #require(document["orders"] as? [[String: Any]])
        #expect(orders.map { $0["total"] as? Int } == [2448, 13856])
        #expect(orders.map { $0["status"] as? String } == ["paid", "paid"])
        #expect(orders.allSatisfy { $0["paymentReference"] is NSNull }, "the sandbox has no provider reference")
        #expect(Set(orders[0].keys) == ["number", "placedAt", "status", "currency", "subtotal", "shipping", "tax", "total", "payment", "paymentReference", "shippingMethod", "shipTo", "customer", "lines"], "the fields docs/orders-json.md lists")
        let screen = try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "o"])
        #expect(screen.stdout.contains("2 total"), "the orders screen reads the same database")
    }
}

extension CommandLineTests {
    @Test func ordersReadsTheDataDirectoryFromTheConfigFile() throws {
        let binary = try BuiltProduct.requireStorefront()
        let config = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: config.appendingPathComponent("storefront"), withIntermediateDirectories: true)
        try "data-dir = \(scratch)\n".write(to: config.appendingPathComponent("storefront/config"), atomically: true, encoding: .utf8)
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        let listed = try Subprocess.run(binary, ["orders"], environment: ["XDG_CONFIG_HOME": config.path, "HOME": config.path, "PATH": "/usr/bin:/bin"])
        #expect(listed.stdout.hasPrefix("Order"), "the order made in the configured data directory is listed:\n\(listed.stdout)\(listed.stderr)")
    }
}

extension TerminalEndToEndTests {
    /// Issue 5's whole story in the real binary: sign in, add a card (a bad number first), an
    /// address, buy with One-Tap, quit, and come back still signed in with the order listed.
    @Test func signInAddACardBuyWithOneTapAndComeBackSignedIn() throws {
        let terminal = try TmuxTerminal()
        try startShop(terminal)
        try terminal.press("u")
        try terminal.waitFor("Sign in to keep your cart")
        try terminal.press("i")
        try terminal.waitFor("Sign in with Sandbox ID")
        try terminal.write("jane@example.com")
        try terminal.press("Enter")
        let prompt = try terminal.waitFor("here it is:")
        let code = try #require(prompt.firstMatch(of: /here it is: (\d{6})/)?.1)
        try terminal.write(String(code))
        try terminal.press("Tab")
        try terminal.write("Jane Appleseed")
        try terminal.press("Enter")
        try terminal.waitFor("Signed in as Jane Appleseed")

        try terminal.press("n")
        try terminal.waitFor("Add a card")
        try terminal.fill(["4242424242424241", "12/30", "123", "Jane Appleseed", "95014"])
        try terminal.waitFor("! This card number is not valid: check the digits.")
        try terminal.press("BSpace")
        try terminal.write("2")
        try terminal.press("Enter", "Enter", "Enter", "Enter", "Enter")
        try terminal.waitFor("Saved Visa ••4242")

        try terminal.press("d")
        try terminal.waitFor("Add an address")
        // Name, country and email come filled in from the account.
        try terminal.fill(["", "1 Loop Road", "Cupertino", "95014", "", "", ""])
        try terminal.waitFor("One-Tap ready")

        try terminal.press("s", "Enter")
        try terminal.waitFor("b buy now")
        try terminal.press("b")
        try terminal.waitFor("Enter to confirm")
        try terminal.press("Enter")
        let thanks = try terminal.waitFor("Thank you")
        #expect(thanks.contains("Visa ••4242"))

        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        try startShop(terminal)
        #expect(try terminal.screen().contains("Jane Appleseed ·"), "the header names the signed-in shopper")
        try terminal.press("o")
        let orders = try terminal.waitFor("SF-000001")
        #expect(orders.contains("1 total"))
    }
}

/// `orders` is an interface for scripts: an error is an exit status and a message, never an empty list.
extension CommandLineTests {
    @Test func ordersTellsAMissingDirectoryABusyDatabaseAndABadCustomerApart() throws {
        let binary = try BuiltProduct.requireStorefront()
        let missing = try Subprocess.run(binary, ["orders", "--json", "--data-dir", scratch + "/nowhere"])
        #expect(missing.status == 66)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("no such data directory: \(scratch)/nowhere"), "\(missing.stderr)")

        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let file = scratch + "/a-file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        let notDirectory = try Subprocess.run(binary, ["orders", "--data-dir", file])
        #expect(notDirectory.status == 66)
        #expect(notDirectory.stderr.contains("the data directory \(file) is not a directory"))

        let empty = try Subprocess.run(binary, ["orders", "--json", "--data-dir", scratch])
        #expect(empty.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1 && (document["orders"] as? [Any])?.isEmpty == true)

        for malformed in ["SF-000001", "local:", "ssh:not-a-fingerprint", "sandbox-id:a b", "local:\u{1B}[2J"] {
            let refused = try Subprocess.run(binary, ["orders", "--data-dir", scratch, "--customer", malformed])
            #expect(refused.status == 64, "\(malformed): \(refused.stderr)")
            #expect(refused.stderr.contains("is not a customer id"))
        }

        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        // A list that cannot be written is an error too, not a silent success.
        let full = try Subprocess.run("/bin/sh", ["-c", "'\(binary)' orders --json --data-dir '\(scratch)' > /dev/full"])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("cannot write the orders: No space left on device"), "\(full.stderr)")

        // A writer holding SQLite's exclusive lock keeps every reader out, even in WAL mode.
        let locker = try DatabaseQueue(path: scratch + "/storefront.sqlite")
        let busy = try locker.inDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode=EXCLUSIVE")
            try db.execute(sql: "BEGIN EXCLUSIVE")
            try db.execute(sql: "UPDATE stock SET on_hand = on_hand")
            defer { try? db.execute(sql: "ROLLBACK") }
            return try Subprocess.run(binary, ["orders", "--json", "--data-dir", scratch])
        }
        #expect(busy.status == 75, "\(busy.stderr)")
        #expect(busy.stdout.isEmpty, "no list is printed for an error")
        #expect(busy.stderr.contains("is busy: another process holds a lock on it"), "\(busy.stderr)")
    }
}
