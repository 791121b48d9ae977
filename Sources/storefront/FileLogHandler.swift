import Foundation
import Logging
import Synchronization

/// Appends log lines to one file; never writes to the terminal, which belongs to the shop.
struct FileLogHandler: LogHandler {
    private final class Sink: Sendable {
        let handle: Mutex<FileHandle>
        init(handle: FileHandle) { self.handle = Mutex(handle) }
        func write(_ line: String) {
            handle.withLock { $0.write(Data(line.utf8)) }
        }
    }

    private let sink: Sink
    private let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    /// Opens (creating if needed, mode 0600) `url` for appending.
    ///
    /// O_APPEND, not a seek to the end: every SSH session is a process writing this same file, and
    /// only O_APPEND makes each line land after the others' instead of over them.
    static func open(_ url: URL, level: Logger.Level) throws -> @Sendable (String) -> any LogHandler {
        let descriptor = Foundation.open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let sink = Sink(handle: handle)
        return { label in FileLogHandler(sink: sink, label: label, logLevel: level) }
    }

    private init(sink: Sink, label: String, logLevel: Logger.Level) {
        self.sink = sink
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let stamp = ISO8601DateFormatter().string(from: Date())
        sink.write("\(stamp) \(event.level) \(label): \(event.message)\n")
    }
}
