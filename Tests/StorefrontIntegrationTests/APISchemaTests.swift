import Foundation
import StorefrontTesting
import Testing

/// Schemathesis (PyPI) against `storefront api` on loopback, with the project's own document: generated requests for
/// every operation, with a shop token and with a merchant token, on SQLite and on PostgreSQL. It fails on any 500,
/// any status, header, content type or body the document does not declare, and any undeclared method not answered 405.
@Suite("The HTTP API against its document", .serialized, .ownThreads)
struct APISchemaTests {
    static let checks =
        "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,unsupported_method"

    @Test(arguments: APIEndToEndTests.Database.allCases)
    func schemathesisFindsNoAnswerThatBreaksTheDocument(_ database: APIEndToEndTests.Database) async throws {
        let probe = try Subprocess.run("/usr/bin/env", ["python3", "-m", "schemathesis.cli", "--version"])
        try #require(probe.status == 0, "schemathesis is missing: pip install schemathesis==4.32.5 (.ci/run installs it): \(probe.stderr)")
        let (environment, postgres) = try await database.shop()
        defer { withExtendedLifetime(postgres) {} }
        // A rate high enough for the generated requests: the limit has its own tests.
        let keys = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        func makeKey(_ name: String) throws -> String {
            let path = keys.appendingPathComponent(name).path
            try #require(try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path]).status == 0)
            return path
        }
        let shopper = try ServeProcess.fingerprint(ofKey: try makeKey("shopper"))
        let admin = try makeKey("admin")
        let adminKeys = keys.appendingPathComponent("admin_keys").path
        try String(contentsOfFile: admin + ".pub", encoding: .utf8).write(toFile: adminKeys, atomically: true, encoding: .utf8)
        let api = try ServeProcess(
            environment: environment, command: ["api", "--listen", "127.0.0.1:0", "--rate-limit", "1000000", "--admin-keys", adminKeys])
        let shopToken = try APIEndToEndTests.storefront(
            ["tokens", "create", "--name", "st", "--customer", "ssh:\(shopper)", "--data-dir", api.dataDirectory], environment)
        let merchantToken = try APIEndToEndTests.storefront(
            [
                "tokens", "create", "--name", "st", "--customer", "ssh:\(try ServeProcess.fingerprint(ofKey: admin))", "--scope", "merchant",
                "--admin-keys", adminKeys, "--data-dir", api.dataDirectory,
            ], environment)

        for (token, paths) in [(shopToken, ["--exclude-path-regex", "^/v1/merchant"]), (merchantToken, ["--include-path-regex", "^/v1/merchant"])] {
            // From the test's own directory: schemathesis keeps a cache where it runs.
            let running = try Subprocess.start(
                "/usr/bin/env",
                [
                    "--chdir=\(api.directory.path)", "python3", "-m", "schemathesis.cli", "run", "http://127.0.0.1:\(api.port)/v1/openapi.json",
                    "--header", "Authorization: Bearer \(token)",
                    "--checks", Self.checks, "--max-examples", "25", "--no-color",
                ] + paths, environment: ProcessInfo.processInfo.environment, timeout: .seconds(600))
            api.drainLog { running.hasEnded }
            let run = running.wait()
            #expect(
                run.status == 0,
                "schemathesis found answers that break the document (\(paths.joined(separator: " "))):\n\(run.stdout.suffix(6000))\n\(run.stderr.suffix(2000))"
            )
            #expect(run.stdout.contains("passed"), "\(run.stdout.suffix(2000))")
        }
        #expect(!api.log.contains(" 500 "), "no request failed inside the shop: \(api.log.suffix(3000))")
        #expect(try api.terminate() == 0)
    }
}
