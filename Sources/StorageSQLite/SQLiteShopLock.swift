import Foundation
import GRDB
import LiveObjects

/// The advisory locks beside a shop's SQLite file, so a restore and a process starting meanwhile cannot both think they
/// hold the shop (flock(2): a lock belongs to the open file, so the sessions a host forks share the host's).
///
/// - `<file>.lock`: every process that opens the shop to write holds it shared for as long as it has the shop open;
///   `restore` holds it exclusive for its whole check, copy and swap. A process starting during a restore waits up to
///   2 s, then is refused (`beingRestored`) before it opens the file; a restore while any process has the shop open is
///   refused the same way.
/// - `<file>.migrate.lock`: held exclusive while one process applies schema steps, so two processes starting on a
///   fresh data directory do not both create the same tables.
///
/// Both are empty files made readable by everyone in the (owner-only) data directory, so a lock file a root restore
/// made still opens for the shop's own user.
public final class SQLiteShopLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The file every process with the shop open holds shared.
    public static func path(for database: String) -> String { database + ".lock" }

    /// The file held while the schema is brought up to date.
    static func migrationPath(for database: String) -> String { database + ".migrate.lock" }

    /// Holds the shop's lock shared, for a process about to open it; refused while a restore holds it.
    public static func shared(for database: String) throws(SQLiteDatabaseError) -> SQLiteShopLock {
        let lock = try openLockFile(path(for: database))
        guard try take(lock, LOCK_SH, of: database) else { throw .beingRestored(path: database) }
        return lock
    }

    /// Holds the shop's lock exclusive, for a restore; refused while any process holds it shared.
    public static func exclusive(for database: String) throws(SQLiteDatabaseError) -> SQLiteShopLock {
        let lock = try openLockFile(path(for: database))
        guard try take(lock, LOCK_EX, of: database) else { throw .busy(path: database) }
        return lock
    }

    /// Tries `operation` for up to `patience`; false when the lock stays held. A lock let go of a moment ago can still
    /// be held by a copy of its descriptor in a child another thread is starting (between its fork and its exec, which
    /// closes it), so a first refusal is not the last word; a restore or a shop holding it for real holds it longer.
    private static func take(
        _ lock: SQLiteShopLock, _ operation: Int32, of database: String, patience: Duration = .seconds(2)
    ) throws(SQLiteDatabaseError) -> Bool {
        let deadline = ContinuousClock.now + patience
        while flock(lock.descriptor, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw .failed(path: path(for: database), reason: String(cString: strerror(errno)))
            }
            guard ContinuousClock.now < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// Runs `body` (the schema steps) while no other process runs its own, waiting up to `timeout` for one that does.
    static func migrating<T>(_ database: String, timeout: Duration = .seconds(60), _ body: () throws -> T) throws -> T {
        let lock = try openLockFile(migrationPath(for: database))
        let deadline = ContinuousClock.now + timeout
        // A bounded wait: another process's schema steps take well under a second; one stopped mid-way must not hang
        // this one for ever.
        while flock(lock.descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw SQLiteDatabaseError.failed(path: migrationPath(for: database), reason: String(cString: strerror(errno)))
            }
            guard ContinuousClock.now < deadline else { throw SQLiteDatabaseError.busy(path: database) }
            usleep(10_000)
        }
        return try withExtendedLifetime(lock) { try body() }
    }

    private static func openLockFile(_ path: String) throws(SQLiteDatabaseError) -> SQLiteShopLock {
        let descriptor = Foundation.open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            if errno == EACCES || errno == EROFS { throw .readOnly(path: path) }
            throw .failed(path: path, reason: String(cString: strerror(errno)))
        }
        // Made by root (a restore run as root): given to the directory's owner, the user the shop runs as.
        var folder = stat()
        if geteuid() == 0, stat((path as NSString).deletingLastPathComponent, &folder) == 0, folder.st_uid != 0 {
            _ = fchown(descriptor, folder.st_uid, folder.st_gid)
        }
        return SQLiteShopLock(descriptor: descriptor)
    }
}

/// Refuses every commit once the shop's file is no longer the one this process opened (a restore, or a copy put in its
/// place by hand): the write is rolled back, never made to a file that is gone, and the error says why.
final class ReplacedFileGuard: TransactionObserver, @unchecked Sendable {
    private let path: String
    private let identity: (device: UInt64, inode: UInt64)

    /// Notes the identity of the file at `path` now.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.path = path
        identity = (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether `path` is still the file this process opened.
    var isSameFile: Bool {
        var info = stat()
        return stat(path, &info) == 0 && UInt64(info.st_dev) == identity.device && UInt64(info.st_ino) == identity.inode
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseWillCommit() throws {
        guard isSameFile else { throw SQLiteDatabaseError.replaced(path: path) }
    }
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}

extension SQLiteShopLock: LiveObject {}
extension ReplacedFileGuard: LiveObject {}
