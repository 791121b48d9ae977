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
        let environment = TerminalOnXvfb.shopEnvironment(in: directory)
        let xterm = try TerminalOnXvfb(
            .xterm,
            arguments: [
                "-ti", "vt340", "-tn", "xterm-256color", "-xrm", "XTerm*numColorRegisters: 256", "-fa", "DejaVu Sans Mono", "-fs", "10",
                "-geometry", "120x34+0+0", "-bg", "black", "-fg", "white",
            ],
            command: "'\(try BuiltProduct.requireStorefront())' --data-dir data 2>err", directory: directory, environment: environment)
        let listed = xterm.waitForOutput { TerminalOnXvfb.contains($0, "Dusk Keycap Set") }
        #expect(
            listed,
            "the list: \(String(decoding: xterm.written, as: UTF8.self)); \((try? String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)) ?? "")"
        )
        try xterm.press("Down", "Return")
        // A sixel stream (DCS … q … ST) after the page's text.
        let drawn = xterm.waitForOutput { bytes in
            guard let page = TerminalOnXvfb.index(of: "Holds a long build", in: bytes) else { return false }
            let after = Array(bytes[page...])
            guard let start = TerminalOnXvfb.index(of: "\u{1B}P", in: after) else { return false }
            return TerminalOnXvfb.index(of: "\u{1B}\\", in: Array(after[start...])) != nil
        }
        #expect(drawn, "a sixel image after the page")
        let log = (try? String(contentsOf: directory.appendingPathComponent("data/storefront.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("pictures sixel"), "xterm said it draws sixels: \(log)")
        #expect(!TerminalOnXvfb.contains(xterm.written, "\u{2580}") && !TerminalOnXvfb.contains(xterm.written, "\u{2584}"), "no mosaic's half blocks")

        // The picture's box: the page's left 40%, below the title row.
        let white = try xterm.whitePixels(
            x: 0..<0.4, y: 0.1..<0.6, moreThan: 5_000, path: WebFrontBrowserTests.artifacts.appendingPathComponent("xterm-sixel.png").path)
        #expect(white > 5_000, "the mug's white body in pixels where its picture is: \(white)")
        try xterm.press("q")
    }

    /// Over SSH the client's environment stays on the client: a worker's session asks xterm (DA1, among the keys) and
    /// draws sixel once it answers.
    @Test func overSSHTheSessionAsksXtermAndDrawsSixel() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("shopper")
        let ssh = (["/usr/bin/ssh"] + server.sshArguments(key: key)).map { "'\($0)'" }.joined(separator: " ")
        let xterm = try TerminalOnXvfb(
            .xterm,
            arguments: [
                "-ti", "vt340", "-tn", "xterm-256color", "-xrm", "XTerm*numColorRegisters: 256", "-fa", "DejaVu Sans Mono", "-fs", "10",
                "-geometry", "120x34+0+0", "-bg", "black", "-fg", "white",
            ],
            command: ssh, directory: server.directory, environment: TerminalOnXvfb.shopEnvironment(in: server.directory))
        #expect(xterm.waitForOutput { TerminalOnXvfb.contains($0, "Dusk Keycap Set") }, "the list: \(String(decoding: xterm.written, as: UTF8.self))")
        try xterm.press("Down", "Return")
        let drawn = xterm.waitForOutput { bytes in
            guard let page = TerminalOnXvfb.index(of: "mug-stdout", in: bytes), let start = TerminalOnXvfb.index(of: "\u{1B}P", in: bytes, from: page)
            else { return false }
            return TerminalOnXvfb.index(of: "\u{1B}\\", in: bytes, from: start) != nil
        }
        #expect(drawn, "a sixel image on the page")
        let log = (try? String(contentsOfFile: server.dataDirectory + "/storefront.log", encoding: .utf8)) ?? ""
        #expect(log.contains("pictures sixel, as the terminal answered"), "\(log)")
        let white = try xterm.whitePixels(
            x: 0..<0.4, y: 0.1..<0.6, moreThan: 5_000, path: WebFrontBrowserTests.artifacts.appendingPathComponent("xterm-sixel-ssh.png").path)
        #expect(white > 5_000, "the mug's white body in pixels where its picture is: \(white)")
        // Scaled to the cells the client told (its pixels carried to the session's pty): the picture's slate background
        // stays in its slot, out of the gap before the page's text.
        let spilled = try xterm.pixels(
            x: 0.42..<0.44, y: 0.1..<0.6, path: WebFrontBrowserTests.artifacts.appendingPathComponent("xterm-sixel-ssh.png").path
        ) {
            (15...60).contains($0) && (20...70).contains($1) && (28...80).contains($2)
        }
        #expect(spilled < 50, "the picture stays in its slot: \(spilled) of its background's pixels beside it")
        try xterm.press("q")
    }
}
