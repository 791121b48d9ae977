import Foundation
import Testing
import StoreModels
import StorePostgres
import StoreSandbox

/// The shop on PostgreSQL in a real terminal, with the real server stopped and started under it.
@Suite("PostgreSQL end to end", .serialized)
struct PostgresEndToEndTests {
    @Test func aSessionKeepsItsCartWhileTheServerIsDownAndGoesOnWhenItIsBack() throws {
        let server = try PostgresServer()
        let url = try server.createShop()

        let terminal = try TmuxTerminal(environment: ["STOREFRONT_DATABASE_URL": url])
        try terminal.type("\(try BuiltProduct.requireStorefront()) run; echo EXIT=$?")
        try terminal.waitFor("q quit")
        try terminal.press("a")
        try terminal.waitFor("cart: 1 item")

        try server.kill()
        try terminal.press("a")
        let down = try terminal.waitFor("The store is not reachable; retrying")
        #expect(down.contains("cart: 2 items"), "the cart is kept in memory: \(down)")
        try terminal.press("Down")
        #expect(try terminal.screen().contains("The store is not reachable; retrying"), "still said after another key")

        try server.start()
        try terminal.waitFor("The store is back.", timeout: .seconds(30))
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        let saved = try Subprocess.run("/usr/bin/env", ["psql", url, "-At", "-c", "SELECT quantity FROM cart_line"])
        #expect(saved.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "the cart reached the database once it was back: \(saved.stdout) \(saved.stderr)")
    }
}

/// `storefront serve` on PostgreSQL with the real server stopped and started under it, the real OpenSSH client in front.
@Suite("Serving through a database outage", .serialized)
struct ServeThroughOutageTests {
    @Test func serveKeepsAcceptingWhileTheDatabaseIsDownAndEverySessionGoesOnWhenItIsBack() throws {
        let server = try PostgresServer()
        let url = try server.createShop()
        let host = try ServeProcess(environment: ["STOREFRONT_DATABASE_URL": url])
        let key = try host.makeClientKey("bob")
        let shopping = try TmuxTerminal()
        try host.connect(shopping, key: key)
        try shopping.press("a")
        try shopping.waitFor("cart: 1 item")

        try server.kill()
        try host.waitForLog(#/database down: the store's database .* is not reachable .*; still accepting shoppers/#)
        try shopping.press("a")
        let down = try shopping.waitFor("The store is not reachable; retrying")
        #expect(down.contains("cart: 2 items"), "the open session keeps its cart: \(down)")
        // A shopper arriving now is let in and told, not turned away.
        let arriving = try TmuxTerminal()
        try arriving.type(host.sshCommand(key: try host.makeClientKey("carol")) + "; echo EXIT=$?")
        try arriving.waitFor("The store is not reachable; retrying every 2 s (Ctrl-C leaves)")

        let mark = host.log.count
        try server.start()
        try host.waitForLog(#/database back: postgres:\/\/storefront@127\.0\.0\.1:\d+\/shop_\w+\?sslmode=disable answers again/#, after: mark)
        try arriving.waitFor("q quit", timeout: .seconds(30))
        try shopping.waitFor("The store is back.", timeout: .seconds(30))
        try shopping.press("q")
        try shopping.waitFor("EXIT=0")
        try arriving.press("q")
        try arriving.waitFor("EXIT=0")
        #expect(!host.log.contains("storefront-test"), "the password is not in serve's log")
    }
}

/// Three `storefront serve` front ends on three ports, one PostgreSQL behind them, the real OpenSSH client in front.
@Suite("Several front ends on one PostgreSQL", .serialized)
struct ManyFrontEndsTests {
    @Test func aKeysCartWalletAndOrdersFollowItFromHostToHost() throws {
        let fixture = try PostgresFixture()
        _ = try fixture.importing(try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"))
        // The URL (with its password) reaches serve through the environment, as an operator would pass it.
        let hosts = try (0..<3).map { _ in try ServeProcess(environment: ["STOREFRONT_DATABASE_URL": fixture.url]) }
        for host in hosts {
            try host.waitForLog(#/store: postgres:\/\/storefront@127\.0\.0\.1:\d+\/shop_\w+\?sslmode=disable/#)
            #expect(!host.log.contains("storefront-test"), "the password is not in serve's log")
        }
        let key = try hosts[0].makeClientKey("alice")

        let first = try TmuxTerminal()
        try hosts[0].connect(first, key: key)
        try first.press("a")
        try first.waitFor("cart: 1 item")
        try first.press("q")
        try first.waitFor("EXIT=0")

        let second = try TmuxTerminal()
        try hosts[1].connect(second, key: key)
        try second.waitFor("cart: 1 item")
        try second.press("u")
        try second.waitFor("No cards yet")
        try second.press("n")
        try second.waitFor("Add a card")
        try second.fill(["4242424242424242", "12/30", "123", "Alice Shopper", "95014"])
        try second.waitFor("Saved Visa ••4242")
        try second.press("d")
        try second.waitFor("Add an address")
        try second.fill(["Alice Shopper", "1 Loop Road", "Cupertino", "95014", "", "alice@example.com", ""])
        try second.waitFor("One-Tap ready")
        try second.press("c")
        try second.waitFor("Your cart")
        try second.press("Enter", "p", "Enter")
        let thanks = try second.waitFor("Thank you")
        let number = try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1)
        try second.press("q")
        try second.waitFor("EXIT=0")

        let third = try TmuxTerminal()
        try hosts[2].connect(third, key: key)
        #expect(try third.screen().contains("cart: empty"), "the cart was paid on another host")
        try third.press("o")
        try third.waitFor(String(number))
        try third.press("u")
        try third.waitFor("Visa ••4242")
        try third.press("q")
        try third.waitFor("EXIT=0")
    }
}
