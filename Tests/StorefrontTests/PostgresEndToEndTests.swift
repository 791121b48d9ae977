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
        let url = try server.createDatabase()
        let store = try PostgresStore.connect(try PostgresLocation.parse(url, environment: [:]), pool: .command)
        try store.migrate()
        _ = try PostgresCatalogRepository.importCatalog(try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"), contentHash: "bundled", into: store)
        store.close()

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
