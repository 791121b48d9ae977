import Foundation
import StorefrontTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `storefront api` as a new user meets it: a token made on the SSH shop's account screen, then plain HTTP on loopback for a
/// whole purchase, the merchant's shipment, and the shopper reading the tracking number through the API and in the
/// SSH shop, on SQLite and on PostgreSQL.
@Suite("The HTTP API end to end", .serialized, .ownThreads)
struct APIEndToEndTests {
    enum Database: String, CaseIterable {
        case sqlite, postgresql

        /// The environment that puts a shop on this database, and the PostgreSQL server to keep running meanwhile.
        func shop() async throws -> ([String: String], PostgresServer?) {
            guard self == .postgresql else { return ([:], nil) }
            let server = try PostgresServer()
            return (["STOREFRONT_DATABASE_URL": try await server.createShop()], server)
        }
    }

    @Test(arguments: Database.allCases)
    func aTokenBuysShipsAndTracksAnOrderThatTheSSHShopShows(_ database: Database) async throws {
        let (environment, postgres) = try await database.shop()
        defer { withExtendedLifetime(postgres) {} }
        let shop = try ServeProcess(environment: environment)
        let key = try shop.makeClientKey("ada")
        let admin = try shop.makeClientKey("admin")
        let adminKeys = shop.directory.appendingPathComponent("admin_keys").path
        let adminLine = try String(contentsOfFile: admin + ".pub", encoding: .utf8)
        try adminLine.write(toFile: adminKeys, atomically: true, encoding: .utf8)
        let adminFingerprint = try ServeProcess.fingerprint(ofKey: admin)
        let api = try ServeProcess(
            environment: environment, command: ["api", "--listen", "127.0.0.1:0", "--admin-keys", adminKeys], dataDirectory: shop.dataDirectory
        )

        // The shopper makes the token on the SSH shop's account screen and copies it off the screen.
        let making = try TmuxTerminal()
        try shop.connect(making, key: key)
        try making.press("u")
        try making.press("t")
        try making.type("script")
        let shown = try making.waitFor("copy it now")
        let token = try #require(shown.firstMatch(of: /sfp_[0-9A-Za-z]{43}/).map { String($0.output) }, "the secret on screen: \(shown)")
        try shop.leave(making)
        let http = HTTPClient(port: api.port)

        let products = try await http.send("GET", "/v1/products?limit=2", token: token)
        #expect(products.status == 200)
        let first = try #require((products.json["data"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try await http.send("PUT", "/v1/cart/lines/\(first)", token: token, json: #"{"quantity": 2}"#).status == 200)
        let address =
            #"{"name": "Ada Lovelace", "email": "ada@example.com", "street": "1 Loop Road", "city": "Cupertino", "region": "CA", "postalCode": "95014", "countryCode": "US"}"#
        #expect(try await http.send("POST", "/v1/addresses", token: token, json: address).status == 201)
        #expect(try await http.send("POST", "/v1/cards", token: token, json: #"{"testCard": "card_ok_visa_4242"}"#).status == 201)
        let order = try await http.send("POST", "/v1/orders", token: token, json: "{}", headers: ["Idempotency-Key": "first-order"])
        #expect(order.status == 201, "\(order.json)")
        #expect(order.json["status"] as? String == "paid")
        let number = try #require(order.json["number"] as? String)
        let again = try await http.send("POST", "/v1/orders", token: token, json: "{}", headers: ["Idempotency-Key": "first-order"])
        #expect(again.json["number"] as? String == number, "the same key: the same order")

        let merchant = try Self.storefront(
            [
                "tokens", "create", "--name", "fulfilment", "--customer", "ssh:\(adminFingerprint)", "--scope", "merchant", "--admin-keys", adminKeys,
                "--data-dir", shop.dataDirectory,
            ], environment)
        let shipped = try await http.send(
            "POST", "/v1/merchant/orders/\(number)/ship", token: merchant, json: #"{"carrier": "UPS", "trackingNumber": "1Z999AA10123456784"}"#)
        #expect(shipped.status == 200, "\(shipped.json)")
        // The key taken out of the admin keys file takes the token's power with it, at its next use; put back, it returns.
        try "# no one\n".write(toFile: adminKeys, atomically: true, encoding: .utf8)
        let removed = try await http.send("GET", "/v1/merchant/orders", token: merchant)
        #expect(removed.status == 403 && (removed.json["detail"] as? String)?.contains("no longer in the admin keys file") == true, "\(removed.json)")
        try adminLine.write(toFile: adminKeys, atomically: true, encoding: .utf8)
        #expect(try await http.send("GET", "/v1/merchant/orders", token: merchant).status == 200)
        let tracked = try await http.send("GET", "/v1/orders/\(number)", token: token)
        #expect((tracked.json["tracking"] as? [String: Any])?["trackingNumber"] as? String == "1Z999AA10123456784")

        let terminal = try TmuxTerminal()
        try shop.connect(terminal, key: key)
        try terminal.press("o")
        try terminal.waitFor(number)
        try terminal.press("Enter")
        try terminal.waitFor("tracking 1Z999AA10123456784")
        try shop.leave(terminal)

        #expect(
            try Self.storefront(["tokens", "revoke", Self.tokenID(of: token, shop, environment), "--data-dir", shop.dataDirectory], environment)
                .isEmpty)
        #expect(try await http.send("GET", "/v1/cart", token: token).status == 401, "a revoked token is refused at once")
        #expect(try api.terminate() == 0)
        for secret in [token, merchant] {
            #expect(!api.log.contains(secret) && !shop.log.contains(secret), "no secret in any log")
            #expect(try !Self.databaseHolds(secret, database, shop, environment), "no secret in any column")
        }
        #expect(api.log.contains("POST /v1/orders 201"), "\(api.log)")
    }

    /// Whether any byte of the shop's database (SQLite's files, or PostgreSQL's every table as text) holds `text`.
    static func databaseHolds(_ text: String, _ database: Database, _ shop: ServeProcess, _ environment: [String: String]) throws -> Bool {
        switch database {
        case .sqlite:
            let files = try FileManager.default.contentsOfDirectory(atPath: shop.dataDirectory).filter { $0.hasPrefix("storefront.sqlite") }
            try #require(!files.isEmpty)
            return try files.contains {
                try Data(contentsOf: URL(fileURLWithPath: shop.dataDirectory).appendingPathComponent($0)).range(of: Data(text.utf8)) != nil
            }
        case .postgresql:
            let url = try #require(environment["STOREFRONT_DATABASE_URL"])
            let dump = try Subprocess.run("/usr/bin/env", ["pg_dump", "--data-only", url])
            try #require(dump.status == 0 && dump.stdout.contains("api_token"), "pg_dump: \(dump.stderr)")
            return dump.stdout.contains(text)
        }
    }

    /// Runs the built `storefront` and returns its standard output, trimmed; fails on a non-zero exit.
    static func storefront(_ arguments: [String], _ environment: [String: String]) throws -> String {
        let run = try Subprocess.run(
            try BuiltProduct.requireStorefront(), arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        try #require(run.status == 0, "storefront \(arguments.first ?? "") failed: \(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The id `storefront tokens list` shows beside the token that ends as `secret` does.
    static func tokenID(of secret: String, _ shop: ServeProcess, _ environment: [String: String]) throws -> String {
        let listed = try storefront(["tokens", "list", "--json", "--data-dir", shop.dataDirectory], environment)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])
        let tokens = try #require(document["tokens"] as? [[String: Any]])
        return try #require(tokens.first { $0["lastFour"] as? String == String(secret.suffix(4)) }?["id"] as? String)
    }
}

/// Plain HTTP to a loopback port, as curl would send it.
struct HTTPClient {
    var port: Int

    struct Reply {
        var status: Int
        var headers: [String: String]
        var json: [String: Any]
    }

    /// Sends `json`, or `body` as `bodyType` (a file's bytes).
    func send(
        _ method: String, _ path: String, token: String? = nil, json: String? = nil, body: Data? = nil, bodyType: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let body {
            request.httpBody = body
            request.setValue(bodyType, forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        let fields = Dictionary(
            uniqueKeysWithValues: http.allHeaderFields.compactMap { key, value in (key as? String).map { ($0.lowercased(), "\(value)") } })
        return Reply(status: http.statusCode, headers: fields, json: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }
}
