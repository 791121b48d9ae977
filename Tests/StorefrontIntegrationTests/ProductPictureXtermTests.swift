import Foundation
import ShopPictures
import StorefrontTesting
import Testing

/// Debian's xterm with sixel on (`-ti vt340`) under Xvfb: the shop learns from xterm's answer to DA1 that it draws
/// sixels, and the product page's picture is the image itself, not text.
@Suite("Pictures in xterm with sixel", .ownThreads)
struct ProductPictureXtermTests {
    @Test func xtermDrawsTheMugsPictureAsSixelPixels() throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        // The runner's own NO_COLOR would make every terminal monochrome; pictures are not named: xterm is asked.
        for name in ["NO_COLOR", "STOREFRONT_PICTURES", "STOREFRONT_THEME", "TMUX", "COLUMNS", "LINES"] { environment[name] = nil }
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        let xterm = try XtermOnXvfb(
            arguments: [
                "-ti", "vt340", "-tn", "xterm-256color", "-xrm", "XTerm*numColorRegisters: 256", "-fa", "DejaVu Sans Mono", "-fs", "10",
                "-geometry", "120x34+0+0", "-bg", "black", "-fg", "white",
            ],
            command: "'\(try BuiltProduct.requireStorefront())' --data-dir data 2>err", directory: directory, environment: environment)
        let listed = xterm.waitForOutput { Self.contains($0, "Dusk Keycap Set") }
        #expect(
            listed,
            "the list: \(String(decoding: xterm.written, as: UTF8.self)); \((try? String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)) ?? "")"
        )
        try xterm.press("Down", "Return")
        // A sixel stream (DCS … q … ST) after the page's text.
        let drawn = xterm.waitForOutput { bytes in
            guard let page = Self.index(of: "Holds a long build", in: bytes) else { return false }
            let after = Array(bytes[page...])
            guard let start = Self.index(of: "\u{1B}P", in: after) else { return false }
            return Self.index(of: "\u{1B}\\", in: Array(after[start...])) != nil
        }
        #expect(drawn, "a sixel image after the page")
        let log = (try? String(contentsOf: directory.appendingPathComponent("data/storefront.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("pictures sixel"), "xterm said it draws sixels: \(log)")
        #expect(!Self.contains(xterm.written, "\u{2580}") && !Self.contains(xterm.written, "\u{2584}"), "no mosaic's half blocks")

        // xterm paints what it read on its own time: the window is read again until the picture is in it.
        var white = 0
        for attempt in 0..<30 where white <= 5_000 {
            let png = try PictureDecoder.decode(
                try xterm.screenshot(to: WebFrontBrowserTests.artifacts.appendingPathComponent("xterm-sixel-\(attempt % 2).png").path),
                limits: .upload)
            white = 0
            // The picture's box: the page's left 40%, below the title row.
            for y in (png.height / 10)..<(png.height * 6 / 10) {
                for x in 0..<(png.width * 2 / 5) {
                    let at = (y * png.width + x) * 4
                    if png.rgba[at] >= 215 && png.rgba[at + 1] >= 215 && png.rgba[at + 2] >= 205 { white += 1 }
                }
            }
        }
        #expect(white > 5_000, "the mug's white body in pixels where its picture is: \(white)")
        try xterm.press("q")
    }

    static func index(of text: String, in bytes: [UInt8]) -> Int? {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool { index(of: text, in: bytes) != nil }
}
