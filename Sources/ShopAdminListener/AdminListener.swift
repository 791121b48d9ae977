import Foundation
import HTTPGuards
import HTTPTypes
import Hummingbird
import HummingbirdCore
import LiveObjects
import Logging
import NIOCore
import ServiceLifecycle
import ShopPorts

/// The operator's listener, kept off the public ones: `GET /healthz` (the process is up) and `GET /readyz` (every
/// check the host names passes: its database reachable with its schema current, its payment provider, its sessions).
///
/// Order of calls: `init` → `run` (returns once stopped) → `stop` from elsewhere.
public final class AdminListener: Sendable {
    /// The longest `/readyz` waits for its checks: a database that does not answer within it is not ready.
    public static let checkDeadline: Duration = .milliseconds(1_500)
    /// Connections held at once; a load balancer's probes need few.
    public static let maxConnections = 16
    /// How long a client has to send its whole request.
    public static let requestDeadline: TimeAmount = .seconds(2)

    private let group: ServiceGroup

    /// `checks` are run at each `/readyz`, together, each within `checkDeadline`; `metrics` writes `/metrics` in
    /// Prometheus's text format (none: 404); `listening` gets the bound port.
    public init(
        host: String, port: Int, checks: [ReadinessProbe], metrics: (@Sendable () -> [UInt8])? = nil, log: @escaping @Sendable (String) -> Void,
        listening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        let router = Router()
        router.get("/healthz") { _, _ -> Response in Self.json(200, ["status": "ok"]) }
        router.get("/readyz") { _, _ -> Response in
            let results = await Self.run(checks)
            let ready = results.allSatisfy(\.isReady)
            return Self.json(ready ? 200 : 503, Answer(status: ready ? "ready" : "unready", checks: results))
        }
        if let metrics {
            router.get("/metrics") { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics())))
            }
        }
        // A probe's request is one short line: 2 s for it, so connections that trickle (all from 127.0.0.1, where the
        // scraper is too) hold a place for 2 s at most, and /healthz answers within that however many there are.
        let guards = HTTPGuards(
            HTTPGuardLimits(requestDeadline: Self.requestDeadline, connectionsPerAddress: Self.maxConnections, connections: Self.maxConnections),
            name: "admin", log: log)
        let app = Application(
            router: router,
            server: .http1(
                configuration: HTTP1Channel.Configuration(additionalChannelHandlers: guards.httpTypesHandlers(), idleTimeout: .seconds(5))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), serverName: nil, availableConnectionsDelegate: MaximumAvailableConnections(Self.maxConnections)),
            onServerRunning: { channel in await listening(channel.localAddress?.port ?? 0) }, logger: Self.quietLogger)
        group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [.init(service: app)], gracefulShutdownSignals: [], logger: Self.quietLogger))
    }

    /// What `/readyz` answers: `ready` or `unready`, and each check.
    public struct Answer: Codable, Sendable, Equatable {
        public var status: String
        public var checks: [ReadinessCheck]
    }

    /// Serves until stopped; throws when the address cannot be listened on.
    public func run() async throws { try await group.run() }

    public func stop() async { await group.triggerGracefulShutdown() }

    /// Every check at once, each given `checkDeadline`: one that does not answer in time is not ready, and says so.
    static func run(_ checks: [ReadinessProbe]) async -> [ReadinessCheck] {
        await withTaskGroup(of: (Int, ReadinessCheck).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask {
                    await withTaskGroup(of: ReadinessCheck?.self) { race in
                        race.addTask { await check.run() }
                        race.addTask {
                            try? await Task.sleep(for: checkDeadline)
                            return nil
                        }
                        let first = await race.next() ?? nil
                        race.cancelAll()
                        return (
                            index, first ?? ReadinessCheck(name: check.name, isReady: false, detail: "no answer within \(checkDeadline)")
                        )
                    }
                }
            }
            var results: [(Int, ReadinessCheck)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private static func json(_ status: Int, _ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static let quietLogger: Logger = {
        // Through the process's log handler: a server's is the shop's own log (text or JSON lines).
        var logger = Logger(label: "storefront.admin")
        logger.logLevel = .error
        return logger
    }()
}

extension AdminListener: LiveObject {}
