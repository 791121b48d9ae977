import Foundation
import StorefrontTesting
import Testing

/// The browser tab's first frames, in a real headless Chromium: the page's own inline scripts open the session and
/// draw what it sends before xterm.js is loaded, take the keys meanwhile, and give way to xterm.js, which draws the
/// same screen.
@Suite("The browser tab's first frames", .serialized, .ownThreads)
struct WebFirstFrameBrowserTests {
    @Test func theShopShowsAndTakesKeysBeforeXtermJSIsThereAndXtermJSDrawsTheSameScreen() throws {
        let server = try ServeProcess(command: WebFrontBrowserTests.web)
        let browser = try Browser(width: 1100, height: 700)
        // This tab never gets xterm.js: all it shows comes from the page's inline scripts.
        try browser.must(["op": "block", "urls": ["*/assets/xterm.*.js"]])
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
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

    private func rows(_ answer: [String: Any]) -> [String] { answer["rows"] as? [String] ?? [] }
}
