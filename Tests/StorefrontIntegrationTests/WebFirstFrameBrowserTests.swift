import Foundation
import StorefrontTesting
import Testing

/// The browser tab's first frames, in a real headless Chromium: the page's own inline scripts open the session and
/// draw what it sends before xterm.js is loaded, take the keys meanwhile, and give way to xterm.js, which draws the
/// same screen.
@Suite("The browser tab's first frames", .serialized, .ownThreads)
struct WebFirstFrameBrowserTests {
    /// Before xterm.js is there (or should it never come), the page's own terminal follows the window: the session is
    /// told the new size and the shop draws again at it, and the next visit's session starts at it.
    @Test func thePagesOwnTerminalFollowsTheWindowBeforeXtermJS() throws {
        let (server, browser) = try Self.tabWithoutXtermJS()
        let wide = try browser.must(["op": "preview", "text": "│", "any": ["▀", "▄"], "narrower_than": 10_000])
        let before = try #require(wide["size"] as? [Int], "\(wide)")
        try browser.must(["op": "window_size", "width": 800, "height": 500])
        let narrow = try browser.must(["op": "preview", "text": "cart: empty", "narrower_than": before[0]])
        let after = try #require(narrow["size"] as? [Int], "\(narrow)")
        let shown = rows(narrow)
        #expect(after[1] < before[1] && shown.count == after[1], "as many rows as the page's terminal has now: \(after), \(shown)")
        // The status line, drawn again at the new width, ends as far from the right edge as it did at the old one.
        let margin = before[0] - (rows(wide).first?.count ?? 0)
        #expect(shown.first?.hasSuffix("cart: empty") == true && shown.first?.count == after[0] - margin, "\(before), \(after): \(shown.first ?? "")")
        #expect(shown.joined().contains("Products"))
        try browser.must(["op": "screenshot", "path": WebFrontBrowserTests.artifacts.appendingPathComponent("web-preview-resized.png").path])

        // The next visit's session starts at the size the page kept.
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try server.waitForLog(Regex("web session 2 open: [^\\n]*xterm-256color \(after[0])x\(after[1]), started with its page"))
    }

    /// A key pressed while the page's socket is still opening (the shop already painted) is held and sent at the open.
    @Test func aKeyPressedBeforeTheSocketOpensIsSentAtTheOpen() throws {
        let (server, browser) = try Self.tabWithoutXtermJS()
        try browser.must(["op": "preview", "text": "cart: empty"])
        // The next visit paints its shop from the page alone, while its socket is held connecting.
        try browser.must(["op": "hold_sockets"])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.must(["op": "preview", "text": "cart: empty", "any": ["\u{203A}"]])
        try browser.must(["op": "page_keys", "keys": ["a"]])
        try browser.must(["op": "open_sockets"])
        try browser.must(["op": "preview", "text": "cart: 1 item"])
    }

    @Test func theShopShowsAndTakesKeysBeforeXtermJSIsThereAndXtermJSDrawsTheSameScreen() throws {
        // This tab never gets xterm.js: all it shows comes from the page's inline scripts.
        let (server, browser) = try Self.tabWithoutXtermJS()
        // The list's rows (box drawing) and the first product's picture (a colour mosaic of half blocks) are drawn.
        let shown = try rows(browser.must(["op": "preview", "text": "│", "any": ["▀", "▄"]]))
        #expect(shown.first?.contains("guest · cart: empty") == true && shown.joined().contains("Products"), "\(shown)")
        #expect(try browser.must(["op": "count", "selector": ".xterm"])["count"] as? Int == 0, "xterm.js is not on the page")
        let selected = try #require(shown.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("›") }, "\(shown)")

        // Keys reach the shop through the page: Down in the cursor mode the shop set, then `a` adds that product.
        try browser.must(["op": "page_keys", "keys": ["DOWN"]])
        let moved = try rows(browser.must(["op": "preview", "row": selected + 1, "prefix": "›"]))
        #expect(!moved[selected].trimmingCharacters(in: .whitespaces).hasPrefix("›"), "the selection moved down one row: \(moved)")
        try browser.must(["op": "page_keys", "keys": ["a"]])
        try browser.must(["op": "preview", "text": "cart: 1 item"])
        try browser.must(["op": "screenshot", "path": WebFrontBrowserTests.artifacts.appendingPathComponent("web-first-frame-preview.png").path])

        // A tab loaded whole: xterm.js takes over and draws, row for row, the screen the preview drew for a new guest;
        // the preview's layer leaves the page.
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("│")
        try browser.must(["op": "wait_rows", "rows": shown])
        #expect(try browser.must(["op": "count", "selector": ".storefront-preview", "equals": 0])["count"] as? Int == 0)
        #expect(try browser.must(["op": "count", "selector": ".xterm"])["count"] as? Int == 1)
        let console = try browser.must(["op": "console"])["messages"] as? [String] ?? []
        #expect(!console.contains { $0.contains("Content Security Policy") }, "no inline script or style is refused: \(console)")
    }

    /// The page's preview draws a frame the shop marks as one (synchronized output) whole at its end, never a part of
    /// it; a frame whose end never comes is drawn after a short wait, as terminals that know the mode do.
    @Test func thePreviewDrawsAMarkedFrameWholeAtItsEnd() throws {
        // The server stays up while the tab is used: its session draws the page's preview.
        let (server, browser) = try Self.tabWithoutXtermJS()
        defer { withExtendedLifetime(server) {} }
        try browser.must(["op": "preview", "text": "cart: empty"])
        let begin = "\u{1B}[?2026h"
        let end = "\u{1B}[?2026l"
        let marked = try browser.must([
            "op": "preview_writes", "writes": ["\(begin)\u{1B}[1;1Htop", "\u{1B}[2;1Hmiddle", "\(end)\(begin)\u{1B}[3;1Hbot"],
        ])
        let after = try #require(marked["after"] as? [[String: Any]], "\(marked)")
        #expect(after.count == 3)
        for (index, step) in after.prefix(2).enumerated() {
            #expect(
                step["text"] is NSNull && step["drawn"] as? [String] == ["", "", ""] && step["shown"] as? Bool == false, "write \(index): \(step)")
        }
        // The first frame's end draws it whole; the next frame, begun in the same write, waits for its own end.
        #expect(after[2]["drawn"] as? [String] == ["top", "middle", ""] && after[2]["text"] is NSNull, "\(after[2])")

        let unended = try browser.must(["op": "preview_writes", "writes": ["\(begin)\u{1B}[1;1Hlost end"], "then_wait": true])
        let steps = try #require(unended["after"] as? [[String: Any]], "\(unended)")
        #expect(steps.first?["drawn"] as? [String] == ["", "", ""], "\(steps)")
        #expect(steps.last?["drawn"] as? [String] == ["lost end", "", ""] && steps.last?["text"] as? [String] == ["lost end", "", ""], "\(steps)")
        // Bytes outside any marked frame are drawn as they come.
        let plain = try browser.must(["op": "preview_writes", "writes": ["\u{1B}[2;3Hnow"]])
        #expect((plain["after"] as? [[String: Any]])?.first?["drawn"] as? [String] == ["", "  now", ""], "\(plain)")
    }

    @Test func aReturningTabShowsTheShopFromItsPageAloneBeforeAnySocket() throws {
        // The page waits for its session's first frame as long as the test may take.
        let server = try ServeProcess(command: WebFrontBrowserTests.web + ["--first-frame-ms", "10000"])
        let browser = try Browser(width: 1100, height: 700)
        // The first visit: a session of the socket's, and the tab's size kept for the next.
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("│")
        let page = try browser.must(["op": "page"])
        let cookies = page["scriptCookies"] as? String ?? ""
        let size = try #require(cookies.firstMatch(of: /storefront-terminal=(\d+)x(\d+)/), "\(cookies)")
        let kept = (page["cookies"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "storefront-terminal" }
        #expect(kept?["sameSite"] as? String == "Lax" && kept?["path"] as? String == "/", "a link from another site carries it: \(kept ?? [:])")
        try server.waitForLog(#/web session 1 open: [^\n]*xterm-256color \d+x\d+\b(?!, started)/#)

        // The next visit, in a tab that gets neither xterm.js nor a socket: the page alone draws the shop.
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "block", "urls": ["*/assets/xterm.*.js"]])
        try browser.must(["op": "no_socket"])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        // The page holds the session's first frame, and the list and its picture where they came within 30 ms of it.
        let shown = try rows(browser.must(["op": "preview", "text": "Products"]))
        #expect(shown.first?.contains("guest · cart: empty") == true, "\(shown)")
        let early = try browser.must(["op": "early"])
        #expect(early["socket"] as? Int == 3, "the socket never connected: \(early)")
        #expect(early["messages"] as? Int == 1 && early["pageFrames"] as? Bool == true, "drawn from the page's own frames: \(early)")
        try server.waitForLog(Regex("web session 2 open: [^\\n]*xterm-256color \(size.output.1)x\(size.output.2), started with its page"))
        try browser.must(["op": "screenshot", "path": WebFrontBrowserTests.artifacts.appendingPathComponent("web-page-frames.png").path])
    }

    /// A returning tab's first screen is in its page as HTML: with scripts off it shows the list and its picture. With
    /// them on, the preview draws over it at the first change, each row and column where the HTML had it.
    @Test func aReturningTabsFirstScreenIsHTMLThatThePreviewTakesOverInPlace() throws {
        let server = try ServeProcess(
            command: WebFrontBrowserTests.web + ["--first-frame-ms", "10000", "--first-screen-ms", "10000", "--sessions-per-address", "8"])
        let browser = try Browser(width: 1100, height: 700)
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("│")

        // No script runs in this tab: what shows is the server's HTML alone. (Its session waits for a socket that never
        // comes: the server takes more than two sessions from this address.)
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "scripts", "on": false])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        let html = try #require(browser.must(["op": "html", "selector": "#first-screen"])["html"] as? String)
        let text = html.replacing(#/<[^>]*>/#, with: "")
        #expect(text.contains("Products") && text.contains("\u{203A}") && text.contains("1 of 24"), "\(text.prefix(400))")
        #expect(html.contains("\u{2580}") || html.contains("\u{2584}"), "the list's picture, in half blocks")
        #expect(html.contains(#"<span class="f231 b25 B">"#), "the selection's colours, as classes the page's policy allows")
        try browser.must(["op": "screenshot", "path": WebFrontBrowserTests.artifacts.appendingPathComponent("web-first-screen-html.png").path])

        // Scripts on, xterm.js and the socket held back: the HTML stays until the shop changes the screen.
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "block", "urls": ["*/assets/xterm.*.js"]])
        try browser.must(["op": "hold_sockets"])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        let shown = try rows(browser.must(["op": "preview", "text": "1 of 24", "any": ["\u{203A}"]]))
        let rowTops = try boxes(browser, "#first-screen > div").map(\.top)
        let spans = try boxes(browser, "#first-screen span")
        let marker = try #require(spans.first { $0.text.contains("\u{203A}") }, "\(spans)")
        // A price on the list's fourth row, which stays where it is when the selection moves from the third.
        let price = try #require(spans.first { $0.top == rowTops[3] && $0.text.contains("$") }, "\(spans)")
        let previews = try browser.must(["op": "count", "selector": ".storefront-preview"])["count"] as? Int
        #expect(rowTops.count == shown.count && previews == 0, "the HTML's rows, and no preview yet")
        try browser.must(["op": "open_sockets"])
        try browser.must(["op": "page_keys", "keys": ["DOWN"]])
        try browser.must(["op": "preview", "text": "2 of 24"])
        #expect(try browser.must(["op": "count", "selector": "#first-screen", "equals": 0])["count"] as? Int == 0, "the preview took over")
        #expect(try boxes(browser, ".storefront-preview > div").map(\.top) == rowTops, "every row where the HTML had it")
        let drawn = try boxes(browser, ".storefront-preview span")
        let moved = try #require(drawn.first { $0.text.contains("\u{203A}") }, "\(drawn)")
        #expect(moved.top == rowTops[3] && marker.top == rowTops[2], "the selection one row down: \(marker), \(moved)")
        // (The preview's run keeps the blanks after it that the HTML leaves out.)
        let samePrice = try #require(drawn.first { $0.top == price.top && $0.text.hasPrefix(price.text) }, "\(price), \(drawn)")
        #expect(abs(samePrice.left - price.left) < 0.5, "a price in the column the HTML had it: \(price), \(samePrice)")

        // A window made smaller since the last visit: the page paints the screen it was made at, then measures, and
        // the session redraws at the window's size.
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "block", "urls": ["*/assets/xterm.*.js"]])
        try browser.must(["op": "window_size", "width": 800, "height": 500])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        let narrow = try browser.must(["op": "preview", "text": "cart: empty", "narrower_than": shown.first?.count ?? 0])
        let size = try #require(narrow["size"] as? [Int], "\(narrow)")
        #expect(rows(narrow).count == size[1] && size[1] < shown.count, "\(size): \(rows(narrow))")
        #expect(try browser.must(["op": "count", "selector": "#first-screen", "equals": 0])["count"] as? Int == 0)
    }

    private func boxes(_ browser: Browser, _ selector: String) throws -> [(text: String, left: Double, top: Double)] {
        (try browser.must(["op": "boxes", "selector": selector])["boxes"] as? [[String: Any]] ?? []).map {
            ($0["text"] as? String ?? "", ($0["left"] as? NSNumber)?.doubleValue ?? -1, ($0["top"] as? NSNumber)?.doubleValue ?? -1)
        }
    }

    private func rows(_ answer: [String: Any]) -> [String] { answer["rows"] as? [String] ?? [] }

    /// A web front, and a 1100x700 tab on its page that never gets xterm.js: the page's own scripts draw the shop.
    private static func tabWithoutXtermJS() throws -> (server: ServeProcess, browser: Browser) {
        let server = try ServeProcess(command: WebFrontBrowserTests.web)
        let browser = try Browser(width: 1100, height: 700)
        try browser.must(["op": "block", "urls": ["*/assets/xterm.*.js"]])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        return (server, browser)
    }
}
