import Crypto
import Foundation
import StorefrontTesting
import Testing

/// `storefront web` from a raw client: the page's headers, the Origin check before any upgrade, oversized
/// messages, and the session process's life.
@Suite("The browser front's checks", .serialized, .ownThreads)
struct WebFrontTests {
    static let web = ["web", "--listen", "127.0.0.1:0"]

    @Test func thePageCarriesAStrictPolicyAndItsFilesAreServed() throws {
        let server = try ServeProcess(command: Self.web)
        let page = try LocalStripe.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(page.hasPrefix("HTTP/1.1 200"))
        // Inline, only the page's own first scripts and styles, by their hashes (theFilesAreNamedByTheirVersion… checks
        // them): preview.js, connect.js and after-paint.js; storefront.css and the first screen's.
        #expect(
            page.contains(
                #/Content-Security-Policy: default-src 'none'; script-src 'self'( 'sha256-[A-Za-z0-9+\/=]{44}'){3}; style-src 'self'( 'sha256-[A-Za-z0-9+\/=]{44}'){2}; connect-src 'self';/#
            ),
            "\(page)")
        #expect(
            page.contains("X-Content-Type-Options: nosniff") && page.contains("Referrer-Policy: same-origin")
                && page.contains("frame-ancestors 'none'"))
        #expect(page.contains("<title>Storefront</title>"))
        for (name, type) in [
            ("xterm.js", "text/javascript"), ("xterm.css", "text/css"), ("storefront.js", "text/javascript"), ("LICENSE-xterm.txt", "text/plain"),
        ] {
            let file = try LocalStripe.exchange("GET /assets/\(name) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
            #expect(file.hasPrefix("HTTP/1.1 200") && file.contains("Content-Type: \(type)"), "\(name): \(file.prefix(300))")
        }
        let missing = try LocalStripe.exchange(
            "GET /assets/../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(missing.hasPrefix("HTTP/1.1 404") && missing.contains("X-Content-Type-Options: nosniff"), "\(missing.prefix(300))")
    }

    /// The page names its files by versions of their bytes, kept a year; a browser that takes gzip gets it.
    @Test func theFilesAreNamedByTheirVersionKeptAYearAndGzippedForABrowserThatTakesIt() throws {
        let server = try ServeProcess(command: Self.web)
        let page = try LocalStripe.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
        let named = page.matches(of: #/assets/([a-z-]+)\.([0-9a-f]{12})\.(js|css)/#).map { ($0.output.1, $0.output.2, $0.output.3) }
        // The terminal's files, which connect.js loads once the first frame is drawn, in their order.
        #expect(named.map { "\($0.0).\($0.2)" } == ["xterm.css", "xterm.js", "xterm-addon-fit.js", "storefront.js"], "\(named)")
        #expect(page.contains(#/<main id="terminal"[^>]*data-terminal="assets/xterm\.[0-9a-f]{12}\.css assets/xterm\.[0-9a-f]{12}\.js /#))
        // The first scripts and the style are written into the page, the scripts right after the terminal's box, each
        // allowed by its SHA-256 in the policy; no other inline script or style is.
        let policy = try #require(page.firstMatch(of: #/Content-Security-Policy: ([^\r]+)/#)).output.1
        var inline: [String] = []
        for (name, element) in [("storefront.css", "style"), ("preview.js", "script"), ("connect.js", "script"), ("after-paint.js", "")] {
            let file = try Data(contentsOf: Self.repository.appending(path: "assets/web/\(name)"))
            // after-paint.js is in a page that came with its first screen as HTML (WebFirstScreenTests), not this one.
            if !element.isEmpty {
                #expect(page.contains("<\(element)>" + String(decoding: file, as: UTF8.self) + "</\(element)>"), "\(name) is in the page")
            }
            inline.append("'sha256-" + Data(SHA256.hash(data: file)).base64EncodedString() + "'")
        }
        #expect(
            policy.contains("script-src 'self' \(inline[1]) \(inline[2]) \(inline[3]);") && policy.contains("style-src 'self' \(inline[0]) "),
            "\(policy)")
        #expect(page.contains(#/<main id="terminal"[^>]*></main>\n<script>\/\/ Storefront in a browser, inline/#))
        let (stem, version, kind) = try #require(named.first { $0.0 == "xterm" && $0.2 == "js" })
        let versioned = "/assets/\(stem).\(version).\(kind)"
        let plain = try Self.get(versioned, port: server.port)
        #expect(plain.head.contains("Cache-Control: public, max-age=31536000, immutable") && plain.head.contains("Vary: Accept-Encoding"))
        #expect(!plain.head.contains("Content-Encoding"), "no gzip unasked")
        #expect(plain.body == Array(try Data(contentsOf: Self.repository.appending(path: "assets/web/xterm.js"))))

        let gzipped = try Self.get(versioned, port: server.port, acceptEncoding: "br, gzip;q=0.8")
        #expect(gzipped.head.contains("Content-Encoding: gzip") && gzipped.body.count < plain.body.count / 3, "\(gzipped.head)")
        let folder = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let archive = folder.appending(path: "xterm.js.gz")
        try Data(gzipped.body).write(to: archive)
        let unpacked = try Subprocess.run("/usr/bin/gzip", ["-dc", archive.path])
        #expect(unpacked.status == 0 && Array(unpacked.stdout.utf8) == plain.body, "gzip -d gives the file back")
        #expect(!(try Self.get(versioned, port: server.port, acceptEncoding: "gzip;q=0")).head.contains("Content-Encoding"))

        // The guest's page too, gzipped for a browser that takes it: the same page, a third of the bytes.
        let plainPage = try Self.get("/", port: server.port)
        let gzippedPage = try Self.get("/", port: server.port, acceptEncoding: "gzip")
        #expect(!plainPage.head.contains("Content-Encoding") && plainPage.head.contains("Vary: Accept-Encoding"))
        #expect(gzippedPage.head.contains("Content-Encoding: gzip") && gzippedPage.body.count < plainPage.body.count / 2, "\(gzippedPage.head)")
        let pageArchive = folder.appending(path: "page.html.gz")
        try Data(gzippedPage.body).write(to: pageArchive)
        #expect(try Subprocess.run("/usr/bin/gzip", ["-dc", pageArchive.path]).stdout == String(decoding: plainPage.body, as: UTF8.self))

        // Another build's version (a page from before an upgrade) gets today's file, not kept; an hour unversioned.
        let other = try Self.get("/assets/xterm.000000000000.js", port: server.port)
        #expect(other.head.hasPrefix("HTTP/1.1 200") && other.head.contains("Cache-Control: no-store") && other.body == plain.body)
        #expect(try Self.get("/assets/xterm.js", port: server.port).head.contains("Cache-Control: public, max-age=3600"))
        #expect(try Self.get("/assets/xterm.0123.js", port: server.port).head.hasPrefix("HTTP/1.1 404"))
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A GET's head, as text, and its body's bytes.
    static func get(_ path: String, port: Int, acceptEncoding: String? = nil) throws -> (head: String, body: [UInt8]) {
        let encoding = acceptEncoding.map { "Accept-Encoding: \($0)\r\n" } ?? ""
        let answer = try LocalStripe.exchangeBytes("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(encoding)Connection: close\r\n\r\n", port: port)
        let end = try #require((0..<(answer.count - 3)).first { answer[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) })
        return (String(decoding: answer[..<end], as: UTF8.self), Array(answer[(end + 4)...]))
    }

    @Test func aHandshakeFromAnotherOriginGets403AndStartsNoSession() throws {
        let server = try ServeProcess(command: Self.web)
        for origin in ["https://evil.example", "http://127.0.0.1:\(server.port + 1)", "null", nil] as [String?] {
            let client = try WebSocketTestClient(port: server.port)
            let answer = try client.handshake(origin: origin)
            #expect(answer.hasPrefix("HTTP/1.1 403"), "\(origin ?? "no Origin"): \(answer)")
            #expect(answer.contains("this page's origin may not open the shop"))
        }
        try server.waitForLog(#/web: refused a socket from 127\.0\.0\.1: Origin https://evil\.example is not allowed/#)
        // The page's own origin gets in; only then does a session start.
        let client = try WebSocketTestClient(port: server.port)
        let answer = try client.handshake(origin: "http://127.0.0.1:\(server.port)")
        #expect(answer.hasPrefix("HTTP/1.1 101") && answer.contains("Cache-Control: no-store"), "\(answer)")
        try server.waitForLog(#/web session 1 open: browser guest web-guest:[0-9a-f]{16} from 127\.0\.0\.1, pid \d+, xterm-256color 100x30/#)
        #expect(!server.log.contains("web session 2"))
        // A plain GET of the socket's address is no way in either.
        let plain = try LocalStripe.exchange(
            "GET /session HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(plain.hasPrefix("HTTP/1.1 426"), "\(plain.prefix(200))")
    }

    @Test func aMegabyteMessageIsRefusedAndTheShopGoesOnForOthers() throws {
        let server = try ServeProcess(command: Self.web)
        let origin = "http://127.0.0.1:\(server.port)"
        let client = try WebSocketTestClient(port: server.port)
        #expect(try client.handshake(origin: origin).hasPrefix("HTTP/1.1 101"))
        let open = try server.waitForLog(#/web session 1 open: .* pid (\d+),.*/#)
        let first = try client.nextFrame()
        #expect(first?.opcode == 2, "the shop draws its first frame")
        #expect(first?.text.contains("\u{1b}]11;?") == false, "no question about the background: the page's is known")
        try client.send([UInt8](repeating: 0x61, count: 1 << 20))
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1009, "closed as too big: \(String(describing: ending.close?.closeCode))")
        try server.waitForLog(#/web session 1 closed: page went away, pid \d+/#)
        let pid = pid_t(open.output.1)!
        if !open.output.0.contains("in a worker") {
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "its shop process is gone and reaped")
        }

        let next = try WebSocketTestClient(port: server.port)
        #expect(try next.handshake(origin: origin).hasPrefix("HTTP/1.1 101"))
        #expect(try next.nextFrame()?.opcode == 2, "the next visitor's shop draws")
    }

    /// The page's terminal is xterm.js, which draws a mosaic: the session asks it nothing (DA1, kitty's query).
    @Test func theShopAsksThePagesTerminalNothing() throws {
        let server = try ServeProcess(command: Self.web)
        let client = try WebSocketTestClient(port: server.port)
        #expect(try client.handshake(origin: "http://127.0.0.1:\(server.port)").hasPrefix("HTTP/1.1 101"))
        var written = ""
        while !written.contains("Products"), let frame = try client.nextFrame() { written += frame.text }
        #expect(written.contains("Products"), "the list")
        #expect(!written.contains("\u{1b}[c") && !written.contains("\u{1b}_G") && !written.contains("\u{1b}]11;?"), "\(written.debugDescription)")
    }

    @Test func aResizeMessageResizesTheShopAndAnUnknownMessageEndsTheSession() throws {
        let server = try ServeProcess(command: Self.web)
        let client = try WebSocketTestClient(port: server.port)
        #expect(try client.handshake(origin: "http://127.0.0.1:\(server.port)").hasPrefix("HTTP/1.1 101"))
        try server.waitForLog(#/web session 1 open/#)
        try client.send(Array(#"{"type":"resize","columns":90,"rows":25}"#.utf8), opcode: 1)
        try client.send(Array(#"{"type":"paste","text":"x"}"#.utf8), opcode: 1)
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1008, "\(String(describing: ending.close?.closeCode))")
        #expect(ending.texts.last?.contains("the page sent a message the shop cannot take") == true, "\(ending.texts)")
        try server.waitForLog(#/web session 1 closed: a message it cannot take/#)
    }

    /// Counted in processes: each session a process of its own. (Workers give memory back as
    /// `ServeWorkersTests` and the 10,000-session benchmark show.)
    @Test func twoHundredIdleSessionsAreHeldThenDroppedAtTheIdleTimeoutLeavingNothing() throws {
        let server = try ServeProcess(
            arguments: [
                "--sessions-per-worker", "1", "--max-sessions", "250", "--sessions-per-address", "250", "--connections-per-address", "300",
                "--connections-per-minute", "1000",
                "--idle-timeout", "20s", "--request-timeout", "20s",
            ], command: Self.web)
        let origin = "http://127.0.0.1:\(server.port)"
        // One session first: what the server makes once, on its first timer (a timerfd), is not a session's.
        do {
            let first = try WebSocketTestClient(port: server.port)
            #expect(try first.handshake(origin: origin).hasPrefix("HTTP/1.1 101"))
            try server.waitForLog(#/web session 1 open/#)
        }
        try server.waitForLog(#/web session 1 closed: page went away/#)
        let descriptorsBefore = Self.descriptors(of: server.pid)

        // Opening 200 shops can outlast the idle timeout on a busy machine: every 20 opened, each open one gets a
        // key, and all get one once all are open; then none gets another, and all go at the idle timeout together.
        var sockets: [WebSocketTestClient] = []
        for index in 1...200 {
            let client = try WebSocketTestClient(port: server.port)
            let answer = try client.handshake(origin: origin)
            try #require(answer.hasPrefix("HTTP/1.1 101"), "\(index): \(answer)")
            sockets.append(client)
            if index % 20 == 0 { for open in sockets { try open.send([0x20]) } }
        }
        // Connections that never send a request are let go at the request timeout.
        let silent = try (0..<50).map { _ in try WebSocketTestClient(port: server.port) }
        try server.waitForLog(#/web session 201 open/#, timeout: .seconds(120))
        for open in sockets { try open.send([0x20]) }
        // Each shop is a fork of the server's session host.
        let host = try #require(pid_t(server.waitForLog(#/forked from a session host, pid (\d+)/#).output.1))
        #expect(ProcessTree.children(of: server.pid) == [host])
        let shops = ProcessTree.children(of: host)
        #expect(shops.count == 200, "all 200 shops held at once: \(shops.count)")

        for client in sockets {
            let ending = try client.untilClose(timeout: .seconds(90))
            #expect(ending.close?.closeCode == 1001)
            #expect(ending.texts.last?.contains("Closed after 20s without a key.") == true, "\(ending.texts)")
        }
        #expect(silent.allSatisfy { $0.waitForEnd(timeout: .seconds(60)) }, "every silent connection is closed")
        while server.log.matches(of: /web session \d+ closed: idle/).count < 200 {
            try server.waitForLog(#/web session \d+ closed: idle/#, after: server.log.count)
        }
        #expect(ProcessTree.children(of: host).isEmpty, "every shop process is gone and reaped")
        #expect(ProcessTree.children(of: server.pid) == [host], "the session host waits for the next")
        // The server closed its ends before the clients saw the end; the shops' ptys went with their sessions.
        #expect(
            Self.descriptors(of: server.pid) <= descriptorsBefore,
            "no descriptor left: \(Self.descriptors(of: server.pid)) open, \(descriptorsBefore) before")
    }

    static func descriptors(of pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    @Test func listeningBeyondLoopbackNeedsThePublicOrigin() throws {
        let refused = try Subprocess.run(BuiltProduct.storefront, ["web", "--listen", "0.0.0.0:0"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--public-origin is needed when listening on 0.0.0.0"), "\(refused.stderr)")
        let typo = try Subprocess.run(BuiltProduct.storefront, ["web", "--public-origin", "https://shop.example/path"])
        #expect(typo.status == 64 && typo.stderr.contains("is not an origin"), "\(typo.stderr)")
    }
}
