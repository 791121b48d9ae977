import LiveObjects
import NIOCore
import Synchronization

/// A string a client chose (an exec command, a subsystem name, `TERM`) as a log line may hold it: its first
/// `limit` characters escaped, and its length when it was cut, so no client can write much to the log.
public func clientChosen(_ text: String, limit: Int = 40) -> String {
    guard text.count > limit else { return text.debugDescription }
    return String(text.prefix(limit)).debugDescription + "… (\(text.utf8.count) bytes)"
}

/// What one SSH connection may ask of the server before it is closed: each channel and request costs a
/// process, a reply and a log line, so a client that asks for hundreds is flooding, not shopping.
public struct ConnectionAllowance: Sendable, Equatable {
    /// Session channels one connection may open over its life (OpenSSH's MaxSessions is 10 at once).
    public var channels: Int
    /// Channel requests one connection may make over its life, window changes aside (a pty, a shell and a few
    /// environment variables a session; a resize is a request a terminal makes whenever it is dragged).
    public var requests: Int

    public static let standard = ConnectionAllowance(channels: 10, requests: 100)

    public init(channels: Int, requests: Int) {
        self.channels = channels
        self.requests = requests
    }
}

/// Passes log lines on, but at most `burst` of each kind of refusal in any `window`; the next line of a kind
/// after a quiet spell says how many were left out. Times are read from `now`, so tests choose them.
public final class RefusalLogThrottle: Sendable {
    private struct Kind {
        var windowStart: NIODeadline
        var written = 0
        var suppressed = 0
    }

    private let burst: Int
    private let window: TimeAmount
    private let now: @Sendable () -> NIODeadline
    private let write: @Sendable (String) -> Void
    private let kinds = Mutex<[String: Kind]>([:])

    public init(
        burst: Int = 20, window: TimeAmount = .seconds(60), now: @escaping @Sendable () -> NIODeadline = { .now() },
        write: @escaping @Sendable (String) -> Void
    ) {
        self.burst = burst
        self.window = window
        self.now = now
        self.write = write
    }

    /// Logs `line` unless `kind` already wrote `burst` lines in this window.
    public func log(_ kind: String, _ line: String) {
        let time = now()
        let (allowed, leftOut): (Bool, Int) = kinds.withLock { kinds in
            var entry = kinds[kind] ?? Kind(windowStart: time)
            var leftOut = 0
            if time - entry.windowStart >= window {
                leftOut = entry.suppressed
                entry = Kind(windowStart: time)
            }
            defer { kinds[kind] = entry }
            guard entry.written < burst else {
                entry.suppressed += 1
                return (false, 0)
            }
            entry.written += 1
            return (true, leftOut)
        }
        guard allowed else { return }
        if leftOut > 0 { write("\(leftOut) more \"\(kind)\" line\(leftOut == 1 ? " was" : "s were") left out of the log") }
        write(line)
    }
}

extension RefusalLogThrottle: LiveObject {}
