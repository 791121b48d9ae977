import Foundation
import StorefrontTesting
import Testing

/// `storefront web` from a raw client: the page's headers, the Origin check before any upgrade, oversized
/// messages, and the session process's life.
@Suite("The browser front's checks", .serialized)
struct WebFrontTests {
    static let web = ["web", "--listen", "127.0.0.1:0"]

    @Test func thePageCarriesAStrictPolicyAndItsFilesAreServed() throws {
        let server = try ServeProcess(command: Self.web)
        let page = try LocalStripe.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(page.hasPrefix("HTTP/1.1 200"))
        #expect(page.contains("Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"), "\(page)")
        #expect(page.contains("X-Content-Type-Options: nosniff") && page.contains("Referrer-Policy: no-referrer") && page.contains("frame-ancestors 'none'"))
        #expect(page.contains("<title>Storefront</title>"))
        for (name, type) in [("xterm.js", "text/javascript"), ("xterm.css", "text/css"), ("storefront.js", "text/javascript"), ("LICENSE-xterm.txt", "text/plain")] {
            let file = try LocalStripe.exchange("GET /assets/\(name) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
            #expect(file.hasPrefix("HTTP/1.1 200") && file.contains("Content-Type: \(type)"), "\(name): \(file.prefix(300))")
        }
        let missing = try LocalStripe.exchange("GET /assets/../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(missing.hasPrefix("HTTP/1.1 404") && missing.contains("X-Content-Type-Options: nosniff"), "\(missing.prefix(300))")
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
        let plain = try LocalStripe.exchange("GET /session HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(plain.hasPrefix("HTTP/1.1 426"), "\(plain.prefix(200))")
    }

    @Test func aMegabyteMessageIsRefusedAndTheShopGoesOnForOthers() throws {
        let server = try ServeProcess(command: Self.web)
        let origin = "http://127.0.0.1:\(server.port)"
        let client = try WebSocketTestClient(port: server.port)
        #expect(try client.handshake(origin: origin).hasPrefix("HTTP/1.1 101"))
        let open = try server.waitForLog(#/web session 1 open: .* pid (\d+),/#)
        #expect(try client.nextFrame()?.opcode == 2, "the shop draws its first frame")
        try client.send([UInt8](repeating: 0x61, count: 1 << 20))
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1009, "closed as too big: \(String(describing: ending.close?.closeCode))")
        try server.waitForLog(#/web session 1 closed: page went away, pid \d+/#)
        let pid = pid_t(open.output.1)!
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "its shop process is gone and reaped")

        let next = try WebSocketTestClient(port: server.port)
        #expect(try next.handshake(origin: origin).hasPrefix("HTTP/1.1 101"))
        #expect(try next.nextFrame()?.opcode == 2, "the next visitor's shop draws")
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

    @Test func listeningBeyondLoopbackNeedsThePublicOrigin() throws {
        let refused = try Subprocess.run(BuiltProduct.storefront, ["web", "--listen", "0.0.0.0:0"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--public-origin is needed when listening on 0.0.0.0"), "\(refused.stderr)")
        let typo = try Subprocess.run(BuiltProduct.storefront, ["web", "--public-origin", "https://shop.example/path"])
        #expect(typo.status == 64 && typo.stderr.contains("is not an origin"), "\(typo.stderr)")
    }
}
