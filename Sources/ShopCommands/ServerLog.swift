import Foundation
import LiveObjects
import Logging
import MerchantReports
import ShopMetrics
import ShopModels
import StorefrontUI
import Synchronization
import TerminalNCurses

/// A server's log on stdout: text lines (a timestamp and the message, as always) or one JSON object per line, with a
/// level per component; written by a thread of its own, so a reader that stops reading never stalls a front.
///
/// Order of calls: `configure` once at start (and on SIGHUP for the levels) → `write` from anywhere → `flush` before
/// the process exits.
public final class ServerLog: @unchecked Sendable {
    public enum Format: String, Sendable, CaseIterable { case text, json }

    /// The process's log.
    public static let shared = ServerLog(descriptor: STDOUT_FILENO)

    /// Lines held while the reader is behind; past this, new lines are dropped and counted.
    static let capacity = 10_000

    // One lock for the queue and the settings: NSCondition wakes the writer thread.
    private let condition = NSCondition()
    // Lines are formatted by the writer thread, so a front pays only for queueing one.
    private var queue: [LogLine] = []
    private var dropped = 0
    /// Lines dropped since the start, for the log's own tests; the metric counts them for operators.
    private(set) var droppedInAll = 0
    private var writing = false
    private var format = Format.text
    private var defaultLevel = Logger.Level.info
    private var levels: [String: Logger.Level] = [:]
    private let descriptor: Int32
    /// The process whose thread writes: a session forked from its host has none of the host's threads, and starts its own.
    private var writerProcess: pid_t = 0

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Sets the format and the levels: `levels` by component (ssh, web, api, …) over `defaultLevel`.
    public func configure(format: Format? = nil, defaultLevel: Logger.Level, levels: [String: Logger.Level]) {
        // A server's libraries log through this too, never in a format of their own.
        ServerLogHandler.bootstrap()
        condition.withLock {
            if let format { self.format = format }
            self.defaultLevel = defaultLevel
            self.levels = levels
        }
    }

    public var currentFormat: Format { condition.withLock { format } }

    /// Queues one line for `component` at `level`; dropped (and counted) when the queue is full.
    public func write(_ message: String, component: String? = nil, level: Logger.Level = .info, at time: Date = Date()) {
        let line = LogLine(time: time, level: level, message: message, component: component)
        condition.withLock {
            guard level >= (levels[line.component] ?? defaultLevel) else { return }
            guard queue.count < Self.capacity else {
                dropped += 1
                droppedInAll += 1
                ShopMetrics.count(ShopMetrics.logLinesDropped)
                return
            }
            queue.append(line)
            if writerProcess != getpid() {
                writerProcess = getpid()
                writing = false
                let thread = Thread { [self] in drain() }
                thread.name = "log-writer"
                thread.start()
            }
            condition.signal()
        }
    }

    /// Waits until every queued line is written, for up to `timeout`: a reader that stopped must not keep the
    /// process from exiting.
    public func flush(timeout: Duration = .seconds(2)) {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.withLock {
            while !queue.isEmpty || writing {
                if !condition.wait(until: deadline) { return }
            }
        }
    }

    private func drain() {
        // A reader that went away makes the write fail here, not the server die of SIGPIPE.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        var none = timespec()
        while true {
            let (lines, lost, format) = condition.withLock { () -> ([LogLine], Int, Format) in
                while queue.isEmpty && dropped == 0 { condition.wait() }
                defer {
                    queue.removeAll(keepingCapacity: true)
                    dropped = 0
                    writing = true
                }
                return (queue, dropped, self.format)
            }
            var text = ""
            for line in lines { text += format == .json ? line.json : line.text }
            if lost > 0 {
                let note = LogLine(
                    time: Date(), level: .warning, message: "log: \(lost) line\(lost == 1 ? "" : "s") dropped: the log's reader fell behind")
                text += format == .json ? note.json : note.text
            }
            // The only write that may block: this thread's own, never a front's.
            _ = writeAll(TerminalText.safeLines(text).utf8.map { $0 }, to: descriptor)
            while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
            condition.withLock {
                writing = false
                condition.broadcast()
            }
        }
    }
}

/// One line of a server's log, before it is written.
struct LogLine {
    var time: Date
    var level: Logger.Level
    var component: String
    var message: String
    /// The message as it was given, prefix and all: the text format's, unchanged from before JSON.
    var given: String

    /// `message`'s own component prefix ("api: …", "web session 3 open") is taken when none is given.
    init(time: Date, level: Logger.Level, message: String, component: String? = nil) {
        self.time = time
        self.level = level
        given = component.map { "\($0): \(message)" } ?? message
        var message = message
        if let component {
            self.component = component
        } else if let colon = message.utf8.prefix(24).firstIndex(of: UInt8(ascii: ":")),
            Self.prefixes.contains(String(message[..<colon])), message[colon...].hasPrefix(": ")
        {
            let prefix = String(message[..<colon])
            self.component = prefix == "webhook" ? "webhooks" : prefix
            message = String(message[message.index(colon, offsetBy: 2)...])
        } else if message.hasPrefix("web session ") {
            self.component = "web"
            message = String(message.dropFirst("web ".count))
        } else if message.hasPrefix("webhook ") {
            self.component = "webhooks"
            message = String(message.dropFirst("webhook ".count))
        } else {
            self.component = message.hasPrefix("session ") ? "ssh" : "server"
        }
        self.message = message
    }

    /// The prefixes the servers' lines start with, each a component of the log.
    static let prefixes: Set<String> = [
        "ssh", "web", "api", "webhook", "webhooks", "admin", "mail", "mail-worker", "renewals", "storage", "sessions", "sign-in", "up", "reload",
        "log",
    ]

    /// The ids a log pipeline joins on: a request's (`req_…`), a session's (`session 3`). Plain scanning: a log line
    /// is written at every request, and Swift's regular expressions cost a good part of a millisecond each.
    static func fields(in message: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        if let start = message.range(of: "req_") {
            let id = message[start.lowerBound...].prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            if id.count > 4 { fields.append(("request_id", String(id))) }
        }
        if let start = message.range(of: "session ") {
            let digits = message[start.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty { fields.append(("session_id", String(digits))) }
        }
        return fields
    }

    var text: String { "\(UTCTime(time).iso8601Milliseconds) \(given)\n" }

    /// The ids a pipeline joins on, found in the message.
    var fields: [(String, String)] { Self.fields(in: message) }

    /// One JSON object, its keys in a fixed order (alphabetical, as a reader sorting them would put them).
    var json: String {
        var pairs = [("component", component), ("level", "\(level)"), ("message", message)] + fields
        pairs.append(("time", UTCTime(time).iso8601Milliseconds))
        pairs.sort { $0.0 < $1.0 }
        return "{" + pairs.map { "\"\($0.0)\":\(Self.quoted($0.1))" }.joined(separator: ",") + "}\n"
    }

    /// A JSON string: quotes, backslashes and every control character escaped; the rest as it is (UTF-8).
    static func quoted(_ text: String) -> String { JSONText.string(text) }
}

/// Every library's log (Hummingbird's, its WebSocket's, swift-service-lifecycle's) as the shop's own lines: through
/// `ServerLog`, so a JSON log stays one JSON object a line, each with its component (the logger's label) and level.
struct ServerLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let extra = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        ServerLog.shared.write("\(event.message)\(extra)", component: label, level: event.level)
    }

    /// Routes swift-log's loggers to `ServerLog`, once a process (swift-log takes one bootstrap).
    static func bootstrap() {
        guard !bootstrapped.exchange(true, ordering: .relaxed) else { return }
        // The shop's own loggers say what they set; another library's says its warnings and errors only.
        LoggingSystem.bootstrap { ServerLogHandler(label: $0, logLevel: $0.hasPrefix("storefront") ? .info : .warning) }
    }

    private static let bootstrapped = Atomic<Bool>(false)
}

extension ServerLog: LiveObject {}
