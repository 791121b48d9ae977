import Foundation
import GRDB
import LiveObjects
import ShopApplication
import ShopBundledCatalog
import ShopModels
import ShopSandbox
import StorageRows
import StorefrontTesting
import Testing

/// The real binary killed with SIGKILL at each step of a purchase, then started again.
@Suite("Killed mid-purchase", .ownThreads)
struct FaultTests {
    /// Starting stock per stock row (a product's id, or a variant's SKU), from the bundled catalog.
    static let initialStock: [String: Int] = {
        let catalog = try! CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        return Dictionary(uniqueKeysWithValues: catalog.products.flatMap(StoredVariants.stockKeys(of:)).map { ($0.0.rawValue, $0.1 ?? 0) })
    }()

    @Test("no second charge, no lost paid order, stock adds up", arguments: LiveMerchantBackend.Step.allCases)
    func killedAt(step: LiveMerchantBackend.Step) throws {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_FAULT"] = "kill-\(step.rawValue)"
        let killed = try Subprocess.run(
            binary, ["headless", "--data-dir", directory, "--keys", "enter,a,a,c,enter,p,enter"], environment: environment)
        #expect(killed.status == 128 + 9, "killed by SIGKILL at \(step.rawValue)")

        // Start again; open orders are settled at once (the fault test does not wait two minutes).
        environment["STOREFRONT_FAULT"] = nil
        environment["STOREFRONT_SETTLE_AFTER_SECONDS"] = "0"
        let restarted = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "o"], environment: environment)
        #expect(restarted.status == 0)

        let database = try DatabaseQueue(path: directory + "/storefront.sqlite")
        let (charges, orders, stock) = try database.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT * FROM sandbox_charge"),
                try Row.fetchAll(db, sql: "SELECT number, status FROM orders"),
                try Row.fetchAll(db, sql: "SELECT * FROM stock")
            )
        }
        #expect(charges.count <= 1, "one record per key: never charged twice")
        #expect(orders.count == 1)
        let status: String = orders.first?["status"] ?? ""
        switch step {
        case .afterReserving:
            #expect(charges.allSatisfy { $0["outcome"] as String == "declined:voided" }, "never charged: only the settlement's void is filed")
            #expect(status == "voided", "never charged: the reservation is released")
        case .afterCharging, .afterRecording:
            #expect(charges.count == 1)
            #expect(status == "paid", "a charged order is never lost")
            #expect(restarted.stdout.contains("SF-000001"), "and it is in the shopper's order history")
        }
        for row in stock {
            let id: String = row["product_id"]
            let total = (row["on_hand"] as Int) + (row["reserved"] as Int) + (row["sold"] as Int)
            #expect(total == Self.initialStock[id], "on hand + reserved + sold = initial stock for \(id)")
            #expect(row["reserved"] as Int == 0, "nothing stays reserved for \(id)")
        }
    }
}

/// A buyer whose process is stopped (not killed) while its order is charging, and another start.
@Suite("A stopped buyer and a settling start", .ownThreads)
struct StoppedBuyerTests {
    /// Starts a headless purchase that stops itself (SIGSTOP) right after reserving; returns once it has stopped.
    private func stoppedBuyer(directory: String, output: String) throws -> pid_t {
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_FAULT"] = "stop-after-reserving"
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        let pid = try spawnProcess(
            try BuiltProduct.requireStorefront(), ["headless", "--data-dir", directory, "--keys", "enter,a,c,enter,p,enter"], environment: environment
        ) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        var status: Int32 = 0
        // WUNTRACED: waitpid returns when the child stops, so no timing is involved.
        waitpid(pid, &status, WUNTRACED)
        try #require(status & 0xff == 0x7f, "the buyer stopped itself after reserving")
        return pid
    }

    private func resume(_ pid: pid_t) -> Int32 {
        kill(pid, SIGCONT)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return shellStatus(status)
    }

    private func rows(_ directory: String) throws -> (charges: [Row], orders: [Row], stock: [Row]) {
        let database = try DatabaseQueue(path: directory + "/storefront.sqlite")
        return try database.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT * FROM sandbox_charge"), try Row.fetchAll(db, sql: "SELECT number, status FROM orders"),
                try Row.fetchAll(db, sql: "SELECT * FROM stock")
            )
        }
    }

    @Test func aSettlementAndALateChargeCannotBothWin() throws {
        let directory = TemporaryDirectory.make().path
        let output = TemporaryDirectory.make().path + "-frame"
        let buyer = try stoppedBuyer(directory: directory, output: output)
        // Another start settles at once: the order is open and its process says nothing.
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_SETTLE_AFTER_SECONDS"] = "0"
        #expect(
            try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless", "--data-dir", directory, "--keys", "o"], environment: environment)
                .status == 0)
        #expect(try rows(directory).orders.map { $0["status"] as String } == ["voided"])

        #expect(resume(buyer) == 0)
        let frame = try String(contentsOfFile: output, encoding: .utf8)
        #expect(frame.contains("waited too long and was canceled"), "the buyer is told, not shown a paid order: \(frame)")
        #expect(!frame.contains("Thank you"))
        let (charges, orders, stock) = try rows(directory)
        #expect(charges.map { $0["outcome"] as String } == ["declined:voided"], "no money moved")
        #expect(orders.map { $0["status"] as String } == ["voided"])
        for row in stock {
            let id: String = row["product_id"]
            #expect((row["on_hand"] as Int) + (row["reserved"] as Int) + (row["sold"] as Int) == FaultTests.initialStock[id])
            #expect(row["reserved"] as Int == 0)
        }
    }

    @Test func aStartWithTheDefaultSettleAgeLeavesAYoungOrderToItsBuyer() throws {
        let directory = TemporaryDirectory.make().path
        let output = TemporaryDirectory.make().path + "-frame"
        let buyer = try stoppedBuyer(directory: directory, output: output)
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_SETTLE_AFTER_SECONDS"] = nil
        #expect(
            try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless", "--data-dir", directory, "--keys", "o"], environment: environment)
                .status == 0)
        #expect(try rows(directory).orders.map { $0["status"] as String } == ["charging"], "a moment-old order is not settled")

        #expect(resume(buyer) == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("Thank you"))
        let (charges, orders, _) = try rows(directory)
        #expect(charges.map { $0["outcome"] as String } == ["succeeded"])
        #expect(orders.map { $0["status"] as String } == ["paid"])
    }
}

@Suite("Two processes, one last unit", .ownThreads)
struct TwoProcessTests {
    @Test func exactlyOneBuyerWins() throws {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        let buyHeadphones = "/,h,e,a,d,p,h,o,n,e,s,enter,a,c,enter,p,enter"
        // Two headphones in stock: the first purchase leaves one.
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", buyHeadphones]).stdout.contains("Thank you"))
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            // Two buyers are two customers. One customer in two terminals is held at checkout while their
            // other payment is being checked, and is never told of a sale that was theirs.
            var environment = ProcessInfo.processInfo.environment
            environment[HeadlessScript.fingerprintVariable] = HeadlessScript.newFingerprint()
            // Every frame, so a notice that a later key replaced is still seen.
            let result = try? Subprocess.run(
                binary, ["headless", "--frames", "--data-dir", directory, "--keys", buyHeadphones], environment: environment)
            results.add(result?.stdout ?? "failed to run")
        }
        let outputs = results.all
        #expect(outputs.filter { $0.contains("Thank you") }.count == 1, "exactly one wins:\n\(outputs.joined(separator: "\n---\n"))")
        // The loser is told, either at payment (the other reserved first) or, if the other
        // finished before it even added the item, when adding.
        #expect(
            outputs.filter { $0.contains("Sorry, Quiet Hours Headphones just sold out.") || $0.contains("Quiet Hours Headphones is sold out.") }.count
                == 1,
            "the other is told it sold out:\n\(outputs.joined(separator: "\n---\n"))")
        let database = try DatabaseQueue(path: directory + "/storefront.sqlite")
        let stock = try database.read { db in try Row.fetchOne(db, sql: "SELECT * FROM stock WHERE product_id = 'headphones-quiet'") }
        #expect(stock?["on_hand"] == 0)
        #expect(stock?["sold"] == 2)
    }
}

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    func add(_ value: String) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

extension Results: LiveObject {}
