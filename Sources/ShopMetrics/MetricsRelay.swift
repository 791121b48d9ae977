import CoreMetrics
import Foundation
import LiveObjects
import Synchronization

/// Carries a shopper's session's counters and timings to the server that started it, whose `/metrics` shows them.
///
/// A session (a process of its own, or one of a worker's) sends its updates, a line each and gathered while its main
/// queue is busy, as datagrams on a Unix datagram socket in Linux's abstract namespace (no file to clean up), never
/// waiting: a full socket drops them. The server reads them and records only those sent by a process of its own (the
/// kernel's word on the sender: this user, and a descendant of the server), naming a metric in
/// `ShopMetrics.definitions` with exactly its labels, each label's value one of a fixed set (`relayedValues`), and
/// no more series than `seriesLimit`: another local user cannot forge or flood the server's metrics.
public enum MetricsRelay {
    /// The values a session's update may carry, a fixed set per label; a metric with any other label is not relayed.
    static let relayedValues: [String: Set<String>] = [
        "front": ["ssh", "web", "local", "api", "renewals"],
        "outcome": [
            "paid", "bank_check", "no_answer", "token_refused", "refused", "succeeded", "declined", "unreachable", "pending",
        ],
        "operation": ["charge", "refund"],
        "provider": ["sandbox", "stripe"],
        "database": ["sqlite", "postgres"],
        "kind": ["read", "write", "call"],
    ]

    /// The most series the relay makes; past it, an update of a new one is dropped (the fixed sets make far fewer).
    static let seriesLimit = 2_000

    /// The variable that hands a session the relay's address, and the one naming its front.
    public static let addressVariable = "STOREFRONT_METRICS_RELAY"
    public static let frontVariable = "STOREFRONT_METRICS_FRONT"

    /// One update as it travels: `c` or `t`, the name, `label=value` pairs joined by commas, the amount.
    static func encode(kind: Character, name: String, dimensions: [(String, String)], amount: Int64) -> String {
        "\(kind) \(name) \(dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ",")) \(amount)"
    }

    /// An update read back, or nil when it is not one the shop defines.
    static func decode(_ text: String) -> (kind: Character, name: String, dimensions: [(String, String)], amount: Int64)? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, let kind = parts[0].first, parts[0].count == 1, kind == "c" || kind == "t",
            let amount = Int64(parts[3]), amount >= 0, amount <= 1_000_000_000_000
        else { return nil }
        let name = String(parts[1])
        guard let definition = ShopMetrics.definitions.first(where: { $0.name == name }),
            (kind == "c") == (definition.kind == .counter), kind == "c" || definition.kind == .histogram
        else { return nil }
        var dimensions: [(String, String)] = []
        for pair in parts[2].split(separator: ",") {
            let halves = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard halves.count == 2, relayedValues[halves[0]]?.contains(halves[1]) == true else { return nil }
            dimensions.append((halves[0], halves[1]))
        }
        guard dimensions.map(\.0) == definition.labels else { return nil }
        return (kind, name, dimensions, amount)
    }

    /// The updates of one datagram, a line each; a line that is not one the shop defines is dropped alone.
    static func decode(batch text: String) -> [(kind: Character, name: String, dimensions: [(String, String)], amount: Int64)] {
        text.split(separator: "\n").compactMap { decode(String($0)) }
    }

    /// `sockaddr_un` for an abstract name: a NUL, then the name.
    static func withAddress<T>(_ name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8.prefix(100))
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0
            for (index, byte) in bytes.enumerated() { path[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }
}

/// The server's end: reads the sessions' updates and records them in this process's metrics.
public final class MetricsRelayListener: Sendable {
    /// The abstract name sessions send to.
    public let address: String
    private let descriptor: Int32
    private let stopped = Atomic(false)

    /// Binds a fresh name; nil when the system refuses a socket.
    public init?() {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        // Each datagram then comes with its sender's pid and uid, as the kernel knows them (not as the sender says).
        var on: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, linuxPassCredentials, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            close(descriptor)
            return nil
        }
        let address = "storefront-metrics-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let bound = MetricsRelay.withAddress(address) { bind(descriptor, $0, $1) }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        self.address = address
        self.descriptor = descriptor
        let thread = Thread { [self] in self.receive() }
        thread.name = "metrics-relay"
        thread.start()
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var senders = RelaySenders()
        var series = Set<String>()
        while !stopped.load(ordering: .relaxed) {
            // MSG_TRUNC: the datagram's whole length, so one longer than the buffer is dropped, not read cut.
            let (count, sender) = Self.receiveDatagram(descriptor, into: &buffer)
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                return
            }
            guard let sender, senders.isOwn(sender) else { continue }
            guard count <= buffer.count, let text = String(validating: buffer.prefix(count), as: UTF8.self) else { continue }
            for update in MetricsRelay.decode(batch: text) {
                let key = update.name + " " + update.dimensions.map(\.1).joined(separator: ",")
                guard series.contains(key) || series.count < MetricsRelay.seriesLimit else { continue }
                series.insert(key)
                if update.kind == "c" {
                    ShopMetrics.count(update.name, update.dimensions, by: update.amount)
                } else {
                    ShopMetrics.time(update.name, update.dimensions, .nanoseconds(update.amount))
                }
            }
        }
    }

    /// One datagram into `buffer`, and who sent it (nil when the kernel gave no credentials).
    private static func receiveDatagram(_ descriptor: Int32, into buffer: inout [UInt8]) -> (Int, SenderCredentials?) {
        var control = [UInt8](repeating: 0, count: 64)
        return buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    let count = recvmsg(descriptor, &message, Int32(MSG_TRUNC))
                    guard count > 0, message.msg_controllen >= MemoryLayout<cmsghdr>.size, let base = controlBytes.baseAddress else {
                        return (count, nil)
                    }
                    let header = base.load(as: cmsghdr.self)
                    guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == linuxCredentialsMessage else { return (count, nil) }
                    let offset = (MemoryLayout<cmsghdr>.size + MemoryLayout<Int>.size - 1) & ~(MemoryLayout<Int>.size - 1)
                    return (count, base.loadUnaligned(fromByteOffset: offset, as: SenderCredentials.self))
                }
            }
        }
    }

    /// Stops reading; sessions' later updates are dropped.
    public func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(descriptor, Int32(SHUT_RDWR))
    }
}

/// A session's metrics: each counter and timer update sent to the server's relay; gauges and the rest are the server's.
public struct RelayMetricsFactory: MetricsFactory {
    private let sender: RelaySender

    /// Sends to `address`; nil when no socket can be had.
    public init?(address: String) {
        guard let sender = RelaySender(address: address) else { return nil }
        self.sender = sender
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        RelayHandler(sender: sender, name: label, dimensions: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        NOOPMetricsHandler.instance
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { NOOPMetricsHandler.instance }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        RelayHandler(sender: sender, name: label, dimensions: dimensions)
    }

    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyMeter(_ handler: any MeterHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}
}

/// A session's socket to the relay: its updates gathered while the main queue is busy and sent as one non-blocking
/// datagram once it is free, so a worker's burst of 128 sessions' keys is a datagram or two, not a send per key.
final class RelaySender: Sendable {
    private let descriptor: Int32
    private let address: String
    /// Updates not sent yet, one a line.
    private let pending = Mutex<[UInt8]>([])
    /// Past this many bytes waiting, they go at once (well inside the listener's buffer).
    static let batchLimit = 4096

    init?(address: String) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.address = address
        RelaySender.current.withLock { $0 = self }
        // A session process exits once its shopper leaves: what it recorded last still goes.
        atexit { RelaySender.current.withLock { $0 }?.flush() }
    }

    deinit { close(descriptor) }

    /// The process's sender, flushed at exit.
    private static let current = Mutex<RelaySender?>(nil)

    func send(_ text: String) {
        let (full, first) = pending.withLock { lines -> (Bool, Bool) in
            let first = lines.isEmpty
            if !first { lines.append(UInt8(ascii: "\n")) }
            lines.append(contentsOf: text.utf8)
            return (lines.count >= Self.batchLimit, first)
        }
        if full {
            flush()
        } else if first {
            // Behind whatever the main queue holds now: the rest of this burst's keys, whose updates join this one.
            DispatchQueue.main.async { self.flush() }
        }
    }

    /// Sends what is waiting; a full socket or a server gone drops it, never waited for.
    func flush() {
        var bytes = pending.withLock { lines in
            defer { lines = [] }
            return lines
        }
        guard !bytes.isEmpty else { return }
        _ = MetricsRelay.withAddress(address) { target, length in sendto(descriptor, &bytes, bytes.count, Int32(MSG_DONTWAIT), target, length) }
    }
}

/// One counter or timer of a session: each update a line to the relay.
final class RelayHandler: CounterHandler, TimerHandler {
    let sender: RelaySender
    let name: String
    let dimensions: [(String, String)]

    init(sender: RelaySender, name: String, dimensions: [(String, String)]) {
        self.sender = sender
        self.name = name
        self.dimensions = dimensions
    }

    func increment(by amount: Int64) { sender.send(MetricsRelay.encode(kind: "c", name: name, dimensions: dimensions, amount: amount)) }
    func reset() {}

    func recordNanoseconds(_ duration: Int64) {
        sender.send(MetricsRelay.encode(kind: "t", name: name, dimensions: dimensions, amount: duration))
    }
}

extension MetricsRelayListener: LiveObject {}
extension RelaySender: LiveObject {}
extension RelayHandler: LiveObject {}
