import Foundation
import PseudoTerminal
import ShopSSH
import ShopWebFront
import Synchronization
import Testing

/// The browser front in this process with `cat` as the session program: many sockets at once, the session clocks
/// and the input rate, each ending with nothing left behind (no process, no descriptor).
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

    /// Runs blocking client work on a thread of its own, off the cooperative pool the front in this process uses.
    func offThread<T>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    func offThread<T>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    @Test(.timeLimit(.minutes(3)))
    func twoHundredIdleSocketsAreHeldThenDroppedAtTheIdleTimeoutLeavingNothing() async throws {
        Self.raiseDescriptorLimit()
        var limits = WebFrontLimits()
        limits.maxSessions = 250
        limits.sessionsPerAddress = 250
        limits.connectionsPerMinute = 1_000
        limits.idleTimeout = .seconds(10)
        limits.connectionIdleTimeout = .seconds(10)
        let front = try await Front(limits)
        let baseline = Self.openDescriptors()

        // The clients block on their sockets: on threads of their own, so the front in this process keeps its own.
        let port = front.port, origin = front.origin
        // Opening 200 can outlast the idle timeout on a busy machine: every 20 opened, each open one gets a key, so
        // all are held at once; then none gets another, and all go at the idle timeout together.
        var sockets = try await offThread {
            var clients: [WebSocketTestClient] = []
            for index in 1...200 {
                let client = try WebSocketTestClient(port: port)
                let answer = try client.handshake(origin: origin)
                guard answer.hasPrefix("HTTP/1.1 101") else { throw TmuxError(message: "not upgraded: \(answer)") }
                clients.append(client)
                if index % 20 == 0 { for open in clients { try open.send([0x20]) } }
            }
            return clients
        }
        // Connections that never ask for anything are let go at the connection idle timeout.
        var silent = try (0..<50).map { _ in try WebSocketTestClient(port: front.port) }
        let opened = await front.waitForLines(#/web session \d+ open: .* pid (\d+),/#, count: 200)
        #expect(front.front.openSessions == 200, "all 200 held at once")
        let pids = opened.compactMap { pid_t($0.output.1) }

        let endings = try await offThread { [sockets] in try sockets.map { try $0.untilClose(timeout: .seconds(60)) } }
        for ending in endings {
            #expect(ending.close?.closeCode == 1001)
            #expect(ending.texts.last?.contains("Closed after 10s without a key.") == true, "\(ending.texts)")
        }
        let dropped = await offThread { [silent] in silent.filter { $0.waitForEnd(timeout: .seconds(60)) }.count }
        #expect(dropped == 50, "every silent connection is closed")
        let closed = await front.waitForLines(#/web session \d+ closed: idle, pid \d+/#, count: 200)
        #expect(closed.count == 200)
        #expect(front.front.openSessions == 0)
        #expect(pids.allSatisfy { kill($0, 0) == -1 && errno == ESRCH }, "every session's process is gone and reaped")
        // The test's own ends of the sockets, closed; what is left open after that is the front's.
        sockets = []
        silent = []
        await front.stop()
        #expect(Self.openDescriptors() <= baseline, "no descriptor left: \(Self.openDescriptors()) open, \(baseline) before")
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
