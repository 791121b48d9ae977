import Foundation
import StorefrontTesting
import Testing

/// kitty itself (Debian's, on Xvfb with Mesa's software OpenGL) reads the shop's graphics protocol: the mug is an
/// image on the product page and in the list's preview, sent to kitty once and placed again by id, and freed as the
/// shop leaves.
@Suite("Pictures in kitty", .ownThreads)
struct ProductPictureKittyTests {
    @Test func kittyDrawsTheMugSentOnceAndPlacedAgainByID() throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let kitty = try TerminalOnXvfb(
            .kitty,
            arguments: Self.kittyArguments,
            command: "'\(try BuiltProduct.requireStorefront())' --data-dir data 2>err", directory: directory,
            environment: TerminalOnXvfb.shopEnvironment(in: directory))
        let failure = { "\(String(decoding: kitty.written.suffix(2_000), as: UTF8.self)); \(Self.read(directory, "err"))" }
        #expect(kitty.waitForOutput { TerminalOnXvfb.contains($0, "Dusk Keycap Set") }, "the list: \(failure())")

        // The mug in the list's preview, then on its page: placed by id after the page's text.
        try kitty.press("Down")
        #expect(kitty.waitForOutput { TerminalOnXvfb.contains($0, "Holds a long build") })
        try kitty.press("Return")
        let placed = kitty.waitForOutput { bytes in
            guard let page = TerminalOnXvfb.index(of: "mug-stdout", in: bytes) else { return false }
            return TerminalOnXvfb.index(of: "\u{1B}_Ga=p,i=", in: bytes, from: page) != nil
        }
        #expect(placed, "the page's picture placed: \(failure())")
        #expect(Self.read(directory, "data/storefront.log").contains("pictures kitty"), "kitty said so by TERM")
        let page = try #require(TerminalOnXvfb.index(of: "mug-stdout", in: kitty.written))
        let id = try #require(Self.placedID(in: Array(kitty.written[page...])))
        #expect(TerminalOnXvfb.count(of: "a=t,i=\(id),", in: kitty.written) == 1, "the mug sent once, for the preview")
        #expect(!TerminalOnXvfb.contains(kitty.written, "\u{2580}"), "no mosaic's half blocks")

        let onPage = try kitty.whitePixels(
            x: 0..<0.4, y: 0.1..<0.6, moreThan: 4_000, path: WebFrontBrowserTests.artifacts.appendingPathComponent("kitty-page.png").path)
        #expect(onPage > 4_000, "the mug's white body in pixels on its page: \(onPage)")

        // Back in the list, the preview places the image kitty holds: no second transmission.
        let placements = TerminalOnXvfb.count(of: "a=p,i=\(id),", in: kitty.written)
        try kitty.press("Escape")
        #expect(kitty.waitForOutput { TerminalOnXvfb.count(of: "a=p,i=\(id),", in: $0) > placements }, "placed again: \(failure())")
        #expect(TerminalOnXvfb.count(of: "a=t,i=\(id),", in: kitty.written) == 1, "still sent once")
        let inPreview = try kitty.whitePixels(
            x: 0.6..<1, y: 0.05..<0.5, moreThan: 1_500, path: WebFrontBrowserTests.artifacts.appendingPathComponent("kitty-list.png").path)
        #expect(inPreview > 1_500, "the mug's white body in the preview: \(inPreview)")

        try kitty.press("q")
        #expect(kitty.waitForOutput { TerminalOnXvfb.contains($0, "a=d,d=I,i=\(id),") }, "the image freed as the shop leaves")
    }

    /// kitty saying `TERM=xterm-256color`, behind OpenSSH and `serve`: nothing names kitty, so the worker's session
    /// asks (kitty's graphics query, then DA1), kitty answers OK, and the page's picture is placed by id.
    @Test func overSSHWithAPlainTERMTheSessionAsksKittyAndPlacesByID() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("shopper")
        let ssh = (["/usr/bin/ssh"] + server.sshArguments(key: key)).map { "'\($0)'" }.joined(separator: " ")
        let kitty = try TerminalOnXvfb(
            .kitty, arguments: Self.kittyArguments + ["-o", "term=xterm-256color"], command: ssh, directory: server.directory,
            environment: TerminalOnXvfb.shopEnvironment(in: server.directory))
        #expect(
            kitty.waitForOutput { TerminalOnXvfb.contains($0, "Dusk Keycap Set") },
            "the list: \(String(decoding: kitty.written.suffix(2_000), as: UTF8.self))")
        try kitty.press("Down", "Return")
        let placed = kitty.waitForOutput { bytes in
            guard let page = TerminalOnXvfb.index(of: "mug-stdout", in: bytes) else { return false }
            return TerminalOnXvfb.index(of: "\u{1B}_Ga=p,i=", in: bytes, from: page) != nil
        }
        #expect(placed, "the page's picture placed by id")
        let log = (try? String(contentsOfFile: server.dataDirectory + "/storefront.log", encoding: .utf8)) ?? ""
        #expect(log.contains("pictures kitty, as the terminal answered"), "\(log)")
        let onPage = try kitty.whitePixels(
            x: 0..<0.4, y: 0.1..<0.6, moreThan: 4_000, path: WebFrontBrowserTests.artifacts.appendingPathComponent("kitty-ssh-page.png").path)
        #expect(onPage > 4_000, "the mug's white body in pixels on its page: \(onPage)")
        try kitty.press("q")
    }

    static let kittyArguments = [
        "--config", "NONE", "-o", "linux_display_server=x11", "-o", "font_family=DejaVu Sans Mono", "-o", "font_size=10",
        "-o", "remember_window_size=no", "-o", "initial_window_width=120c", "-o", "initial_window_height=34c",
        "-o", "background=#000000", "-o", "foreground=#ffffff", "-o", "enable_audio_bell=no",
    ]

    /// The id of the first placement in `bytes`.
    static func placedID(in bytes: [UInt8]) -> UInt32? {
        guard let start = TerminalOnXvfb.index(of: "\u{1B}_Ga=p,i=", in: bytes) else { return nil }
        let digits = bytes[(start + 9)...].prefix { (48...57).contains($0) }
        return UInt32(String(decoding: digits, as: UTF8.self))
    }

    static func read(_ directory: URL, _ path: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }
}
