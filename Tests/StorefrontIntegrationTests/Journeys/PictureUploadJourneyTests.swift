import Foundation
import StorefrontTesting
import Testing

/// A merchant gives a product a new picture in real processes, on each database: one kept from the command line
/// (`catalog picture`), one uploaded through `storefront api`; the product edited through the API to name the first;
/// `catalog export` writes it beside the catalog byte for byte; a bad file is refused by both with the same words.
@Suite("A merchant's picture, from the command line and the API", .serialized, .ownThreads)
struct PictureUploadJourneyTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(arguments: APIEndToEndTests.Database.allCases)
    func aPictureKeptAndUploadedIsNamedByAProductAndExported(_ database: APIEndToEndTests.Database) async throws {
        let (environment, postgres) = try await database.shop()
        defer { withExtendedLifetime(postgres) {} }
        let binary = try BuiltProduct.requireStorefront()
        let shop = try ServeProcess(environment: environment)
        let admin = try shop.makeClientKey("admin")
        let adminKeys = shop.directory.appendingPathComponent("admin_keys").path
        try String(contentsOfFile: admin + ".pub", encoding: .utf8).write(toFile: adminKeys, atomically: true, encoding: .utf8)
        let api = try ServeProcess(
            environment: environment, command: ["api", "--listen", "127.0.0.1:0", "--admin-keys", adminKeys], dataDirectory: shop.dataDirectory)
        let merchant = try APIEndToEndTests.storefront(
            [
                "tokens", "create", "--name", "pictures", "--customer", "ssh:\(try ServeProcess.fingerprint(ofKey: admin))", "--scope", "merchant",
                "--admin-keys", adminKeys, "--data-dir", shop.dataDirectory,
            ], environment)
        let run = { (arguments: [String]) throws -> Subprocess in
            try Subprocess.run(binary, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        }

        // From the command line: the duck JPEG kept, its reference printed; the same file again is held already.
        let duckFile = Self.repository.appending(path: "Tests/StorefrontTests/PictureFixtures/duck.jpg")
        let kept = try run(["catalog", "picture", duckFile.path, "--data-dir", shop.dataDirectory])
        #expect(kept.status == 0 && kept.stderr.contains("kept"), "\(kept.stderr)")
        let reference = try #require(try JSONSerialization.jsonObject(with: Data(kept.stdout.utf8)) as? [String: Any], "\(kept.stdout)")
        let file = try #require(reference["file"] as? String)
        #expect(file.hasPrefix("pictures/") && file.hasSuffix(".jpg") && reference["width"] as? Int ?? 0 > 0, "\(reference)")
        #expect(try run(["catalog", "picture", duckFile.path, "--data-dir", shop.dataDirectory]).stderr.contains("already held"))

        // Through the API: the mug's PNG, new; then a bad file, refused with the words the command line uses.
        let http = HTTPClient(port: api.port)
        let mug = try Data(contentsOf: Self.repository.appending(path: "assets/pictures/mug-stdout.png"))
        let uploaded = try await http.send("POST", "/v1/merchant/pictures", token: merchant, body: mug, bodyType: "image/png")
        #expect(uploaded.status == 200, "the bundled catalog's mug is held already: \(uploaded.json)")
        let bomb = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: bomb, withIntermediateDirectories: true)
        try Data(Fixtures.png(width: 50_000, height: 50_000)).write(to: bomb.appending(path: "bomb.png"))
        let refused = try await http.send(
            "POST", "/v1/merchant/pictures", token: merchant, body: try Data(contentsOf: bomb.appending(path: "bomb.png")), bodyType: "image/png")
        let told = try run(["catalog", "picture", bomb.appending(path: "bomb.png").path, "--data-dir", shop.dataDirectory])
        #expect(refused.status == 422 && told.status == 65)
        let words = try #require(refused.json["detail"] as? String)
        #expect(words.hasPrefix("The picture is too large") && told.stderr.contains(words), "API: \(words); command line: \(told.stderr)")

        // The mug names the duck instead, through the API, against the version it read.
        let listed = try await http.send("GET", "/v1/merchant/products", token: merchant)
        let row = try #require((listed.json["data"] as? [[String: Any]])?.first { $0["id"] as? String == "mug-stdout" })
        var product = try #require(row["product"] as? [String: Any])
        product["pictures"] = [reference]
        let body = try JSONSerialization.data(withJSONObject: ["version": row["version"] ?? 0, "product": product])
        let saved = try await http.send("PUT", "/v1/merchant/products/mug-stdout", token: merchant, json: String(decoding: body, as: UTF8.self))
        #expect(saved.status == 200, "\(saved.json)")

        // Exported, the catalog names the duck and the file beside it is the duck, byte for byte.
        let out = TemporaryDirectory.make()
        let exported = try run(["catalog", "export", out.appending(path: "catalog.json").path, "--data-dir", shop.dataDirectory])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try Data(contentsOf: out.appending(path: file)) == (try Data(contentsOf: duckFile)))
        #expect(try String(contentsOf: out.appending(path: "catalog.json"), encoding: .utf8).contains(file))
    }
}
