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
/// checked (`integrity_check`, a schema this version knows) → renamed to `destination`. A restore checks the backup the
/// same way, refuses while any process has the live file open, and puts a copy in its place.
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
    public static func restore(from backup: String, to live: String) throws(SQLiteDatabaseError) -> SQLiteBackupSummary {
        let summary = try verify(path: backup)
        if FileManager.default.fileExists(atPath: live) { try takeOver(live) }
        let incoming = live + ".restoring"
        unlink(incoming)
        do {
            try createEmptyOwnerOnly(incoming)
            let source = try DatabaseQueue(path: backup, configuration: readOnlyConfiguration())
            let copy = try DatabaseQueue(path: incoming)
            try source.backup(to: copy)
            try copy.close()
            try source.close()
        } catch {
            unlink(incoming)
            throw SQLiteDatabaseError.from(error, path: live)
        }
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
