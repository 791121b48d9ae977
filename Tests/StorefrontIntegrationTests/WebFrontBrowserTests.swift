import Foundation
import StorefrontTesting
import Testing

/// `storefront web` in a real headless Chromium: the page loads, the shop draws, keystrokes buy, the terminal
/// follows the window, a closed tab ends its shop, and refusals read as words on the page.
@Suite("The shop in a browser", .serialized, .ownThreads)
struct WebFrontBrowserTests {
    static let web = ["web", "--listen", "127.0.0.1:0"]

    /// Where the tests keep what they show: `.build/test-artifacts/` in the package.
    static var artifacts: URL {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/test-artifacts")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aVisitorBuysFollowsTheWindowAndClosingTheTabEndsTheShop() throws {
        let server = try ServeProcess(command: Self.web)
        let browser = try Browser(width: 1100, height: 700)
        let opened = try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        #expect(opened["title"] as? String == "Storefront", "the page is titled with the shop's name")
        // The list's rows (drawn with box-drawing characters) come after the header: wait for them, under any load.
        let first = try browser.waitFor("│")
        #expect(first.contains("Guest: nothing is kept. Sign in (Account) for your saved cards."), "\(first)")
        #expect(first.contains("Products") && first.contains("guest · cart: empty"), "box drawing and UTF-8 arrive whole: \(first)")
        let open = try server.waitForLog(
            #/web session 1 open: browser guest web-guest:[0-9a-f]{16} from 127\.0\.0\.1, pid \d+, xterm-256color (\d+)x(\d+)/#)
        let wide = try browser.screen()
        #expect("\(wide.columns)x\(wide.lines)" == "\(open.output.1)x\(open.output.2)", "the session's pty is the page's size")

        try browser.press("ENTER", "a", "c", "ENTER", "p", "ENTER")
        let thanks = try browser.waitFor("Thank you")
        #expect(thanks.contains(/Order SF-\d{6} is paid/), "\(thanks)")
        let shot = Self.artifacts.appendingPathComponent("web-thank-you.png")
        try browser.must(["op": "screenshot", "path": shot.path])
        let png = try Data(contentsOf: shot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "a screenshot of the page is kept")

        // A narrower window: xterm.js refits, the page sends the size, the shop lays itself out again.
        let resized = try browser.must(["op": "resize", "width": 760, "height": 560])
        let narrow = (resized["screen"] as? [String: Any])?["columns"] as? Int ?? 0
        #expect(narrow < wide.columns && narrow > 40, "\(narrow) columns after the resize")
        try browser.press("s")
        let relaid = try browser.waitFor("Products")
        let header = relaid.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.contains("cart:") && header.count <= narrow && header.count >= narrow - 2, "the header spans the new width: \(header)")

        // A second tab gets its own shop; closing that tab ends that shop's process, and nothing is left behind.
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("Products")
        let second = try server.waitForLog(#/web session 2 open: .* pid (\d+),.*/#)
        let pid = pid_t(second.output.1)!
        // Its session started with its page, at the size the first tab's terminal was resized to (the page's cookie).
        #expect(second.output.0.contains("xterm-256color \(narrow)x") && second.output.0.contains("started with its page"), "\(second.output.0)")
        try browser.must(["op": "close_tab"])
        try server.waitForLog(#/web session 2 closed: page went away, pid \d+ exit 129/#)
        // A process of its own is gone and reaped; a session in a worker is gone from it (its end was reported).
        if !second.output.0.contains("in a worker") {
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the closed tab's shop process is gone and reaped")
        }
        #expect(!server.log.contains("web session 1 closed"), "the first tab's shop goes on")
    }

    /// The terminal's rows are elements, and xterm.js's screen-reader mode announces them: Chromium's accessibility
    /// tree reads them, and they follow the shop.
    @Test func theShopsRowsAreReadableAsTextByAssistiveTechnology() throws {
        let server = try ServeProcess(command: Self.web)
        let browser = try Browser()
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("Products")
        let tree = try browser.must(["op": "accessible_text", "text": "Products"])
        #expect((tree["text"] as? String)?.contains("cart: empty") == true, "\(tree)")
        #expect((tree["rows"] as? Int ?? 0) >= 20, "a row of text per terminal row: \(tree)")
        try browser.press("a")
        let after = try browser.must(["op": "accessible_text", "text": "cart: 1 item"])
        #expect(after["ok"] as? Bool == true)
        _ = server
    }

    /// Behind a proxy (`--public-origin`), anyone could type a shopper's email and read Sandbox ID's code off the
    /// screen: there visitors stay guests, offered no sign-in.
    @Test func aPublicPageOffersNoSignIn() throws {
        let port = try OpenSSHServer.freePort()
        let server = try ServeProcess(command: ["web", "--listen", "127.0.0.1:\(port)", "--public-origin", "http://127.0.0.1:\(port)"])
        let browser = try Browser()
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(port)/"])
        let first = try browser.waitFor("Products")
        #expect(first.contains("Guest: nothing is kept after you leave this page."), "\(first)")
        try browser.press("u")
        let account = try browser.waitFor("Shopping as a guest.")
        #expect(!account.contains("Sign in"), "\(account)")
        #expect(!server.log.contains("sign-in"), "\(server.log)")
    }

    @Test func aVisitorSignsInWithSandboxIDAndFindsTheirOrdersInTheNextTab() throws {
        let server = try ServeProcess(command: Self.web)
        let browser = try Browser()
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("Products")
        let code = try signIn(browser, name: "Jane Appleseed")
        try browser.press("s", "ENTER", "a", "c", "ENTER", "p", "ENTER")
        let thanks = try browser.waitFor("Thank you")
        let number = try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1)

        // A new tab is a new guest with nothing; signing in again reaches the order kept under the account.
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("Products")
        try browser.press("o")
        try browser.waitFor("No orders yet")
        _ = try signIn(browser, name: nil)
        try browser.press("o")
        try browser.waitFor(String(number))
        #expect(!server.log.contains(code), "no sign-in code in the log")
        #expect(!server.log.contains("jane@example.com"), "no email in the log")
    }

    /// Signs in on the account screen with Sandbox ID as jane@example.com; the code is read off the screen, as the
    /// sandbox shows it. Returns the code.
    private func signIn(_ browser: Browser, name: String?) throws -> String {
        try browser.press("u")
        try browser.waitFor("Sign in to keep your cart")
        try browser.press("i")
        try browser.waitFor("Sign in with Sandbox ID")
        try browser.press("jane@example.com", "ENTER")
        let prompt = try browser.waitFor("here it is:")
        let code = String(try #require(prompt.firstMatch(of: /here it is: (\d{6})/)?.1))
        try browser.press(code)
        if let name { try browser.press("TAB", name) }
        try browser.press("ENTER")
        // The profile keeps the name given on the first sign-in, as Sign in with Apple gives it once.
        try browser.waitFor("jane@example.com · signed in with Sandbox ID")
        return code
    }

    @Test func aVisitorOverThePerAddressLimitReadsWhyWithAWayToTryAgain() throws {
        let server = try ServeProcess(arguments: ["--sessions-per-address", "1"], command: Self.web)
        let browser = try Browser()
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("Products")
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("Your address has 1 shop open already. Close one and try again.")
        let status = try browser.must(["op": "status"])
        #expect(status["visible"] as? Bool == true)
        try server.waitForLog(#/web: refused a session from 127\.0\.0\.1: your address has 1 guest session open already/#)
        #expect(!server.log.contains("web session 2 open"))
    }

    @Test func thePageRunsUnderItsPolicyWithNothingRefusedAndNoInlineScriptButItsOwn() throws {
        let server = try ServeProcess(command: Self.web)
        let browser = try Browser()
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("Products")
        let console = try browser.must(["op": "console"])["messages"] as? [String] ?? []
        // "404" alone would match a port such as 40499 in a message's address.
        let refusals = console.filter { $0.contains("Content Security Policy") || $0.contains("Refused to") || $0.contains("status of 404") }
        #expect(refusals.isEmpty, "\(refusals)")
        let page = try LocalStripe.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
        // Its own two first scripts and its style only, which the policy allows by their hashes; no handler attributes.
        #expect(page.components(separatedBy: "<script").count == 3 && page.components(separatedBy: "<style").count == 2, "\(page)")
        #expect(!page.contains("onclick") && !page.contains("onload") && !page.contains("style="), "no inline handler or style attribute")
    }
}
