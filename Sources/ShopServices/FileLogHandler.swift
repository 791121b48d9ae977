import Foundation
import LiveObjects
import Logging
import ShopModels
import StorefrontUI
import Synchronization

/// Appends log lines to one file; never writes to the terminal, which belongs to the shop.
///
/// A line that cannot be written (a full disk, a log on /dev/full) is dropped: the log never stops
/// the shop. The first such failure is kept so the program can say so once, after the terminal
/// is given back (`firstFailure`).
public struct FileLogHandler: LogHandler {
    public final class Sink: Sendable, LiveObject {
        private let descriptor: Int32
        private let failure = Mutex<String?>(nil)
        private let lock = Mutex(())

        init(descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }

        func write(_ line: String) {
            var bytes = Array(line.utf8)
            lock.withLock { _ in
                // One write(2) per line under O_APPEND keeps each line whole among the sessions' processes.
                let written = bytes.withUnsafeMutableBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                if written != bytes.count { record(written < 0 ? String(cString: strerror(errno)) : "short write") }
            }
        }

        private func record(_ reason: String) {
            failure.withLock { if $0 == nil { $0 = reason } }
        }

        /// Why the first line was lost, or nil while every line has been written.
        public var firstFailure: String? { failure.withLock { $0 } }
    }

    private let sink: Sink
    private let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    /// Opens (creating if needed, mode 0600) `url` for appending.
    ///
    /// O_APPEND, not a seek to the end: every SSH session is a process writing this same file, and
    /// only O_APPEND makes each line land after the others' instead of over them.
    public static func open(_ url: URL, level: Logger.Level) throws -> (sink: Sink, factory: @Sendable (String) -> any LogHandler) {
        let descriptor = Foundation.open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(
                .fileWriteNoPermission,
                userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
        }
        let sink = Sink(descriptor: descriptor)
        return (sink, { label in FileLogHandler(sink: sink, label: label, logLevel: level) })
    }

    private init(sink: Sink, label: String, logLevel: Logger.Level) {
        self.sink = sink
        self.label = label
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let stamp = UTCTime(Date()).iso8601
        sink.write(TerminalText.safeLines("\(stamp) \(event.level) \(label): \(event.message)") + "\n")
    }
}
