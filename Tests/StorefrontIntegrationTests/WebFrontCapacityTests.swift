import Foundation
import PseudoTerminal
import ShopSSH
import ShopWebFront
import Synchronization
import Testing

/// The browser front in this process with `cat` as the session program: the session clocks, the input rate and a
/// stop, each told to the page.
@Suite("The browser front's limits", .serialized)
struct WebFrontCapacityTests {
    /// A front on a free loopback port whose sessions run `cat`, and its log as a stream of lines.
    final class Front {
        let front: WebFront
        let port: Int
        let lines: AsyncStream<String>
        private let serving: Task<Void, any Error>

        init(_ limits: WebFrontLimits) async throws {
            let (lines, addLine) = AsyncStream.makeStream(of: String.self)
            let (ports, bound) = AsyncStream.makeStream(of: Int.self)
            let command = SessionCommand(
                executable: "/bin/cat", arguments: [], environment: ["PATH": "/usr/bin:/bin"], largestTerminal: TerminalSize(columns: 300, rows: 100)
            )
            let front = WebFront(
                settings: WebFrontSettings(host: "127.0.0.1", port: 0, shopName: "Test", limits: limits), command: command,
                log: { addLine.yield($0) }, listening: { bound.yield($0) }
            )
            self.front = front
            self.lines = lines
            serving = Task { try await front.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw TmuxError(message: "the front did not listen") }
            self.port = port
        }

        var origin: String { "http://127.0.0.1:\(port)" }

        /// Every line logged so far; lines are read from the stream as a wait needs them.
        private var log: [String] = []
        private lazy var reader = lines.makeAsyncIterator()

        /// Reads the log until `count` lines in all have matched `pattern`; returns the matches.
        func waitForLines<Output>(_ pattern: Regex<Output>, count: Int) async -> [Regex<Output>.Match] {
            var found = log.compactMap { try? pattern.firstMatch(in: $0) }
            while found.count < count, let line = await reader.next() {
                log.append(line)
                if let match = try? pattern.firstMatch(in: line) { found.append(match) }
            }
            return found
        }

        @discardableResult
        func stop() async -> Int {
            let left = await front.stop()
            _ = await serving.result
            return left
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aSessionThatSendsFasterThanAnyoneTypesIsClosedWithTheReason() async throws {
        var limits = WebFrontLimits()
        limits.inputBurstBytes = 8 * 1024
        limits.inputBytesPerSecond = 1024
        let front = try await Front(limits)
        let client = try WebSocketTestClient(port: front.port)
        #expect(try client.handshake(origin: front.origin).hasPrefix("HTTP/1.1 101"))
        _ = await front.waitForLines(#/web session 1 open/#, count: 1)
        for _ in 0..<20 { try? client.send([UInt8](repeating: 0x61, count: 1024)) }
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1008)
        #expect(ending.texts.last == #"{"text":"Closed: the page sent input faster than anyone types.","type":"ended"}"#, "\(ending.texts)")
        _ = await front.waitForLines(#/web session 1 closed: input too fast/#, count: 1)
        await front.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func aSessionEndsAtTheLongestVisitHoweverBusy() async throws {
        var limits = WebFrontLimits()
        limits.maxSessionLength = .seconds(2)
        let front = try await Front(limits)
        let client = try WebSocketTestClient(port: front.port)
        #expect(try client.handshake(origin: front.origin).hasPrefix("HTTP/1.1 101"))
        _ = await front.waitForLines(#/web session 1 open/#, count: 1)
        try client.send(Array("typing\r".utf8))
        let ending = try client.untilClose()
        #expect(String(decoding: ending.bytes, as: UTF8.self).contains("typing"), "cat echoes what the page sent")
        #expect(ending.close?.closeCode == 1001)
        #expect(ending.texts.last?.contains("Closed after 2s, the longest a visit lasts.") == true, "\(ending.texts)")
        await front.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func stoppingTellsOpenSessionsTheShopIsClosing() async throws {
        let front = try await Front(WebFrontLimits())
        let client = try WebSocketTestClient(port: front.port)
        #expect(try client.handshake(origin: front.origin).hasPrefix("HTTP/1.1 101"))
        _ = await front.waitForLines(#/web session 1 open/#, count: 1)
        let left = await front.stop()
        #expect(left == 0, "cat ends on SIGTERM, well within the drain")
        let ending = try client.untilClose()
        #expect(ending.close?.closeCode == 1001)
        #expect(ending.texts.last?.contains("The shop is closing for maintenance.") == true, "\(ending.texts)")
        #expect((try? WebSocketTestClient(port: front.port)) == nil, "nothing listens once stopped")
    }
}
