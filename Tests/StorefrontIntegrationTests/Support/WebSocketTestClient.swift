import Foundation
import LiveObjects
import Testing

/// A WebSocket client written for the browser front's tests: a blocking socket on loopback, every read waited for
/// with `poll(2)` and a deadline, and frames built by hand so a test can send what no browser would (1 MiB at once).
///
/// Order of calls: `init` (TCP) → `handshake` (the HTTP answer: 101, or the refusal) → `send`/`nextFrame` → `close`.
final class WebSocketTestClient: @unchecked Sendable {  // @unchecked: each test uses a client from one thread at a time
    /// One frame from the server.
    struct Frame {
        var opcode: UInt8
        var payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
        /// The close code of a close frame.
        var closeCode: Int? { opcode == 8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
    }

    private let descriptor: Int32
    private var pending: [UInt8] = []

    init(port: Int) throws {
        descriptor = try connectToLoopback(port: port)
    }

    deinit { close(descriptor) }

    /// Asks for `/session` as a page of `origin` would; returns the HTTP head of the answer (and any body read with it).
    func handshake(
        origin: String?, path: String = "/session?columns=100&rows=30", cookie: String? = nil, headers: [String] = [],
        timeout: Duration = .seconds(30)
    ) throws -> String {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        if let cookie { request += "Cookie: \(cookie)\r\n" }
        for header in headers { request += header + "\r\n" }
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        try write(Array((request + "\r\n").utf8))
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: pending[..<end.upperBound], as: UTF8.self)
                let length = head.firstMatch(of: /(?i)content-length: (\d+)/).flatMap { Int($0.output.1) } ?? 0
                if head.hasPrefix("HTTP/1.1 101") {
                    pending.removeFirst(end.upperBound)
                    return head
                }
                if pending.count - end.upperBound >= length {
                    defer { pending.removeAll() }
                    return String(decoding: pending, as: UTF8.self)
                }
            }
            guard try fill(until: deadline) == .data else { return String(decoding: pending, as: UTF8.self) }
        }
    }

    /// Sends `text` as it is, for a test of what arrives before (or instead of) a whole request.
    func sendRaw(_ text: String) throws {
        try write(Array(text.utf8))
    }

    /// Reads until the server has sent `text` or closed, within `timeout`; returns all read so far.
    func read(until text: String, timeout: Duration = .seconds(30)) -> String {
        let deadline = ContinuousClock.now + timeout
        while !String(decoding: pending, as: UTF8.self).contains(text) {
            guard (try? fill(until: deadline)) == .data else { break }
        }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Sends one short frame without a mask, as no browser may (RFC 6455 §5.1).
    func sendUnmasked(_ payload: [UInt8], opcode: UInt8 = 2) throws {
        precondition(payload.count < 126)
        try write([0x80 | opcode, UInt8(payload.count)] + payload)
    }

    /// Sends one masked frame (`opcode` 2 binary, 1 text, 8 close) of `payload`, as a browser must.
    func send(_ payload: [UInt8], opcode: UInt8 = 2) throws {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (8 * UInt64($0))) & 0xFF) }
        }
        let mask: [UInt8] = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    /// The next frame, or nil when the server closed the connection or `timeout` passed.
    func nextFrame(timeout: Duration = .seconds(30)) throws -> Frame? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if pending.count >= 2 {
                var length = Int(pending[1] & 0x7F)
                var offset = 2
                if length == 126, pending.count >= 4 {
                    length = Int(pending[2]) << 8 | Int(pending[3])
                    offset = 4
                } else if length == 127, pending.count >= 10 {
                    length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    offset = 10
                }
                if length < 126 || offset > 2, pending.count >= offset + length {
                    let frame = Frame(opcode: pending[0] & 0x0F, payload: Array(pending[offset..<(offset + length)]))
                    pending.removeFirst(offset + length)
                    return frame
                }
            }
            guard try fill(until: deadline) == .data else { return nil }
        }
    }

    /// Frames until a close frame (returned) or the connection ends (nil), gathering the text frames on the way.
    func untilClose(timeout: Duration = .seconds(30)) throws -> (close: Frame?, texts: [String], bytes: [UInt8]) {
        var texts: [String] = []
        var bytes: [UInt8] = []
        while let frame = try nextFrame(timeout: timeout) {
            switch frame.opcode {
            case 8:
                // Answered as a browser does, so the server may close at once instead of at its close timeout.
                try? send(Array(frame.payload.prefix(2)), opcode: 8)
                return (frame, texts, bytes)
            case 1: texts.append(frame.text)
            case 2: bytes += frame.payload
            default: break
            }
        }
        return (nil, texts, bytes)
    }

    /// Whether the server closes the connection within `timeout`, whatever it sends first.
    func waitForEnd(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch (try? fill(until: deadline)) ?? .ended {
            case .data: pending.removeAll()
            case .ended: return true
            case .timedOut: return false
            }
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw TmuxError(message: "send failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    private enum Arrival { case data, ended, timedOut }

    /// Reads what arrives before `deadline`.
    private func fill(until deadline: ContinuousClock.Instant) throws -> Arrival {
        guard !waitReadable([descriptor], before: deadline).isEmpty else { return .timedOut }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var count: Int
        repeat { count = recv(descriptor, &buffer, buffer.count, 0) } while count < 0 && errno == EINTR
        guard count > 0 else {
            if count < 0, errno != ECONNRESET { throw TmuxError(message: "recv failed: \(String(cString: strerror(errno)))") }
            return .ended
        }
        pending += buffer[0..<count]
        return .data
    }
}

extension WebSocketTestClient: LiveObject {}
