import Foundation
import Testing

@testable import ShopAPI

/// Slow and greedy clients of the API over a real loopback socket: a request must arrive whole within its deadline
/// however it trickles, one address holds only so many connections, and a body is read only for a known token.
@Suite("API slow clients", .serialized, .ownThreads)
struct APISlowClientTests {
    static func limits(deadline: Duration = .seconds(60), perAddress: Int = 32) -> APILimits {
        var limits = APILimits()
        limits.requestDeadline = deadline
        limits.idleTimeout = .seconds(60)
        limits.connectionsPerAddress = perAddress
        return limits
    }

    /// In a `storefront api` process of its own, as it runs in a shop. In the test process, beside hundreds of other
    /// tests' servers, event loops and tasks, the head below was once neither cut nor answered for over a minute under
    /// stress-ng (twice in about ten loaded runs; what held it there was not found), while the body before it was cut.
    @Test func aBodyThatTricklesIsCutAtTheRequestDeadlineThoughTheIdleTimerWouldWait() throws {
        // Far below the 60 s idle timer, and far above what a loaded machine takes to read a whole request: at 300 ms
        // the well-behaved request was itself cut once, on a CI host busy building.
        let api = try ServeProcess(command: ["api", "--listen", "127.0.0.1:0", "--request-timeout", "3s"])
        let made = try Subprocess.run(
            try BuiltProduct.requireStorefront(),
            [
                "tokens", "create", "--name", "slow", "--customer", "ssh:SHA256:WQMRH0Ef0IUePrzymKKxMq6Xw45P/3lfxVB4bE3H8ag", "--data-dir",
                api.dataDirectory,
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let slow = try WebSocketTestClient(port: api.port)
        try slow.sendRaw(
            "PUT /v1/cart/lines/keycap-dusk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        )
        try slow.sendRaw("\"")
        #expect(slow.waitForEnd(timeout: .seconds(60)), "closed: by the deadline, as its log line below says, not the idle timer")
        let head = try WebSocketTestClient(port: api.port)
        try head.sendRaw("GET /v1/produ")
        #expect(head.waitForEnd(timeout: .seconds(60)), "a head that never ends is cut too")
        let fine = try WebSocketTestClient(port: api.port)
        try fine.sendRaw("GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = fine.read(until: "\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200"), "a whole request in time is answered: \(answer)")
        let cut = #/api: closed a connection from 127\.0\.0\.1 that did not send a whole request within 3000 ms/#
        // Both the body and the head were cut at the request deadline, each with its line.
        while api.log.matches(of: cut).count < 2 { try api.waitForLog(cut, after: api.log.count) }
    }

    @Test func oneAddressHoldsOnlySoManyConnections() async throws {
        let api = try await APIHarness(limits: Self.limits(perAddress: 3))
        let (answer, fourthCut) = try await api.serveCollecting(port: { port in
            try await onOwnThread {
                let held = try (0..<3).map { _ in try WebSocketTestClient(port: port) }
                try held[0].sendRaw("GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
                let answer = held[0].read(until: "\r\n\r\n")
                let fourth = try WebSocketTestClient(port: port)
                return withExtendedLifetime(held) { (answer, fourth.waitForEnd(timeout: .seconds(30))) }
            }
        })
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(fourthCut, "the fourth from one address is closed at once")
        #expect(api.log.contains { $0.contains("api: refused a connection from 127.0.0.1: 3 per address") }, "\(api.log)")
    }

    @Test func aRequestWithoutATokenIsRefusedBeforeItsBodyIsRead() async throws {
        let api = try await APIHarness(limits: Self.limits())
        let answer = try await api.serveCollecting(port: { port in
            try await onOwnThread {
                let client = try WebSocketTestClient(port: port)
                try client.sendRaw(
                    "POST /v1/orders HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{")
                return client.read(until: "\r\n\r\n", timeout: .seconds(30))
            }
        })
        #expect(answer.hasPrefix("HTTP/1.1 401"), "answered with the body still unsent: \(answer)")
    }
}
