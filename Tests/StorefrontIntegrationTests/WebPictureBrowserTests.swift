import Foundation
import ShopPictures
import StorefrontTesting
import Testing

/// The browser tab shows a product's picture as the terminal does: the session's terminal is xterm.js at 256 colours,
/// so the page gets the same mosaic, and Chromium paints its cells' colours.
@Suite("Pictures in the browser tab", .serialized, .ownThreads)
struct WebPictureBrowserTests {
    @Test func theMugsPageShowsItsPictureInChromium() throws {
        let server = try ServeProcess(command: WebFrontBrowserTests.web)
        let browser = try Browser(width: 1100, height: 700)
        try browser.must(["op": "open", "url": "http://127.0.0.1:\(server.port)/"])
        try browser.waitFor("│")
        try browser.press("j", "ENTER")
        try browser.waitFor("Holds a long build")
        // The picture is drawn when it comes, after the page: its cells are Block Elements.
        let screen = try browser.waitFor("▀")
        #expect(screen.contains("stdout Mug"))
        let shot = WebFrontBrowserTests.artifacts.appendingPathComponent("web-product-picture.png")
        try browser.must(["op": "screenshot", "path": shot.path])
        let png = try PictureDecoder.decode([UInt8](try Data(contentsOf: shot)), limits: .upload)
        // The mug's white body, left of the text: thousands of near-white pixels where text alone has a few hundred.
        var white = 0
        for y in 0..<png.height {
            for x in 0..<(png.width * 2 / 5) {
                let at = (y * png.width + x) * 4
                if png.rgba[at] >= 225 && png.rgba[at + 1] >= 225 && png.rgba[at + 2] >= 225 { white += 1 }
            }
        }
        #expect(white > 5_000, "\(white) near-white pixels where the mug is; \(shot.path)")
    }
}
