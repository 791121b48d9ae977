import Foundation
import LiveObjects
import Synchronization

/// Paths for a test's files under the system's temporary directory, removed when the test process exits.
public enum TemporaryDirectory {
    /// A fresh path, `storefront-<UUID>`, not yet made. It, and any file beside it whose name starts with it (such as
    /// `<path>-proxy.err`), is removed at exit: a run leaves nothing behind in /tmp.
    public static func make() -> URL {
        _ = cleanupAtExit
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-\(UUID().uuidString)")
        _ = made.withLock { $0.insert(url.lastPathComponent) }
        recording?.paths.withLock { $0.append(url) }
        return url
    }

    /// The paths `make` gave while a scope that asked for them ran (`$recording.withValue`), for a check at its end.
    public final class PathsMade: Sendable, LiveObject {
        fileprivate let paths = Mutex<[URL]>([])
        public init() {}
        public var all: [URL] { paths.withLock { $0 } }
    }

    @TaskLocal public static var recording: PathsMade?

    private static let made = Mutex<Set<String>>([])

    /// Registered once, on the first path made.
    private static let cleanupAtExit: Void = {
        atexit { TemporaryDirectory.removeEverythingMade() }
    }()

    /// Removes every path made, and the files named after them.
    static func removeEverythingMade() {
        let names = made.withLock { $0 }
        guard !names.isEmpty else { return }
        let parent = FileManager.default.temporaryDirectory
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for entry in entries where names.contains(where: { entry.hasPrefix($0) }) {
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(entry))
        }
    }
}
