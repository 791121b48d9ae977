import Foundation
import ShopPorts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wakes a terminal waiting on a sign-in, for processes sharing a data directory: the waiter makes a named pipe in
/// `directory` named after its key (only the owner may open it), and the process that finished the sign-in writes a
/// byte into it. No loop asks the database in between.
public struct FileSignInWakeups: SignInWakeups {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// The wakeups beside the database at `databasePath` (`sign-in-wakes/`).
    public init(besideDatabase databasePath: String) {
        let folder = (databasePath as NSString).deletingLastPathComponent
        directory = (folder.isEmpty ? FileManager.default.temporaryDirectory.path : folder) + "/sign-in-wakes"
    }

    /// Why a wait could not begin.
    public struct WaitError: Error, CustomStringConvertible {
        public var description: String
    }

    public func wait(for key: String, check: @escaping @Sendable () async -> Bool) async throws {
        let path = try self.path(key)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        unlink(path)
        guard mkfifo(path, 0o600) == 0 else { throw WaitError(description: "cannot make \(path): \(String(cString: strerror(errno)))") }
        defer { unlink(path) }
        // Read and write: the pipe never reads as closed between two writers.
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw WaitError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        if await check() { return }
        try await readable(descriptor)
    }

    public func wake(_ key: String) async {
        guard let path = try? path(key) else { return }
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        // Nobody waiting (no pipe, or no reader): the outcome stays in the database for the terminal.
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
        close(descriptor)
    }

    /// The pipe of `key`: hex digits only, so a key is never a path.
    private func path(_ key: String) throws -> String {
        guard (16...128).contains(key.count), key.allSatisfy(\.isHexDigit) else { throw WaitError(description: "not a wake key: \(key.prefix(20))") }
        return directory + "/" + key.prefix(32)
    }
}

/// Waits on a thread of its own until `descriptor` has something to read; a cancelled task writes a byte into the
/// pipe itself, so the thread always ends.
private func readable(_ descriptor: Int32) async throws {
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                while poll(&watched, 1, -1) < 0, errno == EINTR {}
                continuation.resume()
            }
        }
    } onCancel: {
        var byte: UInt8 = 0
        _ = write(descriptor, &byte, 1)
    }
    try Task.checkCancellation()
}
