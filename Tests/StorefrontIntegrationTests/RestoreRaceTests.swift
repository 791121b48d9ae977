import Foundation
import GRDB
import StorageSQLite
import StorefrontTesting
import Testing

/// `storefront restore` against processes that open the shop meanwhile, each a real process: one starting while the
/// restore is under way is refused before it writes (no paid order lands in a file about to be deleted), a restore
/// while one runs is refused, the restored file keeps its owner and mode, a commit to a file replaced under a process
/// is refused, and two processes starting on a fresh data directory both open it.
@Suite("Restore against processes starting", .serialized, .ownThreads)
struct RestoreRaceTests {
    let data = TemporaryDirectory.make().path
    let target = TemporaryDirectory.make().path

    func storefront(_ arguments: [String], environment: [String: String] = [:]) throws -> Subprocess {
        // A process that should be refused at once but is not (an api that serves) is ended well before the restore's.
        try Subprocess.run(
            try BuiltProduct.requireStorefront(), arguments + ["--data-dir", data],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, timeout: .seconds(30))
    }

    /// A purchase of the first product with the sandbox's card, as a shopper at a terminal makes it.
    static let buy = ["headless", "--keys", "enter,a,c,enter,p,enter,q"]

    /// Opens `fifo` for writing on a thread of its own, which returns once its reader (the held restore) opened it.
    static func release(_ fifo: String) async throws -> Int32 {
        try await onOwnThread { open(fifo, O_WRONLY | O_CLOEXEC) }
    }

    @Test func aProcessStartingDuringARestoreIsRefusedAndThePaidOrderIsNotLost() async throws {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try #require(try storefront(Self.buy).status == 0)
        try #require(try storefront(["backup", target + "/one.backup"]).status == 0)
        let live = data + "/storefront.sqlite"
        // As a root restore finds it: the shop's user's file, group-readable.
        let owner: uid_t = geteuid() == 0 ? 65_534 : geteuid()
        if geteuid() == 0 { try #require(chown(live, owner, owner) == 0) }
        try #require(chmod(live, 0o640) == 0)

        // The restore holds, its copy made, until the test lets it go.
        let fifo = target + "/hold"
        try #require(mkfifo(fifo, 0o600) == 0)
        let restore = try Subprocess.start(
            try BuiltProduct.requireStorefront(), ["restore", target + "/one.backup", "--data-dir", data],
            environment: ProcessInfo.processInfo.environment.merging(["STOREFRONT_FAULT_RESTORE_HOLD": fifo]) { $1 })
        let holding = try await Self.release(fifo)
        try #require(holding >= 0, "the restore reached its hold")
        #expect(!restore.hasEnded, "the restore waits at its hold, the shop's lock held")

        // A timer's purchase and an API starting now are refused before they open the file.
        let purchase = try storefront(Self.buy)
        #expect(purchase.status == 75 && purchase.stderr.contains("is being restored from a backup"), "\(purchase.status) \(purchase.stderr)")
        let api = try storefront(["api", "--listen", "127.0.0.1:0"])
        #expect(api.status == 75 && api.stderr.contains("is being restored"), "\(api.status) \(api.stderr)")
        let worker = try storefront(["subscriptions-worker", "--once"])
        #expect(worker.status == 75, "\(worker.status) \(worker.stderr)")

        // The byte lets the restore go on.
        var go: UInt8 = 1
        #expect(write(holding, &go, 1) == 1)
        close(holding)
        let restored = restore.wait()
        #expect(restored.status == 0 && restored.stdout.contains("1 orders"), "\(restored.status) \(restored.stderr)")
        var info = stat()
        try #require(stat(live, &info) == 0)
        #expect(info.st_uid == owner && info.st_mode & 0o777 == 0o640, "owner \(info.st_uid), mode \(String(info.st_mode & 0o777, radix: 8))")
        #expect(!FileManager.default.fileExists(atPath: target + "/one.backup-wal"), "the check left no log beside the backup")

        // Once the restore has finished, the purchase goes through and is kept.
        #expect(try storefront(Self.buy).status == 0)
        let count = try storefront(["backup", target + "/two.backup"])
        #expect(count.stdout.contains("2 orders"), "\(count.stdout)")
    }

    @Test func aRestoreWhileAProcessHasTheShopOpenChangesNothing() throws {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try #require(try storefront(Self.buy).status == 0)
        try #require(try storefront(["backup", target + "/shop.backup"]).status == 0)
        let api = try ServeProcess(command: ["api", "--listen", "127.0.0.1:0"], dataDirectory: data)
        let refused = try storefront(["restore", target + "/shop.backup"])
        #expect(refused.status == 75 && refused.stderr.contains("is open in a storefront process"), "\(refused.stderr)")
        _ = try api.terminate()
        #expect(try storefront(["restore", target + "/shop.backup"]).status == 0)
    }

    @Test func whatIsNotABackupFileIsRefusedAsSuch() throws {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try #require(try storefront(Self.buy).status == 0)
        let empty = target + "/empty.backup"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let fifo = target + "/fifo.backup"
        try #require(mkfifo(fifo, 0o600) == 0)
        for (path, words) in [(empty, "it is empty"), (fifo, "it is a FIFO"), (target, "it is a folder"), ("/dev/zero", "it is a device")] {
            let run = try storefront(["restore", path])
            #expect(run.status == 65 && run.stderr.contains(words), "\(path): \(run.status) \(run.stderr)")
        }
        let missingFolder = try storefront(["backup", target + "/no/such/folder/shop.backup"])
        #expect(missingFolder.status == 73 && missingFolder.stderr.contains("no folder"), "\(missingFolder.stderr)")
        let made = try storefront(["backup", target + "/shop.backup"])
        #expect(made.status == 0)
        let beside = try FileManager.default.contentsOfDirectory(atPath: target).filter { $0.hasPrefix("shop.backup") }
        #expect(beside == ["shop.backup"], "\(beside)")
    }

    @Test func aCommitToAFileReplacedUnderTheProcessIsRefused() async throws {
        let directory = URL(fileURLWithPath: data)
        let database = try SQLiteDatabase.open(directory: directory)
        let other = try SQLiteDatabase.open(path: target + ".other.sqlite")
        try other.pool.close()
        try #require(rename(target + ".other.sqlite", data + "/storefront.sqlite") == 0)
        do {
            try await database.pool.write { db in try db.execute(sql: "UPDATE shop_install SET id = 'changed'") }
            Issue.record("the write went to a file no longer in place")
        } catch {
            #expect("\(SQLiteDatabaseError.from(error, path: database.path))".contains("was replaced under this process"), "\(error)")
        }
    }

    @Test func twoProcessesStartingOnAFreshDataDirectoryBothOpenIt() throws {
        for trial in 0..<12 {
            let fresh = TemporaryDirectory.make().path
            let runs = try (0..<2).map { _ in
                try Subprocess.start(
                    try BuiltProduct.requireStorefront(), ["headless", "--keys", "q", "--data-dir", fresh + "/data"])
            }.map { $0.wait() }
            for run in runs { #expect(run.status == 0, "trial \(trial): \(run.stderr)") }
        }
    }
}
