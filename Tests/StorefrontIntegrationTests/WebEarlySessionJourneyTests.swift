import Foundation
import PseudoTerminal
import StorefrontTesting
import StorefrontUI
import Testing

@testable import ShopWebFront

/// A returning tab's session, started with its page by `storefront web`: the page carries the session's first frames
/// and a token, the page's socket adopts that session and sends only what follows, and a token serves once and only
/// the visitor it was made for.
@Suite("A tab's session started with its page", .serialized, .ownThreads)
struct WebEarlySessionJourneyTests {
    static var firstFrame: Regex<(Substring, Substring, Substring, Substring, Substring)> {
        #/id="first-frame" data-session="([A-Za-z0-9_-]{22})" data-columns="(\d+)" data-rows="(\d+)">([A-Za-z0-9+/=]*)</script>/#
    }

    /// The page waits for its session's first frame as long as a test may take: what it carries is then known.
    static let web = ["web", "--listen", "127.0.0.1:0", "--first-frame-ms", "10000"]

    /// `GET /` as a tab that was 100x30 last time (its cookie), from `forwardedFor` where given.
    static func page(_ server: ServeProcess, cookie: String? = "storefront-terminal=100x30", headers: [String] = []) throws -> String {
        let lines = (cookie.map { ["Cookie: \($0)"] } ?? []) + headers
        return try LocalStripe.exchange(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n", port: server.port)
    }

    /// The page's session: its token, size and the bytes of its first frames.
    static func started(in page: String) throws -> (token: String, columns: Int, rows: Int, frames: String) {
        let found = try #require(page.firstMatch(of: firstFrame), "the page carries its session: \(page.prefix(600))")
        let bytes = try #require(Data(base64Encoded: String(found.output.4)))
        return (String(found.output.1), Int(found.output.2) ?? 0, Int(found.output.3) ?? 0, String(decoding: bytes, as: UTF8.self))
    }

    @Test func aReturningTabsPageCarriesItsSessionsFirstFramesAndItsSocketAdoptsThatSession() throws {
        let server = try ServeProcess(command: Self.web)
        let origin = "http://127.0.0.1:\(server.port)"
        let page = try Self.page(server)
        #expect(page.hasPrefix("HTTP/1.1 200") && page.contains("Cache-Control: no-store"), "\(page.prefix(300))")
        let started = try Self.started(in: page)
        #expect(started.columns == 100 && started.rows == 30)
        // The session's own bytes: its screen set up, then whole frames, each closed by synchronized output's mark.
        #expect(started.frames.hasPrefix("\u{1B}[?1049h") && started.frames.hasSuffix("\u{1B}[?2026l"), "\(started.frames.debugDescription)")
        #expect(started.frames.contains("Products") && started.frames.contains("guest · cart: empty"))
        try server.waitForLog(
            #/web session 1 open: browser guest web-guest:[0-9a-f]{16} from 127\.0\.0\.1, pid \d+, xterm-256color 100x30, started with its page/#)

        // The page's socket takes that session: the shop answers its keys, and nothing the page holds comes again.
        let client = try WebSocketTestClient(port: server.port)
        let answer = try client.handshake(origin: origin, path: "/session?columns=100&rows=30&session=\(started.token)")
        #expect(answer.hasPrefix("HTTP/1.1 101"), "\(answer)")
        try client.send(Array("\u{1B}OB".utf8))
        // The page's bytes and then the socket's, played through a VT emulator (pyte), until the selection moved.
        var received: [UInt8] = []
        var screen: [String] = []
        while !screen.contains(where: { $0.contains("› stdout Mug") }), let frame = try client.nextFrame() {
            guard frame.opcode == 2 else { continue }
            received += frame.payload
            screen =
                try FrameEncoderTests.play([started.frames + String(decoding: received, as: UTF8.self)], size: Size(columns: 100, rows: 30))
                .last?.rows ?? []
        }
        #expect(screen.contains { $0.contains("› stdout Mug") } && screen.contains { $0.contains("2 of 24") }, "Down moved the selection: \(screen)")
        #expect(!String(decoding: received, as: UTF8.self).contains("\u{1B}[?1049h"), "the screen's set-up came with the page, not again")
        #expect(!server.log.contains("web session 2 open"), "one session for the page and its socket")

        // The token is spent: a second socket with it gets a session of its own.
        let again = try WebSocketTestClient(port: server.port)
        #expect(try again.handshake(origin: origin, path: "/session?columns=100&rows=30&session=\(started.token)").hasPrefix("HTTP/1.1 101"))
        let second = try server.waitForLog(#/web session 2 open: [^\n]*/#)
        #expect(!String(second.output).contains("started with its page"), "\(second.output)")
    }

    @Test func aPageThatWentBeforeItsSessionDrewLeavesEveryByteToTheSocketOnce() throws {
        // 1 ms: the session's process has not drawn by then, so the page goes without frames.
        let server = try ServeProcess(command: ["web", "--listen", "127.0.0.1:0", "--first-frame-ms", "1"])
        // Wide enough for the list's preview and its picture.
        let started = try Self.started(in: Self.page(server, cookie: "storefront-terminal=120x34"))
        let client = try WebSocketTestClient(port: server.port)
        let path = "/session?columns=120&rows=34&session=\(started.token)"
        #expect(try client.handshake(origin: "http://127.0.0.1:\(server.port)", path: path).hasPrefix("HTTP/1.1 101"))
        var received: [UInt8] = []
        // The list, then its preview's picture (half blocks), after which the shop writes its first screen's cells and
        // mark; the socket was there before the first frame, so they come through it.
        let pictured = { (text: String) in text.contains("›") && (text.contains("\u{2580}") || text.contains("\u{2584}")) }
        while !pictured(String(decoding: received, as: UTF8.self)), let frame = try client.nextFrame() {
            if frame.opcode == 2 { received += frame.payload }
        }
        #expect(pictured(String(decoding: received, as: UTF8.self)), "the picture is drawn")
        // The shop quits: all it wrote reaches the socket.
        try client.send(Array("q".utf8))
        let rest = try client.untilClose()
        #expect(rest.close != nil, "the session ends with a close")
        received += rest.bytes
        // Whatever the page held, and whatever the session kept for the socket, the shop's screen set-up (written
        // once, first) reaches the page once.
        let all = started.frames + String(decoding: received, as: UTF8.self)
        #expect(all.hasPrefix("\u{1B}[?1049h") && all.ranges(of: "\u{1B}[?1049h").count == 1, "\(all.prefix(200).debugDescription)")
        // The first screen's cells and mark, whether they came before the socket or after, are not on it
        // (FirstScreenMarkFilterTests cuts them every way).
        #expect(!all.contains("7766;"), "\(all.debugDescription)")
        #expect(!server.log.contains("web session 2 open"))
    }

    @Test func aFirstVisitAPrefetchOrAnotherVisitorsSocketGetsNoSessionOfAnothers() throws {
        let server = try ServeProcess(command: Self.web + ["--trust-forwarded-for"])
        let origin = "http://127.0.0.1:\(server.port)"
        // No size known yet (a first visit), or a browser fetching ahead of a visit: the page starts nothing.
        #expect(try !Self.page(server, cookie: nil).contains(#"id="first-frame""#))
        #expect(try !Self.page(server, headers: ["Sec-Purpose: prefetch"]).contains(#"id="first-frame""#))
        #expect(try !Self.page(server, cookie: "storefront-terminal=99999x30").contains(#"id="first-frame""#), "a size out of bounds is no size")

        // A page for 192.0.2.7; a socket from 192.0.2.8 with its token spends it, and gets a session of its own.
        let started = try Self.started(in: Self.page(server, headers: ["X-Forwarded-For: 192.0.2.7"]))
        try server.waitForLog(#/web session 1 open: browser guest web-guest:[0-9a-f]{16} from 192\.0\.2\.7, .*started with its page/#)
        let stranger = try WebSocketTestClient(port: server.port)
        let answer = try stranger.handshake(
            origin: origin, path: "/session?columns=100&rows=30&session=\(started.token)", headers: ["X-Forwarded-For: 192.0.2.8"])
        #expect(answer.hasPrefix("HTTP/1.1 101"), "\(answer)")
        try server.waitForLog(
            #/web session 2 open: browser guest web-guest:[0-9a-f]{16} from 192\.0\.2\.8, pid \d+, xterm-256color 100x30(?!, started)/#)
        try server.waitForLog(#/web session 1 closed: its page never came for it/#)
        // The page's own visitor, too late, gets a session of its own as well.
        let owner = try WebSocketTestClient(port: server.port)
        #expect(
            try owner.handshake(origin: origin, path: "/session?columns=90&rows=25&session=\(started.token)", headers: ["X-Forwarded-For: 192.0.2.7"])
                .hasPrefix("HTTP/1.1 101"))
        try server.waitForLog(#/web session 3 open: browser guest web-guest:[0-9a-f]{16} from 192\.0\.2\.7, pid \d+, xterm-256color 90x25/#)
    }

    /// A page whose session was refused (its address has its sessions open) offers its socket no token to take: the
    /// socket starts a session of its own, under its own admission.
    @Test func aPageWhoseSessionWasRefusedOffersNoToken() throws {
        let server = try ServeProcess(command: Self.web + ["--sessions-per-address", "1"])
        _ = try Self.started(in: Self.page(server))
        try server.waitForLog(#/web session 1 open: .*, started with its page/#)
        let refused = try Self.page(server)
        try server.waitForLog(#/web: refused a session from 127\.0\.0\.1/#)
        #expect(refused.hasPrefix("HTTP/1.1 200") && refused.contains(#"<main id="terminal""#), "\(refused.prefix(300))")
        #expect(!refused.contains(#"id="first-frame""#) && !refused.contains("data-session="), "no token for a session that never started")
    }

    @Test func aStopEndsASessionStillWaitingForItsPageAtOnce() throws {
        // A second's drain: a session left waiting for its page's socket (10 s) would outlast it and never log its end.
        let server = try ServeProcess(command: Self.web + ["--drain-timeout", "1s"])
        _ = try Self.started(in: Self.page(server))
        try server.waitForLog(#/web session 1 open: .*, started with its page/#)
        #expect(try server.terminate() == 0)
        let closed = try #require(server.log.range(of: "web session 1 closed: its page never came for it"), "\(server.log)")
        let stopped = try #require(server.log.range(of: "stopped", range: closed.upperBound..<server.log.endIndex), "\(server.log)")
        #expect(closed.upperBound <= stopped.lowerBound)
    }

    @Test func aTabAtAnotherSizeThanLastTimeAdoptsItsSessionAndTheShopRedrawsAtTheNewSize() throws {
        let server = try ServeProcess(command: Self.web)
        let started = try Self.started(in: Self.page(server))
        try server.waitForLog(#/web session 1 open: .*100x30, started with its page/#)
        let client = try WebSocketTestClient(port: server.port)
        let path = "/session?columns=90&rows=25&session=\(started.token)"
        #expect(try client.handshake(origin: "http://127.0.0.1:\(server.port)", path: path).hasPrefix("HTTP/1.1 101"))
        // Repainted whole for 90 columns: the status line's right-hand end moves to column 90.
        var received = ""
        while !received.contains("\u{1B}[2J"), let frame = try client.nextFrame() {
            if frame.opcode == 2 { received += frame.text }
        }
        #expect(received.contains("\u{1B}[2J"), "the screen cleared and drawn again: \(received.debugDescription)")
        #expect(!server.log.contains("web session 2 open"))
    }

    /// The shop started for a page says once, after its first screen's list and the picture it shows, that the screen
    /// is whole: the page goes then. Keys after it are answered as ever, with no second mark.
    @Test func theShopSaysOnceWhenItsFirstScreenIsWholeItsPictureIncluded() throws {
        let root = NSTemporaryDirectory() + "first-screen-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        // As a web session's shop has it, not the test's own (which may say NO_COLOR).
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": root, "TERM": "xterm-256color", "LANG": "C.UTF-8",
            "STOREFRONT_THEME": "dark", "STOREFRONT_SYNCHRONIZED_OUTPUT": "1", "STOREFRONT_FIRST_SCREEN_MARKER": "1",
        ]
        let shop = try PseudoTerminalProcess.spawn(
            executable: try BuiltProduct.requireStorefront(), arguments: ["--data-dir", root + "/data"], environment: environment,
            size: TerminalSize(columns: 120, rows: 34))
        let terminal = shop.takeTerminal()
        defer {
            close(terminal)
            killAndReap(shop.pid)
        }
        let mark = "\u{1B}]7766;storefront-first-screen\u{07}"
        var bytes: [UInt8] = []
        #expect(read(terminal, into: &bytes, before: .now + .seconds(30)) { $0.contains(mark) } == .found)
        let first = String(decoding: bytes, as: UTF8.self)
        let marked = try #require(first.range(of: mark))
        let screen = first[..<marked.lowerBound]
        #expect(screen.contains("\u{203A}") && screen.contains("1 of 24"), "the list is on the screen before the mark")
        // The list's preview draws the selected product's picture as a mosaic: half blocks in 256 colours.
        #expect(
            screen.contains("\u{1B}[38;5;") && (screen.contains("\u{2580}") || screen.contains("\u{2584}")),
            "the picture is drawn before the mark: \(screen.suffix(600).debugDescription)")
        // Just before the mark, the screen's cells, which the web front writes into the page as HTML.
        let cellsBegin = "\u{1B}]7766;storefront-first-screen-cells;"
        let cells = try #require(screen.range(of: cellsBegin, options: .backwards), "the cells come with the mark")
        #expect(screen[..<cells.lowerBound].hasSuffix("\u{1B}[?2026l"), "they follow a whole frame")
        let payload = Array(screen[cells.upperBound...].dropLast().utf8)
        #expect(screen.hasSuffix("\u{07}"))
        let html = try #require(WebFirstScreen.html(payload, size: (120, 34)), "the web front reads what the shop wrote")
        #expect(html.contains("1 of 24") && html.contains("\u{203A}") && html.contains("\u{2580}"), "the list and its picture")

        // A key's frame, then the shop quits: all it wrote is read, and the mark is in it once.
        let frameEnds = first.ranges(of: "\u{1B}[?2026l").count
        _ = "j".withCString { write(terminal, $0, 1) }
        #expect(read(terminal, into: &bytes, before: .now + .seconds(30)) { $0.ranges(of: "\u{1B}[?2026l").count > frameEnds } == .found)
        _ = "q".withCString { write(terminal, $0, 1) }
        #expect(read(terminal, into: &bytes, before: .now + .seconds(30)) { _ in false } == .closed)
        #expect(String(decoding: bytes, as: UTF8.self).ranges(of: mark).count == 1, "said once")
    }
}
