import Foundation
import ShopBundledCatalog
import ShopModels
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageRows
import StorefrontTesting
import Testing

@Suite("PostgreSQL commands", .ownThreads)
struct PostgresCommandTests {
    let environment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        for name in ["STOREFRONT_DATABASE_URL", "STOREFRONT_CATALOG", "PGPASSFILE"] { environment[name] = nil }
        environment["XDG_DATA_HOME"] = TemporaryDirectory.make().path
        environment["HOME"] = TemporaryDirectory.make().path
        return environment
    }()

    func storefront(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Subprocess {
        try Subprocess.run(try BuiltProduct.requireStorefront(), arguments, environment: environment.merging(extra) { $1 })
    }

    /// Through PgBouncer too, in transaction mode, as the README's deployment for many front ends has it.
    @Test(arguments: [false, true])
    func migrateThenImportThenBuyAndListTheOrder(throughPgBouncer: Bool) throws {
        let direct = try PostgresServer.freshDatabase()
        let url = throughPgBouncer ? try PostgresServer.shared.get().throughPgBouncer(direct) : direct
        let first = try storefront(["db", "migrate", "--database", url])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("applied v1-shop"))
        #expect(!first.stdout.contains("storefront-test"), "the password is never printed")
        #expect(try storefront(["db", "migrate", "--database", url]).stdout.contains("the schema is up to date"))

        let noCatalog = try storefront(["headless", "--database", url, "--keys", "q"])
        #expect(noCatalog.status == 66)
        #expect(noCatalog.stderr.contains("has no catalog yet; import one with `storefront catalog import FILE --database URL`"))

        let catalogFile = try Self.bundledCatalogFile()
        let imported = try storefront(["catalog", "import", catalogFile, "--database", url])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 24 products into postgres://storefront@127.0.0.1:"))
        #expect(imported.stdout.contains(": 24 new, 0 no longer listed"))
        #expect(try storefront(["catalog", "import", catalogFile, "--database", url]).stdout.contains("already holds this catalog"))

        let bought = try storefront(["headless", "--keys", "enter,a,c,enter,p,enter"], environment: ["STOREFRONT_DATABASE_URL": url])
        #expect(bought.status == 0, "\(bought.stderr)")
        #expect(bought.stdout.contains("Thank you"))
        let listed = try storefront(["orders", "--database", url, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("\"number\" : \"SF-000001\""))
        #expect(listed.stdout.contains("\"status\" : \"paid\""))
    }

    @Test func reimportingKeepsWhatWasSoldAndTakesNewPrices() async throws {
        let fixture = try await PostgresFixture()
        let catalog = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        let repository = try await fixture.importing(catalog)
        let orders = SQLOrderRepository(database: fixture.database, currency: .usd)
        let order = try await orders.begin(
            Drafts.draft("hoodie-root", name: "root Hoodie", quantity: 2), idempotencyKey: "k", tokenID: "t", paymentDescription: "Visa",
            placedAt: Date())
        try await orders.finish(orderNumber: order.number, status: .paid, failure: nil)
        var changed = catalog
        changed.products[0].price = Money(minorUnits: 12_345, currency: .usd)
        changed.products.removeLast()
        let summary = try await PostgresCatalogImport.importCatalog(changed, contentHash: "changed", into: fixture.database)
        #expect(summary == .init(products: 23, added: 0, retired: 1, changed: true))
        let reopened = try await PostgresCatalogImport.open(database: fixture.database)
        #expect(try await reopened.count(matching: "") == 23)
        #expect(try await reopened.product(id: changed.products[0].id)?.price.minorUnits == 12_345)
        #expect(try await reopened.product(id: catalog.products.last!.id) == nil, "a product no longer listed leaves the catalog")
        #expect(try fixture.stock("hoodie-root") == (1, 0, 2), "stock is kept across imports")
        #expect(try await repository.product(id: "hoodie-root")?.stock == 1)
        #expect(try await orders.order(number: order.number)?.lines.first?.productID == "hoodie-root", "old orders keep their lines")
    }

    /// `catalog export` writes what the shop sells now, variants and stock on hand included, as a file that imports back
    /// to the same catalog: from SQLite into PostgreSQL, and out of PostgreSQL again.
    @Test func anExportedCatalogImportsBackToTheSameCatalog() throws {
        let data = TemporaryDirectory.make().path
        let bought = try storefront(["headless", "--data-dir", data, "--keys", "j,j,j,j,j,j,j,j,j,enter,right,a,c,enter,p,enter"])
        #expect(bought.status == 0, "\(bought.stderr)")
        let fromSQLite = TemporaryDirectory.make().path + ".json"
        let exported = try storefront(["catalog", "export", fromSQLite, "--data-dir", data])
        #expect(exported.status == 0, "\(exported.stderr)")
        let first = try CatalogLoader.load(contentsOf: URL(fileURLWithPath: fromSQLite))
        let bundled = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        #expect(first.shop == bundled.shop)
        #expect(first.products.map(\.id) == bundled.products.map(\.id))
        let coffee = try #require(first.products.first { $0.id == "coffee-beans" })
        #expect(coffee.variants.first { $0.sku == "coffee-beans-filter-250g" }?.stock == 2, "the stock on hand: one was bought")
        #expect(coffee.options == bundled.products.first { $0.id == "coffee-beans" }?.options)

        let url = try PostgresServer.freshDatabase()
        #expect(try storefront(["catalog", "import", fromSQLite, "--database", url]).status == 0)
        let fromPostgres = try storefront(["catalog", "export", "-", "--database", url])
        #expect(fromPostgres.status == 0, "\(fromPostgres.stderr)")
        let second = try CatalogLoader.load(data: Data(fromPostgres.stdout.utf8), source: "stdout")
        #expect(second.shop == first.shop)
        #expect(second.products == first.products, "the same products, options, variants and stock")
        #expect(fromPostgres.stdout == (try String(contentsOfFile: fromSQLite, encoding: .utf8)) + "\n", "byte for byte")

        let unwritable = try storefront(["catalog", "export", "/proc/no-such-dir/catalog.json", "--data-dir", data])
        #expect(unwritable.status == 73, "\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("cannot write /proc/no-such-dir/"), "the pictures are written first, beside it")
    }

    @Test func anInvalidCatalogImportsNothing() throws {
        let url = try PostgresServer.freshDatabase()
        let file = TemporaryDirectory.make().path + ".json"
        try #"{"store": {"name": "X", "currency": "USD"}, "products": [{"id": "a", "name": "A", "price": -1}]}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        let result = try storefront(["catalog", "import", file, "--database", url])
        #expect(result.status == 65)
        #expect(try storefront(["headless", "--database", url, "--keys", "q"]).status == 66, "still no catalog")
        #expect(try storefront(["catalog", "import", file + ".missing", "--database", url]).status == 66)
    }

    @Test func aSchemaFromANewerStorefrontIsRefused() throws {
        let url = try PostgresServer.freshDatabase()
        #expect(try storefront(["db", "migrate", "--database", url]).status == 0)
        let psql = try Subprocess.run(
            "/usr/bin/env", ["psql", url, "-c", "INSERT INTO storefront_migrations (identifier) VALUES ('v99-from-the-future')"])
        #expect(psql.status == 0, "\(psql.stderr)")
        for arguments in [["db", "migrate", "--database", url], ["headless", "--database", url, "--keys", "q"], ["orders", "--database", url]] {
            let result = try storefront(arguments)
            #expect(result.status == 74, "\(arguments)")
            #expect(result.stderr.contains("was written by a newer storefront (schema steps v99-from-the-future are unknown to this version)"))
        }
    }

    @Test func anUnmigratedDatabaseIsRefusedWithNoMigrate() throws {
        let url = try PostgresServer.freshDatabase()
        let result = try storefront(["headless", "--database", url, "--no-migrate", "--keys", "q"])
        #expect(result.status == 74)
        // Every step is missing, the first one named first; the list grows with each new step.
        #expect(result.stderr.contains("lacks schema steps v1-shop, "), "\(result.stderr)")
        #expect(result.stderr.contains("; run `storefront db migrate --database URL` first"))
    }

    @Test func aWrongPasswordIsRefusedWithoutRepeatingEitherPassword() throws {
        let url = try PostgresServer.freshDatabase().replacingOccurrences(of: "storefront-test@", with: "not-the-password@")
        let result = try storefront(["db", "migrate", "--database", url])
        #expect(result.status == 78)
        #expect(result.stderr.contains("refused the login"))
        #expect(!result.stderr.contains("not-the-password") && !result.stderr.contains("storefront-test"))
    }

    @Test func thePasswordCanComeFromPGPASSFILEButNotFromAFileOthersRead() throws {
        let url = try PostgresServer.freshDatabase()
        let withoutPassword = url.replacingOccurrences(of: ":storefront-test@", with: "@")
        let file = TemporaryDirectory.make().path
        try "127.0.0.1:*:*:storefront:storefront-test\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        #expect(try storefront(["db", "migrate", "--database", withoutPassword], environment: ["PGPASSFILE": file]).status == 0)
        chmod(file, 0o640)
        let refused = try storefront(["db", "migrate", "--database", withoutPassword], environment: ["PGPASSFILE": file])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("cannot use the password file \(file): others can read it (mode 640); chmod 600 it"))
    }

    @Test func aServerThatDoesNotAnswerIsUnavailableNotACrash() throws {
        let server = try PostgresServer()
        let url = try server.createDatabase()
        try server.kill()
        let result = try storefront(["db", "migrate", "--database", url])
        #expect(result.status == 69)
        #expect(result.stderr.contains("is not reachable"))
        #expect(!result.stderr.contains("storefront-test"))
    }

    @Test func aCatalogFileBesideADatabaseIsRefused() throws {
        let url = try PostgresServer.freshDatabase()
        let result = try storefront(["headless", "--database", url, "--catalog", try Self.bundledCatalogFile(), "--keys", "q"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("the catalog comes from the database"))
    }

    static func bundledCatalogFile() throws -> String {
        let folder = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appending(path: "catalog.json").path
        try BundledCatalog.json.write(toFile: file, atomically: true, encoding: .utf8)
        try Fixtures.writeBundledPictures(besideCatalogIn: folder)
        return file
    }
}

@Suite("PostgreSQL going away", .ownThreads)
struct PostgresOutageTests {
    @Test func aStoppedServerFailsCallsAsUnavailableAndTheStoreRecoversWhenItIsBack() async throws {
        let server = try PostgresServer()
        let url = try server.createDatabase()
        // Every call while the server is down tries it again: the test decides when it is back.
        let pool = PostgresDatabase.Pool(maximumConnections: 1, idleTimeout: .seconds(60), probeInterval: .zero)
        let database = try PostgresDatabase.connect(try PostgresLocation.parse(url, environment: [:]), pool: pool)
        try await database.migrate()
        let carts = SQLCartRepository(database: database)
        let mug = CartLine(productID: "mug-stdout", name: "stdout Mug", unitPrice: Money(minorUnits: 1_800, currency: .usd), quantity: 2)
        try await carts.save([mug], forCustomer: "local:jane")
        #expect(try await carts.lines(forCustomer: "local:jane") == [mug], "the pool holds an open connection now")

        try server.kill()
        await #expect {
            try await carts.lines(forCustomer: "local:jane")
        } throws: { error in
            (error as? StorageError) == StorageError(StorageError.unavailableMessage, isUnavailable: true)
        }
        #expect(database.isDown)
        await #expect(throws: StorageError.self) { try await carts.save([], forCustomer: "local:jane") }

        try server.start()
        #expect(try await carts.lines(forCustomer: "local:jane") == [mug], "the database goes on without a restart, and nothing was lost")
        #expect(!database.isDown)
    }

    @Test func aServerWithNoFreeConnectionIsWaitedForLikeAnOutageNotShownAsAnError() async throws {
        let fixture = try await PostgresFixture()
        // A role allowed two connections, both held by psql: a third gets SQLSTATE 53300, as every
        // client does once max_connections is reached.
        let role = "limited_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try fixture.rows("CREATE ROLE \(role) LOGIN PASSWORD 'limited' CONNECTION LIMIT 2; GRANT ALL ON ALL TABLES IN SCHEMA public TO \(role)")
        let limitedURL = fixture.url.replacingOccurrences(of: "storefront:storefront-test@", with: "\(role):limited@")
        let holders = try (0..<2).map { _ in
            try Subprocess.start("/usr/bin/env", ["psql", limitedURL + "&application_name=holder", "-c", "SELECT pg_sleep(60)"])
        }
        defer {
            for holder in holders {
                kill(holder.pid, SIGKILL)
                _ = holder.wait()
            }
        }
        let held = "usename = '\(role)' AND application_name = 'holder'"
        try #require(try fixture.waitForConnections(held, count: 2), "psql holds both of the role's connections")

        let pool = PostgresDatabase.Pool(maximumConnections: 1, idleTimeout: .seconds(60), probeInterval: .zero)
        let database = try PostgresDatabase.connect(try PostgresLocation.parse(limitedURL, environment: [:]), pool: pool)
        let carts = SQLCartRepository(database: database)
        await #expect {
            try await carts.lines(forCustomer: "local:jane")
        } throws: { error in
            (error as? StorageError) == StorageError(StorageError.unavailableMessage, isUnavailable: true)
        }
        #expect(database.isDown)
        await #expect(throws: PostgresDatabaseError.self) { try await database.ping() }

        // The server only notices a killed client when it next writes to it: end the backends too.
        for holder in holders { kill(holder.pid, SIGKILL) }
        _ = try fixture.rows("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE \(held)")
        try #require(try fixture.waitForConnections(held, count: 0), "the held connections are gone")
        // The server may still count a terminated backend for a moment after pg_stat_activity drops it, so the
        // first call can meet the limit once more; the pool must get through within a few calls, never stay down.
        var answer: [CartLine]?
        var last: (any Error)?
        for _ in 0..<50 where answer == nil {
            do { answer = try await carts.lines(forCustomer: "local:jane") } catch { last = error }
        }
        #expect(answer == [], "a connection is free again and the call goes through; the last failure: \(String(describing: last))")
        #expect(!database.isDown)
    }
}
