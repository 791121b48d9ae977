import Foundation
import StorefrontTesting
import Testing

/// `storefront web`'s session clocks, input rate and drain, each told to the page in words before the socket closes.
@Suite("The browser front's limits", .serialized, .ownThreads)
struct WebFrontCapacityTests {
    static let web = ["web", "--listen", "127.0.0.1:0"]

    /// A session open on `server`, its first frame read.
    func openSession(_ server: ServeProcess) throws -> WebSocketTestClient {
        let client = try WebSocketTestClient(port: server.port)
        let answer = try client.handshake(origin: "http://127.0.0.1:\(server.port)")
        try #require(answer.hasPrefix("HTTP/1.1 101"), "\(answer)")
        try server.waitForLog(#/web session 1 open/#)
        try #require(try client.nextFrame()?.opcode == 2, "the shop draws")
        return client
    }

    /// The idle timer restarts at every byte: only a deadline for the whole request closes a client that trickles.
    @Test func aRequestThatTricklesIsClosedAtTheRequestTimeoutAndOneAddressHoldsOnlySoManyConnections() throws {
        let server = try ServeProcess(arguments: ["--request-timeout", "1s", "--connections-per-address", "3"], command: Self.web)
        let body = try WebSocketTestClient(port: server.port)
        try body.sendRaw("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nx")
        let head = try WebSocketTestClient(port: server.port)
        try head.sendRaw("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow")
        let third = try WebSocketTestClient(port: server.port)
        try third.sendRaw("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(third.read(until: "ok").hasPrefix("HTTP/1.1 200"), "a whole request in time is answered")
        let refused = try WebSocketTestClient(port: server.port)
        #expect(refused.waitForEnd(timeout: .seconds(10)), "a fourth connection from one address is closed at once")
        try server.waitForLog(#/web: refused a connection from 127\.0\.0\.1: 3 per address/#)
        #expect(body.waitForEnd(timeout: .seconds(20)) && head.waitForEnd(timeout: .seconds(20)), "both cut at the deadline")
        try server.waitForLog(#/web: closed a connection from 127\.0\.0\.1 that did not send a whole request within 1000 ms/#)
        // The slow ones gone, the address has room again: a page and a session open.
        let page = try WebSocketTestClient(port: server.port)
        try page.sendRaw("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(page.read(until: "ok").hasPrefix("HTTP/1.1 200"))
    }

    /// RFC 6455 §5.1: a server must close the connection on a frame from the client that is not masked.
    @Test func anUnmaskedFrameClosesTheSocketWithAProtocolError() throws {
        let server = try ServeProcess(command: Self.web)
        let client = try openSession(server)
        try client.send(Array("j".utf8))
        try client.sendUnmasked(Array("k".utf8))
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1002, "\(String(describing: ending.close))")
        try server.waitForLog(#/web session 1 closed/#)
    }

    /// A connection that never sent a request does not hold a stop for its deadline (60 s here): it is closed when
    /// the sessions have drained.
    @Test func aSilentConnectionDoesNotHoldTheStop() throws {
        let server = try ServeProcess(arguments: ["--request-timeout", "60s"], command: Self.web)
        let silent = try WebSocketTestClient(port: server.port)
        try silent.sendRaw("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(silent.read(until: "</html>").hasPrefix("HTTP/1.1 200"), "a keep-alive connection, now waiting for its next request")
        let quiet = try WebSocketTestClient(port: server.port)
        kill(server.pid, SIGTERM)
        #expect(quiet.waitForEnd(timeout: .seconds(20)) && silent.waitForEnd(timeout: .seconds(20)), "closed by the stop, not at their 60 s deadline")
        #expect(try server.terminate() == 0)
    }

    @Test func aSessionThatSendsFasterThanAnyoneTypesIsClosedWithTheReason() throws {
        let server = try ServeProcess(command: Self.web)
        let client = try openSession(server)
        // 200 KiB at once: past the 64 KiB burst and the 16 KiB a second after it.
        for _ in 0..<200 { try? client.send([UInt8](repeating: 0x20, count: 1024)) }
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1008)
        #expect(ending.texts.last == #"{"text":"Closed: the page sent input faster than anyone types.","type":"ended"}"#, "\(ending.texts)")
        try server.waitForLog(#/web session 1 closed: input too fast, pid \d+/#)
    }

    @Test func aSessionEndsAtTheLongestVisitHoweverBusy() throws {
        let server = try ServeProcess(arguments: ["--max-session-length", "3s"], command: Self.web)
        let client = try openSession(server)
        try client.send(Array("j".utf8))
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1001)
        #expect(ending.texts.last?.contains("Closed after 3s, the longest a visit lasts.") == true, "\(ending.texts)")
        try server.waitForLog(#/web session 1 closed: reached the longest session/#)
    }

    @Test func aSessionWithoutAKeyIsClosedAtTheIdleTimeout() throws {
        let server = try ServeProcess(arguments: ["--idle-timeout", "2s"], command: Self.web)
        let client = try openSession(server)
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1001)
        #expect(ending.texts.last?.contains("Closed after 2s without a key.") == true, "\(ending.texts)")
        try server.waitForLog(#/web session 1 closed: idle/#)
    }

    @Test func aStopTellsOpenSessionsTheShopIsClosingAndExitsCleanly() throws {
        let server = try ServeProcess(command: Self.web)
        let client = try openSession(server)
        kill(server.pid, SIGTERM)
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1001)
        #expect(ending.texts.last?.contains("The shop is closing for maintenance.") == true, "\(ending.texts)")
        #expect(try server.terminate() == 0)
        #expect(server.log.contains("SIGTERM: draining 1 session"), "\(server.log)")
        #expect(server.log.contains("web session 1 closed: server shutting down"))
    }
}
