import Foundation
import GRDB

/// What a backup holds, as its check read it.
public struct SQLiteBackupSummary: Equatable, Sendable {
    public var orders: Int
    public var products: Int
    public var bytes: Int
    /// The schema steps applied to it.
    public var schemaSteps: Int
}

/// Backups of a live SQLite shop, and their restore.
///
/// Order of calls for a backup: a read-only connection to the live file → SQLite's online backup API in one step (one
/// read transaction: a consistent snapshot while shoppers buy) into `<destination>.partial`, owner-only → the copy
/// checked (`integrity_check`, a schema this version knows) → renamed to `destination`: one file, in the rollback journal
/// mode, with nothing beside it. A restore takes the shop's lock exclusive (`SQLiteShopLock`: refused while any process
/// has the shop open, and no process can open it until the restore lets go), checks the backup the same way, puts a
/// copy in place of the live file with the live file's owner and mode, then lets go.
extension SQLiteDatabase {
    public static func backup(from source: String, to destination: String) throws(SQLiteDatabaseError) -> SQLiteBackupSummary {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw .failed(path: destination, reason: "it exists already; a backup is written to a new file")
        }
        let live = try openReadOnly(path: source)
        let partial = destination + ".partial"
        unlink(partial)
        do {
            try createEmptyOwnerOnly(partial)
            let copy = try DatabaseQueue(path: partial)
            try live.pool.backup(to: copy)
            // The copy is a file on its own: no write-ahead log to carry beside it.
            try copy.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
            try copy.close()
            try live.pool.close()
        } catch {
            unlink(partial)
            throw SQLiteDatabaseError.from(error, path: destination)
        }
        let summary: SQLiteBackupSummary
        do {
            summary = try verify(path: partial)
        } catch {
            unlink(partial)
            throw error
        }
        guard rename(partial, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw .failed(path: destination, reason: reason)
        }
        return summary
    }

    /// Checks that `path` is a whole storefront database this version can open: SQLite's `integrity_check`, and a
    /// schema with no step this version does not know.
    public static func verify(path: String) throws(SQLiteDatabaseError) -> SQLiteBackupSummary {
        try requireRegularFile(path)
        // Reading may make a -shm and -wal beside the file; those this check made go with it.
        let sidecars = ["-wal", "-shm"].map { path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        defer { for sidecar in sidecars { unlink(sidecar) } }
        let opened = try openReadOnly(path: path, requireCurrentSchema: false)
        do {
            let summary = try opened.pool.read { db in
                let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard check == ["ok"] else {
                    throw SQLiteDatabaseError.notADatabase(path: path, reason: "integrity_check: \(check.prefix(3).joined(separator: "; "))")
                }
                return SQLiteBackupSummary(
                    orders: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM orders") ?? 0,
                    products: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM product") ?? 0,
                    bytes: (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0) * (try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0),
                    schemaSteps: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") ?? 0)
            }
            try opened.pool.close()
            return summary
        } catch {
            try? opened.pool.close()
            throw SQLiteDatabaseError.from(error, path: path)
        }
    }

    /// Puts the backup at `backup` in place of the shop at `live`, after checking it; refused while a process has the
    /// live file open (its shop would go on writing the file it replaced).
    ///
    /// `beforeSwap` runs with the lock held and the copy made, just before it takes the live file's place (tests hold a
    /// restore there to start processes against it).
    public static func restore(
        from backup: String, to live: String, beforeSwap: () -> Void = {}
    ) throws(SQLiteDatabaseError) -> SQLiteBackupSummary {
        try requireRegularFile(backup)
        // Held through the check, the copy and the swap: a process starting meanwhile is refused, not given the old file.
        let lock = try SQLiteShopLock.exclusive(for: live)
        defer { withExtendedLifetime(lock) {} }
        let summary = try verify(path: backup)
        var replaced = stat()
        let hadLive = stat(live, &replaced) == 0
        // A process of an older storefront takes no lock: SQLite's own lock still finds it.
        if hadLive { try takeOver(live) }
        let incoming = live + ".restoring"
        unlink(incoming)
        do {
            try createEmptyOwnerOnly(incoming)
            let source = try DatabaseQueue(path: backup, configuration: readOnlyConfiguration())
            let sidecars = ["-wal", "-shm"].map { backup + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
            defer { for sidecar in sidecars { unlink(sidecar) } }
            let copy = try DatabaseQueue(path: incoming)
            try source.backup(to: copy)
            try copy.close()
            try source.close()
            try keepOwnerAndMode(of: hadLive ? replaced : nil, on: incoming)
        } catch {
            unlink(incoming)
            throw SQLiteDatabaseError.from(error, path: live)
        }
        beforeSwap()
        // The live file's write-ahead log belongs to the database being replaced: it goes with it.
        for suffix in ["-wal", "-shm"] { unlink(live + suffix) }
        guard rename(incoming, live) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(incoming)
            throw .failed(path: live, reason: reason)
        }
        return summary
    }

    /// Makes sure no process has `path` open: an exclusive lock, which a connection in WAL mode (every shop's) keeps
    /// from being taken, and the write-ahead log checkpointed into the file.
    private static func takeOver(_ path: String) throws(SQLiteDatabaseError) {
        do {
            var configuration = Configuration()
            configuration.busyMode = .immediateError
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            do {
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
                    try db.execute(sql: "BEGIN EXCLUSIVE")
                    try db.execute(sql: "COMMIT")
                    try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                try? queue.close()
                throw SQLiteDatabaseError.busy(path: path)
            }
            try queue.close()
        } catch {
            throw SQLiteDatabaseError.from(error, path: path)
        }
    }

    /// Gives `path` the owner and mode `replaced` had (a restore run as root leaves the shop its user's file); with no
    /// file replaced, a root restore gives it to the data directory's owner.
    private static func keepOwnerAndMode(of replaced: stat?, on path: String) throws {
        var owner = replaced
        if owner == nil, geteuid() == 0 {
            var folder = stat()
            if stat((path as NSString).deletingLastPathComponent, &folder) == 0 { owner = folder }
        }
        guard let owner else { return }
        if geteuid() == 0, chown(path, owner.st_uid, owner.st_gid) != 0 {
            throw SQLiteDatabaseError.failed(path: path, reason: "cannot give it its owner back: \(String(cString: strerror(errno)))")
        }
        if replaced != nil, chmod(path, owner.st_mode & 0o7777) != 0 {
            throw SQLiteDatabaseError.failed(path: path, reason: "cannot give it its mode back: \(String(cString: strerror(errno)))")
        }
    }

    /// Refuses what is not a regular file with content (a folder, a FIFO that would hang the read, a device, an empty
    /// file) before anything opens it.
    private static func requireRegularFile(_ path: String) throws(SQLiteDatabaseError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .failed(path: path, reason: String(cString: strerror(errno))) }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            let what =
                kind == S_IFDIR ? "a folder" : kind == S_IFIFO ? "a FIFO" : kind == S_IFCHR || kind == S_IFBLK ? "a device" : "not a regular file"
            throw .notADatabase(path: path, reason: "it is \(what), not a backup file")
        }
        guard info.st_size > 0 else { throw .notADatabase(path: path, reason: "it is empty") }
    }

    private static func readOnlyConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    private static func createEmptyOwnerOnly(_ path: String) throws {
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw SQLiteDatabaseError.failed(path: path, reason: String(cString: strerror(errno))) }
        close(descriptor)
    }
}

extension SQLiteDatabase {
    /// Why this database cannot serve now (it cannot be read, or its schema is not the one this version knows); nil
    /// when it can.
    public func schemaProblem() async -> String? {
        do {
            let applied = try await pool.read { db in Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) }
            let known = Set(Self.migrator.migrations)
            if !applied.subtracting(known).isEmpty {
                return "written by a newer storefront (schema steps \(applied.subtracting(known).sorted().joined(separator: ", ")))"
            }
            if !known.subtracting(applied).isEmpty { return "not migrated: \(known.subtracting(applied).count) schema steps missing" }
            return nil
        } catch {
            return "\(SQLiteDatabaseError.from(error, path: path))"
        }
    }
}
