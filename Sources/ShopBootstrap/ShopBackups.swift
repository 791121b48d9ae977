import Foundation
import StorageSQLite
import SystemPackage

/// `storefront backup` and `restore` for the shop a configuration names: SQLite's online backup of a live shop, and
/// its restore while the shop is stopped. A PostgreSQL shop is backed up with PostgreSQL's own tools
/// (docs/operations.md). Throws `StorageOpenFailure`.
public enum ShopBackups {
    /// Copies the live shop at `place` to the new file `destination`, checked.
    public static func backup(_ place: StoragePlace, to destination: FilePath) throws -> SQLiteBackupSummary {
        let live = try sqliteFile(place, doing: "backup")
        guard FileManager.default.fileExists(atPath: live.string) else {
            throw StorageOpenFailure(.noInput, "no shop in \(live.removingLastComponent()): it holds no \(SQLiteDatabase.fileName)")
        }
        let folder = destination.removingLastComponent().string
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw StorageOpenFailure(.cannotCreate, "cannot write the backup \(destination): no folder \(folder)")
        }
        do {
            return try SQLiteDatabase.backup(from: live.string, to: destination.string)
        } catch {
            throw failure(error, exists: FileManager.default.fileExists(atPath: destination.string))
        }
    }

    /// Checks the backup `source` and puts it in place of the shop at `place`, which no process may have open.
    public static func restore(_ place: StoragePlace, from source: FilePath, beforeSwap: () -> Void = {}) throws -> SQLiteBackupSummary {
        let live = try sqliteFile(place, doing: "restore")
        guard FileManager.default.fileExists(atPath: source.string) else { throw StorageOpenFailure(.noInput, "no backup at \(source)") }
        try FileManager.default.createDirectory(atPath: live.removingLastComponent().string, withIntermediateDirectories: true)
        do {
            return try SQLiteDatabase.restore(from: source.string, to: live.string, beforeSwap: beforeSwap)
        } catch .busy {
            throw StorageOpenFailure(
                .busy, "the shop in \(live.removingLastComponent()) is open in a storefront process: stop it, then restore (nothing was changed)")
        } catch {
            throw failure(error, exists: false)
        }
    }

    private static func sqliteFile(_ place: StoragePlace, doing what: String) throws -> FilePath {
        switch place {
        case .sqlite(let directory): return directory.appending(SQLiteDatabase.fileName)
        case .postgres:
            throw StorageOpenFailure(
                .usage, "storefront \(what) is for a SQLite shop; a PostgreSQL shop is backed up with pg_dump or its archive (docs/operations.md)")
        }
    }

    private static func failure(_ error: SQLiteDatabaseError, exists: Bool) -> StorageOpenFailure {
        switch error {
        case .notADatabase, .newerSchema: StorageOpenFailure(.invalidCatalog, "\(error)")
        case .busy: StorageOpenFailure(.busy, "\(error)")
        case .failed where exists, .readOnly, .cannotCreateDirectory: StorageOpenFailure(.cannotCreate, "\(error)")
        default: StorageOpenFailure(.io, "\(error)")
        }
    }
}
