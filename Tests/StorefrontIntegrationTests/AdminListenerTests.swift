import Foundation
import ShopBootstrap
import ShopPorts
import ShopServices
import StorefrontTesting
import Synchronization
import SystemPackage
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The operator's listener (`--admin-listen`): `/healthz` while the process is up, `/readyz` ready while the database
/// answers with its schema current, unready within 2 s of PostgreSQL stopping and ready again once it is back;
/// `storefront status` prints what it says, with its exit.
@Suite("Admin listener: health and readiness")
struct AdminListenerTests {
    static func get(_ port: Int, _ path: String) async throws -> (status: Int, body: [String: Any]) {
        let url = try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
        let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 10))
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    static func checkNames(_ body: [String: Any]) -> [String] {
        (body["checks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
    }

    @Test func aSQLiteShopIsHealthyAndReadyAndStatusSaysSo() async throws {
        let directory = TemporaryDirectory.make().path
        let storage = try await ShopStorage.openShop(
            at: .sqlite(directory: FilePath(directory)), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        let lines = LogLines()
        let listener = try #require(
            try await AdminListening.start(
                at: ListenAddress(host: "127.0.0.1", port: 0), storage: storage, checks: [AdminListening.payments(ShopConfiguration())],
                log: lines.append))
        #expect(lines.all.contains { $0.hasPrefix("admin: listening on 127.0.0.1:\(listener.port)") })
        let health = try await Self.get(listener.port, "/healthz")
        #expect(health.status == 200 && health.body["status"] as? String == "ok")
        let ready = try await Self.get(listener.port, "/readyz")
        #expect(ready.status == 200 && ready.body["status"] as? String == "ready", "\(ready.body)")
        #expect(Self.checkNames(ready.body) == ["database", "payments"])
        #expect(try await Self.get(listener.port, "/metrics-not-here").status == 404)

        let status = try Subprocess.run(try BuiltProduct.requireStorefront(), ["status", "--admin", "127.0.0.1:\(listener.port)"])
        #expect(status.status == 0 && status.stdout.hasPrefix("ready\nok   database: SQLite "), "\(status)")
        await listener.stop()
        let gone = try Subprocess.run(try BuiltProduct.requireStorefront(), ["status", "--admin", "127.0.0.1:\(listener.port)"])
        #expect(gone.status == 69 && gone.stderr.contains("nothing answers at 127.0.0.1:\(listener.port)"), "\(gone)")
    }

    @Test func postgresStoppingMakesItUnreadyWithinTwoSecondsAndBackReadyAgain() async throws {
        let server = try PostgresServer()
        let url = try await server.createShop()
        let storage = try await ShopStorage.openShop(
            at: .postgres(try #require(URL(string: url))), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        defer { storage.close() }
        let listener = try #require(
            try await AdminListening.start(at: ListenAddress(host: "127.0.0.1", port: 0), storage: storage, log: { _ in }))
        #expect(try await Self.get(listener.port, "/readyz").status == 200)

        try server.kill()
        let clock = ContinuousClock()
        let asked = clock.now
        let down = try await Self.get(listener.port, "/readyz")
        #expect(clock.now - asked < .seconds(2), "answered within 2 s of PostgreSQL stopping")
        #expect(down.status == 503 && down.body["status"] as? String == "unready", "\(down.body)")
        #expect(try await Self.get(listener.port, "/healthz").status == 200, "the process is still up")
        let status = try Subprocess.run(try BuiltProduct.requireStorefront(), ["status", "--admin", "127.0.0.1:\(listener.port)"])
        #expect(status.status == 75 && status.stdout.contains("FAIL database: "), "\(status)")

        try server.start()
        // The client reconnects on its next query; each ask is bounded by the check's deadline.
        var back = 0
        let deadline = clock.now.advanced(by: .seconds(30))
        while back != 200, clock.now < deadline { back = try await Self.get(listener.port, "/readyz").status }
        #expect(back == 200, "ready again once PostgreSQL is back")
        await listener.stop()
    }
}

/// Log lines kept for a test to read.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}
