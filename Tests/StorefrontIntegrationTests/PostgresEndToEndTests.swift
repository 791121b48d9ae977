import Foundation
import ShopBundledCatalog
import ShopModels
import ShopSandbox
import StoragePostgres
import Testing

/// The shop on PostgreSQL in a real terminal, with the real server stopped and started under it.
@Suite("PostgreSQL end to end", .serialized, .ownThreads)
struct PostgresEndToEndTests {
    @Test func aSessionKeepsItsCartWhileTheServerIsDownAndGoesOnWhenItIsBack() async throws {
        let server = try PostgresServer()
        let url = try await server.createShop()

        let terminal = try TmuxTerminal(environment: ["STOREFRONT_DATABASE_URL": url])
        try terminal.type("\(try BuiltProduct.requireStorefront()) run; echo EXIT=$?")
        try terminal.waitForShop()
        try terminal.press("a")
        try terminal.waitFor("cart: 1 item")

        try server.kill()
        try terminal.press("a")
        // The key's frame first: the notice can come before it, from a read that found the server gone.
        try terminal.waitFor("cart: 2 items")
        let down = try terminal.waitFor("The database is not reachable; retrying")
        #expect(down.contains("cart: 2 items"), "the cart is kept in memory: \(down)")
        try terminal.press("Down")
        #expect(try terminal.screen().contains("The database is not reachable; retrying"), "still said after another key")

        try server.start()
        try terminal.waitFor("The database is back.", timeout: .seconds(30))
        try terminal.press("q")
        try terminal.waitForExit()
        let saved = try Subprocess.run("/usr/bin/env", ["psql", url, "-At", "-c", "SELECT quantity FROM cart_line"])
        #expect(
            saved.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "2",
            "the cart reached the database once it was back: \(saved.stdout) \(saved.stderr)")
    }
}

/// `storefront serve` on PostgreSQL with the real server stopped and started under it, the real OpenSSH client in front.
@Suite("Serving through a database outage", .serialized, .ownThreads)
struct ServeThroughOutageTests {
    @Test func serveKeepsAcceptingWhileTheDatabaseIsDownAndEverySessionGoesOnWhenItIsBack() async throws {
        let server = try PostgresServer()
        let url = try await server.createShop()
        let host = try ServeProcess(environment: ["STOREFRONT_DATABASE_URL": url])
        let key = try host.makeClientKey("bob")
        let shopping = try TmuxTerminal()
        try host.connect(shopping, key: key)
        try shopping.press("a")
        try shopping.waitFor("cart: 1 item")

        try server.kill()
        try host.waitForLog(#/database down: the shop's database .* is not reachable .*; still accepting shoppers/#)
        try shopping.press("a")
        // The key's frame first: the notice can come before it, from a read that found the server gone.
        try shopping.waitFor("cart: 2 items")
        let down = try shopping.waitFor("The database is not reachable; retrying")
        #expect(down.contains("cart: 2 items"), "the open session keeps its cart: \(down)")
        // A shopper arriving now is let in and told, not turned away.
        let arriving = try TmuxTerminal()
        try arriving.type(host.sshCommand(key: try host.makeClientKey("carol")) + "; echo EXIT=$?")
        try arriving.waitFor("The database is not reachable; retrying every 2 s (Ctrl-C leaves)")

        let mark = host.log.count
        try server.start()
        try host.waitForLog(#/database back: postgres:\/\/storefront@127\.0\.0\.1:\d+\/shop_\w+\?sslmode=disable answers again/#, after: mark)
        try arriving.waitFor("q quit", timeout: .seconds(30))
        try shopping.waitFor("The database is back.", timeout: .seconds(30))
        // Quitting waits for the cart's last write, and a session winds down reads still racing their deadline: each
        // is bounded by the call timeout (connect_timeout + 5 s), which a server just restarted may use up.
        try host.leave(shopping, timeout: .seconds(45))
        try host.leave(arriving, timeout: .seconds(45))
        #expect(!host.log.contains("storefront-test"), "the password is not in serve's log")
    }
}

/// Three `storefront serve` front ends on three ports, one PostgreSQL behind them, the real OpenSSH client in front.
@Suite("Several front ends on one PostgreSQL", .serialized, .ownThreads)
struct ManyFrontEndsTests {
    @Test func aKeysCartWalletAndOrdersFollowItFromHostToHost() async throws {
        let fixture = try await PostgresFixture()
        _ = try await fixture.importing(try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"))
        // The URL (with its password) reaches serve through the environment, as an operator would pass it.
        // The test cards are off, so the wallet that follows the key holds only the card it adds.
        let hosts = try (0..<3).map { _ in
            try ServeProcess(environment: ["STOREFRONT_DATABASE_URL": fixture.url, "STOREFRONT_SANDBOX_TEST_CARDS": "off"])
        }
        for host in hosts {
            try host.waitForLog(#/storage: postgres:\/\/storefront@127\.0\.0\.1:\d+\/shop_\w+\?sslmode=disable/#)
            #expect(!host.log.contains("storefront-test"), "the password is not in serve's log")
        }
        let key = try hosts[0].makeClientKey("alice")

        let first = try TmuxTerminal()
        try hosts[0].connect(first, key: key)
        try first.press("a")
        try first.waitFor("cart: 1 item")
        try hosts[0].leave(first)

        let second = try TmuxTerminal()
        try hosts[1].connect(second, key: key)
        try second.waitFor("cart: 1 item")
        try second.addCardAndAddress(name: "Alice Shopper")
        try second.press("c")
        try second.waitFor("Your cart")
        try second.press("Enter", "p", "Enter")
        let thanks = try second.waitFor("Thank you")
        let number = try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1)
        try hosts[1].leave(second)

        let third = try TmuxTerminal()
        try hosts[2].connect(third, key: key)
        try third.press("o")
        try third.waitFor(String(number))
        try third.press("u")
        try third.waitFor("Visa ••4242")
        // Read after the orders and the wallet came from the database, not on the first frame, which shows an empty
        // cart before the key's cart is read.
        #expect(try third.screen().contains("cart: empty"), "the cart was paid on another host")
        try hosts[2].leave(third)
    }

    @Test func twoKeysBuyingTheLastUnitOnTwoHostsAtOnceOneWinsOneReadsSoldOut() async throws {
        let fixture = try await PostgresFixture()
        _ = try await fixture.importing(try PostgresRaceTests.oneProduct(stock: 1))
        let hosts = try (0..<2).map { _ in try ServeProcess(environment: ["STOREFRONT_DATABASE_URL": fixture.url]) }
        let terminals = try hosts.enumerated().map { index, host in
            let terminal = try TmuxTerminal()
            try host.connect(terminal, key: try host.makeClientKey("buyer\(index)"))
            // Each new key pays with the sandbox test card its wallet starts with.
            try terminal.press("a")
            try terminal.waitFor("cart: 1 item")
            try terminal.press("c")
            try terminal.waitFor("Your cart")
            try terminal.press("Enter", "p")
            try terminal.waitFor("Enter to confirm")
            return terminal
        }
        // Both confirm before either outcome is known.
        for terminal in terminals { try terminal.press("Enter") }
        let outcomes = try terminals.map { terminal in
            try terminal.waitUntil(timeout: .seconds(30), "an outcome") { $0.contains("Thank you") || $0.contains("just sold out") }
        }
        #expect(outcomes.filter { $0.contains("Thank you") }.count == 1, "one buyer wins: \(outcomes)")
        #expect(outcomes.filter { $0.contains("Sorry, Last Units just sold out. You were not charged") }.count == 1, "the other is told: \(outcomes)")
        let stock = try fixture.stock("last-units")
        #expect(
            stock.sold == 1 && stock.onHand == 0 && stock.reserved == 0, "sold \(stock.sold), on hand \(stock.onHand), reserved \(stock.reserved)")
        #expect(try fixture.rows("SELECT outcome FROM sandbox_charge") == ["succeeded"], "one charge, the winner's")
    }

    @Test func aFrontEndKilledMidPurchaseLosesNoPaidOrderAndChargesOnce() async throws {
        let fixture = try await PostgresFixture()
        _ = try await fixture.importing(try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"))
        // Its sessions die by SIGKILL the moment the card is charged, before the order is marked paid.
        let doomed = try ServeProcess(environment: ["STOREFRONT_DATABASE_URL": fixture.url, "STOREFRONT_FAULT": "kill-after-charging"])
        // The other settles an order left open by a dead front end as soon as a session starts.
        let survivor = try ServeProcess(environment: ["STOREFRONT_DATABASE_URL": fixture.url, "STOREFRONT_SETTLE_AFTER_SECONDS": "0"])
        let key = try doomed.makeClientKey("dana")

        let first = try TmuxTerminal()
        try doomed.connect(first, key: key)
        try first.press("a")
        try first.waitFor("cart: 1 item")
        try first.press("c")
        try first.waitFor("Your cart")
        try first.press("Enter", "p", "Enter")
        try doomed.waitForLog(#/session 1 closed: crashed/#)
        // Then the rest of that front end goes the same way, as in a power cut.
        kill(doomed.pid, SIGKILL)
        try first.waitFor("EXIT=")
        #expect(try fixture.rows("SELECT status FROM orders") == ["charging"], "the order was left charging")

        let second = try TmuxTerminal()
        try survivor.connect(second, key: key)
        try second.press("o")
        let orders = try second.waitFor("SF-000001")
        #expect(orders.contains("Paid"), "the charged order is paid, on the other host: \(orders)")
        #expect(try fixture.rows("SELECT status FROM orders") == ["paid"])
        #expect(try fixture.rows("SELECT outcome FROM sandbox_charge") == ["succeeded"], "charged once")
        let stock = try fixture.stock("keycap-dusk")
        #expect(stock.sold == 1 && stock.reserved == 0 && stock.onHand + stock.sold == 12, "stock adds up: \(stock)")
        try survivor.leave(second)
    }
}
