import Foundation
import ShopModels
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Stock counted and changed by hand: the repository on both databases, and `storefront stock` for scripts.
@Suite("Stock by hand", .ownThreads)
struct StockTests {
    static func stock(_ kind: StockedRepositoryKind) async throws -> (any StockRepository, any StockedOrderRepository) {
        switch kind {
        case .sqlite:
            let fixture = try SQLiteFixture()
            return (SQLStockRepository(database: fixture.database), fixture)
        case .postgres:
            let fixture = try await PostgresStockFixture()
            return (SQLStockRepository(database: fixture.server.database), fixture)
        }
    }

    @Test("set and adjust what is on hand, refusing less than none and unknown products", arguments: StockedRepositoryKind.allCases)
    func setAndAdjust(kind: StockedRepositoryKind) async throws {
        let (stock, fixture) = try await Self.stock(kind)
        let levels = try await stock.stockLevels()
        #expect(levels.count > 5)
        #expect(levels.map(\.onHand) == levels.map(\.onHand).sorted(), "fewest on hand first")
        let mug = ProductID("mug-stdout")
        #expect(try await stock.setStock(of: mug, onHand: 7).onHand == 7)
        #expect(try await stock.adjustStock(of: mug, by: -3).onHand == 4)
        await #expect(throws: StockChangeError.belowZero(mug, onHand: 4, change: -5)) { try await stock.adjustStock(of: mug, by: -5) }
        // A count below zero is named as one, not as a shelf of 0 with some taken away.
        await #expect(throws: StockChangeError.negativeCount(mug, asked: -5)) { try await stock.setStock(of: mug, onHand: -5) }
        await #expect(throws: StockChangeError.unknownProduct(ProductID("no-such"))) { try await stock.adjustStock(of: ProductID("no-such"), by: 1) }
        await #expect(throws: StockChangeError.unknownProduct(ProductID("no-such"))) { try await stock.setStock(of: ProductID("no-such"), onHand: 1) }
        #expect(try fixture.stock("mug-stdout").onHand == 4, "the refused changes wrote nothing")
    }

    @Test("adjustments at the same moment all count", arguments: StockedRepositoryKind.allCases)
    func concurrentAdjustments(kind: StockedRepositoryKind) async throws {
        let (stock, fixture) = try await Self.stock(kind)
        let mug = ProductID("mug-stdout")
        _ = try await stock.setStock(of: mug, onHand: 100)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for change in [5, -3, 7, -2, 4, -1, 6, -8] {
                group.addTask { _ = try await stock.adjustStock(of: mug, by: change) }
            }
            try await group.waitForAll()
        }
        #expect(try fixture.stock("mug-stdout").onHand == 108)
    }

    @Test func theStockCommandListsSetsAndAdjusts() throws {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        try #require(try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "q"]).status == 0)
        let set = try Subprocess.run(binary, ["stock", "set", "poster-vt100", "7", "--data-dir", directory])
        #expect(set.status == 0 && set.stdout.contains("poster-vt100  Terminal Poster        7"), "\(set.stdout)\(set.stderr)")
        #expect(try Subprocess.run(binary, ["stock", "adjust", "poster-vt100", "--by=-3", "--data-dir", directory]).status == 0)
        let tooMany = try Subprocess.run(binary, ["stock", "adjust", "poster-vt100", "--by=-5", "--data-dir", directory])
        #expect(tooMany.status == 65 && tooMany.stderr.contains("poster-vt100 has 4 on hand: taking 5 would leave less than none."))
        let unknown = try Subprocess.run(binary, ["stock", "set", "no-such", "1", "--data-dir", directory])
        #expect(unknown.status == 65 && unknown.stderr.contains("There is no product no-such in the catalog."))
        let negative = try Subprocess.run(binary, ["stock", "set", "--data-dir", directory, "poster-vt100", "--", "-1"])
        #expect(negative.status == 65, "a count below zero is a data error, as docs/exit-codes.md says: \(negative.stderr)")
        // Typed bare, "-1" is the same count, not an unknown option or a missing count.
        let bare = try Subprocess.run(binary, ["stock", "set", "poster-vt100", "-1", "--data-dir", directory])
        #expect(bare.status == 65 && bare.stderr == negative.stderr, "\(bare.stderr)")
        let listed = try Subprocess.run(binary, ["stock", "--low", "4", "--json", "--data-dir", directory])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let stock = try #require(document["stock"] as? [[String: Any]])
        #expect(stock.allSatisfy { ($0["onHand"] as? Int ?? 99) <= 4 })
        #expect(stock.contains { $0["productId"] as? String == "poster-vt100" && $0["onHand"] as? Int == 4 })
    }

    @Test("counts beyond a shelf are refused before any sum, and the schema holds them", arguments: StockedRepositoryKind.allCases)
    func countsFromOutsideAreBounded(kind: StockedRepositoryKind) async throws {
        let (stock, fixture) = try await Self.stock(kind)
        let mug = ProductID("mug-stdout")
        let top = StockLevel.maximumOnHand
        await #expect(throws: StockChangeError.aboveMaximum(mug, asked: .max)) { try await stock.setStock(of: mug, onHand: .max) }
        #expect(try await stock.setStock(of: mug, onHand: top).onHand == top)
        await #expect(throws: StockChangeError.aboveMaximum(mug, asked: top + 1)) { try await stock.adjustStock(of: mug, by: 1) }
        await #expect(throws: StockChangeError.aboveMaximum(mug, asked: .max)) { try await stock.adjustStock(of: mug, by: .max) }
        await #expect(throws: StockChangeError.aboveMaximum(mug, asked: .min)) { try await stock.adjustStock(of: mug, by: .min) }
        #expect(try fixture.stock("mug-stdout").onHand == top, "the refused changes wrote nothing")
        #expect(try await stock.stockLevels().contains { $0.productID == mug && $0.onHand == top }, "and every count still reads")
    }

    @Test func sqliteRefusesACountPastWhatPostgreSQLsIntegerHolds() throws {
        let fixture = try SQLiteFixture()
        #expect(throws: (any Error).self) {
            try fixture.database.pool.write {
                try $0.execute(sql: "UPDATE stock SET on_hand = on_hand + 9223372036854775807 WHERE product_id = 'mug-stdout'")
            }
        }
        #expect(throws: (any Error).self) {
            try fixture.database.pool.write { try $0.execute(sql: "UPDATE stock SET on_hand = 2.5 WHERE product_id = 'mug-stdout'") }
        }
        #expect(try fixture.stock("mug-stdout").onHand >= 0, "the count is still an integer that reads")
    }

    @Test func theStockCommandRefusesAHugeCountAndTheShopStillReads() throws {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        try #require(try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "q"]).status == 0)
        let huge = try Subprocess.run(binary, ["stock", "set", "poster-vt100", "9223372036854775807", "--data-dir", directory])
        #expect(huge.status == 65 && huge.stderr.contains("at most 1000000"), "\(huge.stderr)")
        #expect(try Subprocess.run(binary, ["stock", "set", "poster-vt100", "1000000", "--data-dir", directory]).status == 0)
        let top = try Subprocess.run(binary, ["stock", "adjust", "poster-vt100", "--by", "1", "--data-dir", directory])
        #expect(top.status == 65, "\(top.stderr)")
        let refund = try Subprocess.run(
            binary,
            [
                "orders", "refund", "SF-000001", "--line", "poster-vt100:9223372036854775807", "--line", "poster-vt100:9223372036854775807",
                "--reason", "x", "--data-dir", directory,
            ])
        #expect(refund.status == 64 && refund.stderr.contains("--line must be"), "parsed into a bounded range, no trap: \(refund.stderr)")
        #expect(try Subprocess.run(binary, ["stock", "--data-dir", directory]).status == 0)
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "q"]).status == 0, "the shop still opens")
    }
}
