import Foundation
import GRDB
import StorefrontTesting
import Testing

/// The built binary in a real terminal (tmux at 100x30), driven with keys and read from the screen.
@Suite("In a real terminal", .serialized, .ownThreads)
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
        for (flag, expected) in [
            ("alternate_on", "0"), ("cursor_flag", "1"), ("mouse_any_flag", "0"), ("keypad_flag", "0"), ("keypad_cursor_flag", "0"),
        ] {
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
@Suite("Unusual terminals", .serialized, .ownThreads)
struct UnusualTerminalTests {
    @Test(
        "a terminal type that cannot be used gets a reason and exit 69",
        arguments: [
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
        try terminal.fill(["", "1 Loop Road", "", "Cupertino", "CA", "95014", "", ""])
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
        // The header names the signed-in shopper: by the profile's name, which is read after the first frame (until it
        // comes, "Sandbox ID account" stands there).
        try terminal.waitFor("Jane Appleseed ·")
        try terminal.press("o")
        let orders = try terminal.waitFor("SF-000001")
        #expect(orders.contains("1 total"))
    }
}
