import Foundation
import ShopApplication
import ShopBootstrap
import ShopModels
import ShopPorts
import ShopSandbox
import StorageSQLite
import StorefrontTesting
import SystemPackage
import Testing

/// `storefront backup` and `restore` on a SQLite shop: a backup taken while twenty purchases run restores to a shop
/// with every order committed before it began, each whole; a restore over a shop that a process has open is refused
/// and changes nothing; the commands' words and exits.
@Suite("Backup and restore", .ownThreads)
struct BackupTests {
    static let buyer = "acct_buyer"

    /// One purchase of a stdout Mug for the buyer, under its own key, through the shop's own `PlaceOrder`.
    static func purchase(_ storage: ShopStorage, key: String) async -> Bool {
        let processor = SandboxProcessor(ledger: storage.ledger)
        let placing = PlaceOrder(
            provider: SandboxPaymentProvider(processor: processor),
            backend: LiveMerchantBackend(processor: processor, orders: storage.orders, dates: .system))
        guard let mug = try? await storage.catalog.product(id: "mug-stdout"),
            let draft = try? PlaceOrder.draft(
                lines: [CartLine(product: mug, variant: nil, quantity: 1)], shippingMethodID: "standard", contact: Fixtures.jane, customerID: buyer,
                shop: storage.catalog.shop)
        else { return false }
        let card = SandboxCard.all[0].paymentMethod
        let payment = Payment(
            method: card, methodData: SandboxProcessor.paymentData(for: card), shippingContact: draft.shippingContact,
            shippingMethod: draft.shippingMethod, transactionIdentifier: key)
        let (step, _) = await placing.charge(draft, paying: payment, key: key, token: nil)
        if case .paid = step { return true }
        return false
    }

    func paidOrders(_ storage: ShopStorage) async throws -> [Order] {
        try await storage.orders.orders(customer: Self.buyer, offset: 0, limit: 100).filter { $0.status == .paid }
    }

    /// The live shop in `live` selling twenty mugs while `copy` is backed up from it after the fifth: the orders
    /// committed when the backup began, and what it holds. A restore over the shop while it is open is refused and
    /// changes nothing. The shop is closed on return.
    func sellWhileBackingUp(live: String, copy: String) async throws -> (committed: [String], summary: SQLiteBackupSummary) {
        let storage = try await ShopStorage.openShop(
            at: .sqlite(directory: FilePath(live)), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        _ = try await storage.stock.setStock(of: "mug-stdout", onHand: 1_000)
        let (finished, finishing) = AsyncStream<Bool>.makeStream()
        let backedUp: (committed: [String], summary: SQLiteBackupSummary) = try await withThrowingTaskGroup(
            of: (committed: [String], summary: SQLiteBackupSummary)?.self
        ) { group in
            for index in 0..<20 {
                group.addTask {
                    finishing.yield(await Self.purchase(storage, key: "backup-\(index)"))
                    return nil
                }
            }
            group.addTask {
                // Five purchases done, the rest under way: what is committed now must be in the copy.
                var done = 0
                for await _ in finished {
                    done += 1
                    if done == 5 { break }
                }
                let committed = try await paidOrders(storage).map(\.number)
                let summary = try ShopBackups.backup(.sqlite(directory: FilePath(live)), to: FilePath(copy))
                return (committed, summary)
            }
            var result: (committed: [String], summary: SQLiteBackupSummary)?
            for try await answer in group { if let answer { result = answer } }
            finishing.finish()
            return try #require(result)
        }
        #expect(backedUp.committed.count >= 5)
        #expect(try await paidOrders(storage).count == 20, "every purchase went through")
        #expect {
            try ShopBackups.restore(.sqlite(directory: FilePath(live)), from: FilePath(copy))
        } throws: { ($0 as? StorageOpenFailure)?.kind == .busy }
        #expect(try await paidOrders(storage).count == 20, "the refused restore changed nothing")
        return backedUp
    }

    @Test func aBackupTakenDuringTwentyPurchasesRestoresEveryCommittedOrder() async throws {
        let (live, elsewhere, backups) = (TemporaryDirectory.make().path, TemporaryDirectory.make().path, TemporaryDirectory.make().path)
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        let copy = backups + "/shop.backup"
        let backedUp = try await sellWhileBackingUp(live: live, copy: copy)
        #expect(backedUp.summary.orders >= backedUp.committed.count && backedUp.summary.products == 24)

        // Restored elsewhere, the copy is a shop with every order committed before the backup began, each whole.
        let restored = try ShopBackups.restore(.sqlite(directory: FilePath(elsewhere)), from: FilePath(copy))
        #expect(restored == backedUp.summary)
        let reopened = try await ShopStorage.openShop(
            at: .sqlite(directory: FilePath(elsewhere)), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        let orders = try await paidOrders(reopened)
        #expect(Set(backedUp.committed).isSubset(of: Set(orders.map(\.number))))
        // Those still being charged at that moment are in it too, open, as after a crash: the shop's start settles them.
        let all = try await reopened.orders.orders(customer: Self.buyer, offset: 0, limit: 100)
        #expect(all.count == backedUp.summary.orders && all.allSatisfy { $0.lines.count == 1 && $0.totals.total.minorUnits > 0 })

        // The live shop stopped, it takes the backup's orders.
        _ = try ShopBackups.restore(.sqlite(directory: FilePath(live)), from: FilePath(copy))
        let back = try await ShopStorage.openShop(
            at: .sqlite(directory: FilePath(live)), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        #expect(try await paidOrders(back).count == orders.count)
    }

    @Test func theCommandsSayWhatTheyDidAndRefuseWhatTheyCannot() throws {
        let data = TemporaryDirectory.make().path
        let target = TemporaryDirectory.make().path
        func storefront(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let run = try Subprocess.run(try BuiltProduct.requireStorefront(), arguments + ["--data-dir", data])
            return (run.status, run.stdout, run.stderr)
        }
        #expect(try storefront(["backup", target + "/none.backup"]).status == 66, "no shop yet")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try #require(try storefront(["headless", "--keys", "enter,a,c,enter,p,enter,q"]).status == 0)
        let made = try storefront(["backup", target + "/shop.backup"])
        #expect(made.status == 0 && made.stdout.contains("1 orders, 24 products") && made.stdout.contains("checked (integrity ok"), "\(made)")
        let again = try storefront(["backup", target + "/shop.backup"])
        #expect(again.status == 73 && again.stderr.contains("exists already"), "\(again)")
        #expect(try storefront(["restore", target + "/missing.backup"]).status == 66)
        let junk = target + "/junk.backup"
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: junk))
        #expect(try storefront(["restore", junk]).status == 65)
        let restored = try storefront(["restore", target + "/shop.backup"])
        #expect(restored.status == 0 && restored.stdout.contains("1 orders"), "\(restored)")
        let postgres = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["backup", target + "/pg.backup", "--database", "postgres://nobody@127.0.0.1:1/none"])
        #expect(postgres.status == 64 && postgres.stderr.contains("pg_dump"), "\(postgres.stderr)")
    }
}

/// A PostgreSQL shop is backed up with PostgreSQL's tools (docs/operations.md): a `pg_dump` taken while it runs
/// restores with `pg_restore` into an empty database that opens as the same shop, its orders whole.
@Suite("PostgreSQL dump and restore", .ownThreads)
struct PostgresDumpTests {
    @Test func aDumpRestoresIntoAShopThatOpensWithItsOrders() async throws {
        let server = try PostgresServer.shared.get()
        let url = try await server.createShop()
        let place = StoragePlace.postgres(try #require(URL(string: url)))
        let storage = try await ShopStorage.openShop(at: place, catalog: .bundled, pool: .session, migrate: true, environment: [:])
        _ = try await storage.stock.setStock(of: "mug-stdout", onHand: 100)
        for index in 0..<3 { #expect(await BackupTests.purchase(storage, key: "dump-\(index)")) }
        let dump = TemporaryDirectory.make().path
        let dumped = try Subprocess.run(
            "/usr/bin/pg_dump", ["--format=custom", "--no-owner", "--file", dump, "--dbname", url], timeout: .seconds(120))
        #expect(dumped.status == 0, "pg_dump (Debian postgresql-client): \(dumped.stderr)")
        storage.close()

        let target = try server.createDatabase()
        let restored = try Subprocess.run("/usr/bin/pg_restore", ["--no-owner", "--exit-on-error", "--dbname", target, dump], timeout: .seconds(120))
        #expect(restored.status == 0, "pg_restore: \(restored.stderr)")
        let reopened = try await ShopStorage.openShop(
            at: .postgres(try #require(URL(string: target))), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        let orders = try await reopened.orders.orders(customer: BackupTests.buyer, offset: 0, limit: 10)
        #expect(orders.count == 3 && orders.allSatisfy { $0.status == .paid && $0.lines.count == 1 })
        #expect(try await reopened.catalog.product(id: "mug-stdout")?.name == "stdout Mug")
        reopened.close()
    }
}
