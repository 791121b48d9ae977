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

    /// Opens (creating if needed) `url` for appending.
    static func open(_ url: URL, level: Logger.Level) throws -> @Sendable (String) -> any LogHandler {
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        let handle = try FileHandle(forWritingTo: url)
        handle.seekToEndOfFile()
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
