import Foundation
import LiveObjects
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
@Suite("Admin listener: health and readiness", .ownThreads)
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
        let api = try ServeProcess(command: ["api", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"])
        let admin = try #require(Int(try api.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+) for GET \/healthz and \/readyz/#).output.1))
        let health = try await Self.get(admin, "/healthz")
        #expect(health.status == 200 && health.body["status"] as? String == "ok")
        let ready = try await Self.get(admin, "/readyz")
        #expect(ready.status == 200 && ready.body["status"] as? String == "ready", "\(ready.body)")
        #expect(Self.checkNames(ready.body) == ["database", "payments"])
        #expect(try await Self.get(admin, "/metrics-not-here").status == 404)

        let status = try await Self.timedStatus(admin).run
        #expect(status.status == 0 && status.stdout.hasPrefix("ready\nok   database: SQLite "), "\(status)")
        #expect(try api.terminate() == 0)
        let gone = try await Self.timedStatus(admin).run
        #expect(gone.status == 69 && gone.stderr.contains("nothing answers at 127.0.0.1:\(admin)"), "\(gone)")
    }

    /// A listener in this process that cannot be had: its address taken, start-up fails with why.
    @Test func anAddressInUseIsRefusedAtStart() async throws {
        let storage = try await ShopStorage.openShop(
            at: .sqlite(directory: FilePath(TemporaryDirectory.make().path)), catalog: .bundled, pool: .session, migrate: true, environment: [:])
        let lines = LogLines()
        let first = try #require(
            try await AdminListening.start(at: ListenAddress(host: "127.0.0.1", port: 0), storage: storage, log: lines.append))
        #expect(lines.all.contains { $0.hasPrefix("admin: listening on 127.0.0.1:\(first.port)") })
        await #expect {
            _ = try await AdminListening.start(at: ListenAddress(host: "127.0.0.1", port: first.port), storage: storage, log: { _ in })
        } throws: { ($0 as? ServiceStartFailure)?.description.hasPrefix("cannot listen for the admin endpoints on 127.0.0.1:\(first.port)") == true }
        await first.stop()
    }

    /// `storefront status` run on a thread of its own, and how long it took from start to exit.
    static func timedStatus(_ port: Int) async throws -> (run: Subprocess, took: Duration) {
        let binary = try BuiltProduct.requireStorefront()
        return try await onOwnThread {
            let clock = ContinuousClock()
            let started = clock.now
            let run = try Subprocess.run(binary, ["status", "--admin", "127.0.0.1:\(port)"])
            return (run, clock.now - started)
        }
    }

    /// A real `storefront api` on its own PostgreSQL, asked from outside by `storefront status`. How soon it answers is
    /// bounded by the check's own deadline in the server; the time is a benchmark's to measure, not this test's (a
    /// loaded machine spends seconds starting the `status` process alone).
    @Test func postgresStoppingMakesItUnreadyAndBackReadyAgain() async throws {
        let server = try PostgresServer()
        let url = try await server.createShop()
        let api = try ServeProcess(command: ["api", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--database", url])
        let admin = try #require(Int(try api.waitForLog(#/admin: listening on 127\.0\.0\.1:(\d+)/#).output.1))
        #expect(try await Self.timedStatus(admin).run.status == 0)

        try server.kill()
        let down = try await Self.timedStatus(admin)
        #expect(down.run.status == 75 && down.run.stdout.contains("FAIL database: "), "\(down.run), after \(down.took)")
        let health = try await Self.get(admin, "/healthz")
        #expect(health.status == 200, "the process is still up")

        try server.start()
        // The client reconnects on its next query; each ask is bounded by the check's deadline.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        var back: Int32 = -1
        while back != 0, clock.now < deadline { back = try await Self.timedStatus(admin).run.status }
        #expect(back == 0, "ready again once PostgreSQL is back")
        #expect(try api.terminate() == 0)
    }
}

/// Log lines kept for a test to read.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

extension LogLines: LiveObject {}
