import Foundation
import GRDB
import ShopCommands
import StorefrontTesting
import Testing

/// What the command line says and returns, with no terminal attached.
@Suite("Command line", .ownThreads)
struct CommandLineTests {
    /// Where the binary may write: never the real home directory.
    let scratch = TemporaryDirectory.make().path

    @Test func pipingIntoTheShopSaysToUseHeadless() throws {
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["--data-dir", scratch], input: "q\n")
        #expect(result.status == 69)
        #expect(result.stderr.contains("storefront needs an interactive terminal; for scripts use `storefront headless`"))
        #expect(result.stdout.isEmpty, "nothing is drawn")
    }

    @Test func dumbTerminalIsRefusedWithAReason() throws {
        // stdin/stdout are pipes here, so the TTY check fires first; TERM handling is checked by the screen tests.
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["--data-dir", scratch], environment: ["TERM": "dumb", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 69)
    }

    @Test func badCatalogIsRejectedBeforeTheScreen() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).json")
        try #"{"products": [{"id": "x", "name": "X", "description": "d", "price": -1}]}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["--catalog", file.path, "--data-dir", scratch])
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"$.products[0].price (product "x"): must not be negative, got -1"#))
        #expect(result.stdout.isEmpty)
    }

    @Test func catalogValidate() throws {
        let binary = try BuiltProduct.requireStorefront()
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../assets/catalog.json")
            .standardizedFileURL.path
        let valid = try Subprocess.run(binary, ["catalog", "validate", assets])
        #expect(valid.status == 0)
        #expect(valid.stdout.contains("valid, 24 products, 25 pictures in USD for Storefront"))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dup-\(UUID()).json")
        try #"[{"id":1,"name":"A","price":1,"description":"d"},{"id":1,"name":"B","price":2.5,"description":"d"}]"#.write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let invalid = try Subprocess.run(binary, ["catalog", "validate", file.path])
        #expect(invalid.status == 65)
        #expect(invalid.stderr.contains("duplicate id"))
        #expect(invalid.stderr.contains("must be a whole number"))

        let missing = try Subprocess.run(binary, ["catalog", "validate", "/nonexistent/catalog.json"])
        #expect(missing.status == 66)
    }

    @Test func headlessPrintsTheFinalFrame() throws {
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--data-dir", scratch, "--size", "80x24", "--keys", "enter,a,c,enter,p,enter"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Thank you!"))
        #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().count == 24, "one line per row")
    }

    @Test func badConfigFileNamesTheLine() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID())")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("storefront"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        try "theme = mono\ncolour = blue\n".write(to: home.appendingPathComponent("storefront/config"), atomically: true, encoding: .utf8)
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless"], environment: ["XDG_CONFIG_HOME": home.path, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("config:2: unknown key \"colour\""))
    }

    /// One parse for each setting, whichever of the file, the environment and the flags gives it.
    @Test func aDatabaseThatIsNotAURLIsRefusedAlikeFromTheFileTheEnvironmentAndAFlag() throws {
        let binary = try BuiltProduct.requireStorefront()
        let home = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: home.appendingPathComponent("storefront"), withIntermediateDirectories: true)
        let base = ["XDG_CONFIG_HOME": home.path, "PATH": "/usr/bin:/bin"]
        let flag = try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--database", "not a url"], environment: base)
        #expect(flag.status == 64 && flag.stderr.contains("--database: database must be a URL such as postgres://"), "\(flag.stderr)")
        let variable = try Subprocess.run(
            binary, ["headless", "--data-dir", scratch], environment: base.merging(["STOREFRONT_DATABASE_URL": "not a url"]) { $1 })
        #expect(variable.status == 78 && variable.stderr.contains("STOREFRONT_DATABASE_URL: database must be a URL"), "\(variable.stderr)")
        try "database = not a url\n".write(to: home.appendingPathComponent("storefront/config"), atomically: true, encoding: .utf8)
        let file = try Subprocess.run(binary, ["headless", "--data-dir", scratch], environment: base)
        #expect(file.status == 78 && file.stderr.contains("config:1: database must be a URL"), "\(file.stderr)")
    }

    /// A database URL that does not parse is refused without a character of it: it may hold the password.
    @Test func aDatabaseURLThatDoesNotParseIsNeverEchoed() throws {
        let binary = try BuiltProduct.requireStorefront()
        let home = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: home.appendingPathComponent("storefront"), withIntermediateDirectories: true)
        let base = ["XDG_CONFIG_HOME": home.path, "PATH": "/usr/bin:/bin"]
        for url in ["postgres://shop:hunter2#x@db.example/shop", "postgres://shop:hunter2[x@db.example/shop"] {
            var runs = [
                try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--database", url], environment: base),
                try Subprocess.run(binary, ["headless", "--data-dir", scratch], environment: base.merging(["STOREFRONT_DATABASE_URL": url]) { $1 }),
                try Subprocess.run(binary, ["config", "check", "--set", "shop.database=\(url)"], environment: base),
                try Subprocess.run(binary, ["config", "show"], environment: base.merging(["STOREFRONT_DATABASE_URL": url]) { $1 }),
            ]
            try "database = \(url)\n".write(to: home.appendingPathComponent("storefront/config"), atomically: true, encoding: .utf8)
            runs.append(try Subprocess.run(binary, ["headless", "--data-dir", scratch], environment: base))
            try FileManager.default.removeItem(at: home.appendingPathComponent("storefront/config"))
            for run in runs { #expect(!(run.stdout + run.stderr).contains("hunter2"), "\(url): \(run.stdout)\(run.stderr)") }
            if url.contains("#") {
                #expect(runs[0].status == 64 && runs[0].stderr.contains("does not parse and is not shown"), "\(runs[0].stderr)")
            }
        }
    }
}

extension CommandLineTests {
    @Test func aDamagedDatabaseIsNamedAndLeftAlone() throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("storefront.sqlite")
        try Data("not a database, but someone's file".utf8).write(to: file)
        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless", "--data-dir", directory.path])
        #expect(result.status == 74)
        #expect(result.stderr.contains("\(file.path) is not a storefront database or is damaged"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "not a database, but someone's file")
    }
}

extension CommandLineTests {
    @Test func ordersAreKeptAcrossRunsAndListedNewestFirst() throws {
        let binary = try BuiltProduct.requireStorefront()
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        #expect(try Subprocess.run(binary, ["orders", "--data-dir", scratch]).stdout == "No orders yet.\n")
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "enter,a,a,c,enter,p,enter"]).status == 0)
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "down,enter,a,c,enter,p,enter"]).status == 0)
        let table = try Subprocess.run(binary, ["orders", "--data-dir", scratch])
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(
            lines[1].hasPrefix("SF-000002") && lines[1].contains("$24.30") && lines[1].hasSuffix("Jane Appleseed · jane@example.com"),
            "by name and email")
        #expect(lines[2].hasPrefix("SF-000001") && lines[2].contains("$137.28"))
        let json = try Subprocess.run(binary, ["orders", "--data-dir", scratch, "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1)
        let orders = try #require(document["orders"] as? [[String: Any]])
        #expect(orders.map { $0["total"] as? Int } == [2430, 13728])
        #expect(orders.map { $0["status"] as? String } == ["paid", "paid"])
        #expect(orders.allSatisfy { $0["paymentReference"] is NSNull }, "the sandbox has no provider reference")
        #expect(
            Set(orders[0].keys) == [
                "number", "placedAt", "status", "currency", "subtotal", "shipping", "tax", "taxDetails", "total", "payment", "paymentReference",
                "shippingMethod", "shippingMethodId", "shipTo", "customer", "email", "language", "renewal", "lines", "discount", "exchange",
            ], "the fields docs/orders-json.md lists")
        #expect(orders.allSatisfy { $0["email"] as? String == "jane@example.com" && $0["renewal"] as? Bool == false })
        #expect(orders.allSatisfy { $0["discount"] is NSNull }, "no code was used")
        let tax = orders[0]["taxDetails"] as? [String: Any]
        #expect(
            tax?["rule"] as? String == "added" && tax?["label"] as? String == "Sales tax" && tax?["basisPoints"] as? Int == 725
                && tax?["jurisdiction"] as? String == "US-CA", "Jane ships to California: \(tax ?? [:])")
        #expect(orders.allSatisfy { $0["shippingMethodId"] as? String == "standard" }, "the method's id, kept since v18")
        let screen = try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "o"])
        #expect(screen.stdout.contains("2 total"), "the orders screen reads the same database")
    }
}

extension CommandLineTests {
    @Test func ordersReadsTheDataDirectoryFromTheConfigFile() throws {
        let binary = try BuiltProduct.requireStorefront()
        let config = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: config.appendingPathComponent("storefront"), withIntermediateDirectories: true)
        try "data-dir = \(scratch)\n".write(to: config.appendingPathComponent("storefront/config"), atomically: true, encoding: .utf8)
        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        let listed = try Subprocess.run(
            binary, ["orders"], environment: ["XDG_CONFIG_HOME": config.path, "HOME": config.path, "PATH": "/usr/bin:/bin"])
        #expect(listed.stdout.hasPrefix("Order"), "the order made in the configured data directory is listed:\n\(listed.stdout)\(listed.stderr)")
    }
}

/// `orders` is an interface for scripts: an error is an exit status and a message, never an empty list.
extension CommandLineTests {
    @Test func ordersTellsAMissingDirectoryABusyDatabaseAndABadCustomerApart() throws {
        let binary = try BuiltProduct.requireStorefront()
        let missing = try Subprocess.run(binary, ["orders", "--json", "--data-dir", scratch + "/nowhere"])
        #expect(missing.status == 66)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("no such data directory: \(scratch)/nowhere"), "\(missing.stderr)")

        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let file = scratch + "/a-file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        let notDirectory = try Subprocess.run(binary, ["orders", "--data-dir", file])
        #expect(notDirectory.status == 66)
        #expect(notDirectory.stderr.contains("the data directory \(file) is not a directory"))

        let empty = try Subprocess.run(binary, ["orders", "--json", "--data-dir", scratch])
        #expect(empty.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1 && (document["orders"] as? [Any])?.isEmpty == true)

        for malformed in ["SF-000001", "local:", "ssh:not-a-fingerprint", "sandbox-id:a b", "local:\u{1B}[2J"] {
            let refused = try Subprocess.run(binary, ["orders", "--data-dir", scratch, "--customer", malformed])
            #expect(refused.status == 64, "\(malformed): \(refused.stderr)")
            #expect(refused.stderr.contains("is not a customer id"))
        }

        #expect(try Subprocess.run(binary, ["headless", "--data-dir", scratch, "--keys", "enter,a,c,enter,p,enter"]).status == 0)
        // A list that cannot be written is an error too, not a silent success.
        let full = try Subprocess.run("/bin/sh", ["-c", "'\(binary)' orders --json --data-dir '\(scratch)' > /dev/full"])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("cannot write the orders: No space left on device"), "\(full.stderr)")

        // A writer holding SQLite's exclusive lock keeps every reader out, even in WAL mode.
        let locker = try DatabaseQueue(path: scratch + "/storefront.sqlite")
        let busy = try locker.inDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode=EXCLUSIVE")
            try db.execute(sql: "BEGIN EXCLUSIVE")
            try db.execute(sql: "UPDATE stock SET on_hand = on_hand")
            defer { try? db.execute(sql: "ROLLBACK") }
            return try Subprocess.run(binary, ["orders", "--json", "--data-dir", scratch])
        }
        #expect(busy.status == 75, "\(busy.stderr)")
        #expect(busy.stdout.isEmpty, "no list is printed for an error")
        #expect(busy.stderr.contains("is busy: another process holds a lock on it"), "\(busy.stderr)")
    }

    /// A flag takes its bounds and its help from the settings table, so it refuses what the config file refuses.
    /// `config check --set` refuses a value in the table's words (the flag's refusal is parsed in-process:
    /// `CommandLineParsingTests`).
    @Test func aSetValueIsRefusedInTheTablesWords() throws {
        let set = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["config", "check", "--set", "ssh.max-sessions=0"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": scratch])
        #expect(set.status == 78 && set.stderr.contains("ssh.max-sessions must be a whole number from 1 to 10000, got \"0\""), "\(set.stderr)")
    }

    /// `serve`, `web` and `api` run on the configuration `up` runs on: their front's section of the file, under their
    /// flags. Each case is refused before anything listens, so nothing is left running.
    @Test func aFrontsCommandReadsItsSectionOfTheConfigFileUnderItsFlags() throws {
        let binary = try BuiltProduct.requireStorefront()
        let folder = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("storefront.conf")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": scratch, "STOREFRONT_CONFIG": config.path]
        // Each value fits the table; together they do not, which only a command that read them can tell.
        try "[api]\nmax-connections = 5\nconnections-per-address = 10\n".write(to: config, atomically: true, encoding: .utf8)
        let api = try Subprocess.run(binary, ["api", "--data-dir", scratch], environment: environment, timeout: .seconds(30))
        #expect(api.status == 64 && api.stderr.contains("--connections-per-address must be 1 to --max-connections, not 10"), "\(api.stderr)")
        try "[web]\nlisten = \"0.0.0.0:0\"\n".write(to: config, atomically: true, encoding: .utf8)
        let web = try Subprocess.run(binary, ["web", "--data-dir", scratch], environment: environment, timeout: .seconds(30))
        #expect(web.status == 64 && web.stderr.contains("--public-origin is needed when listening on 0.0.0.0"), "\(web.stderr)")
        try "[ssh]\nmax-sessions = 0\n".write(to: config, atomically: true, encoding: .utf8)
        let serve = ["serve", "--data-dir", scratch, "--port", "70000"]
        let fromFile = try Subprocess.run(binary, serve, environment: environment, timeout: .seconds(30))
        #expect(
            fromFile.status == 78 && fromFile.stderr.contains(":2: ssh.max-sessions must be a whole number from 1 to 10000, got \"0\""),
            "\(fromFile.stderr)")
        // The flag wins over the file's value, which is then never read; the port is refused before anything listens.
        let flagWins = try Subprocess.run(binary, serve + ["--max-sessions", "5"], environment: environment, timeout: .seconds(30))
        #expect(flagWins.status == 64 && flagWins.stderr.contains("--port must be between 0 and 65535, not 70000"), "\(flagWins.stderr)")
    }
}
