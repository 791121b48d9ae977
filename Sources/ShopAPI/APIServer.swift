import Foundation
import HTTPGuards
import Hummingbird
import LiveObjects
import Logging
import NIOCore
import OpenAPIHummingbird
import ServiceLifecycle
import ShopPorts

/// The API's limits: the body a request may carry and the requests a token may make.
package struct APILimits: Sendable {
    package var maxBodyBytes = 64 * 1024
    package var requestsPerMinute = 120
    package var burst = 60
    package var idleTimeout: Duration = .seconds(30)
    /// How long a client may take to send a whole request, head and body, however slowly it trickles them.
    package var requestDeadline: Duration = .seconds(30)
    package var connectionsPerAddress = 32
    package var maxConnections = 512
    package init() {}
}

/// `storefront api`: the generated routes of openapi/storefront.yaml behind the request log and the token gate, on
/// Hummingbird.
///
/// Order of calls: `init` → `run` (returns once stopped; `listening` is told the bound port first) → `stop`.
package final class APIServer: Sendable {
    private let group: ServiceGroup
    private let limiter: RateLimiter

    package init(
        host: String, port: Int, shop: APIShop, commerce: APICommerce, tokens: any APITokenRepository, merchantKeys: any MerchantKeys,
        limits: APILimits = APILimits(), log: @escaping @Sendable (String) -> Void, listening: @escaping @Sendable (Int) async -> Void
    ) throws {
        let limiter = RateLimiter(perMinute: limits.requestsPerMinute, burst: limits.burst)
        self.limiter = limiter
        let app = try Self.application(
            host: host, port: port, shop: shop, commerce: commerce, tokens: tokens, merchantKeys: merchantKeys, limits: limits, limiter: limiter,
            log: log, listening: listening
        )
        group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: app)], logger: Self.quiet))
    }

    /// The Hummingbird application: the routes, the request log and the token gate, with the clocks given (tests
    /// drive the rate limit with their own).
    package static func application(
        host: String = "127.0.0.1", port: Int = 0, shop: APIShop, commerce: APICommerce, tokens: any APITokenRepository,
        merchantKeys: any MerchantKeys, limits: APILimits = APILimits(), limiter: RateLimiter? = nil,
        uptime: @escaping @Sendable () -> Duration = { ContinuousClock.now - APIServer.started },
        now: @escaping @Sendable () -> Date = Date.init,
        log: @escaping @Sendable (String) -> Void, listening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let guards = HTTPGuards(
            HTTPGuardLimits(
                requestDeadline: TimeAmount(limits.requestDeadline), connectionsPerAddress: limits.connectionsPerAddress,
                connections: limits.maxConnections),
            name: "api", log: log
        )
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: RequestLog(maxBodyBytes: limits.maxBodyBytes, uptime: uptime, log: log))
        router.add(
            middleware: TokenGate(
                tokens: tokens, merchantKeys: merchantKeys, maxBodyBytes: limits.maxBodyBytes,
                limiter: limiter ?? RateLimiter(perMinute: limits.requestsPerMinute, burst: limits.burst), uptime: uptime, now: now))
        router.add(middleware: IdempotencyGate(keys: commerce.idempotency, maxBodyBytes: limits.maxBodyBytes, now: now))
        try ShopAPIService(shop: shop, commerce: commerce).registerHandlers(on: router)
        return Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: guards.httpTypesHandlers(), idleTimeout: TimeAmount(limits.idleTimeout))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await listening(channel.localAddress?.port ?? 0) },
            logger: quiet
        )
    }

    private static var quiet: Logger {
        var logger = Logger(label: "storefront.api")
        logger.logLevel = .critical
        return logger
    }

    /// A fixed origin for the monotonic readings the rate limit and the log take.
    package static let started = ContinuousClock.now

    /// Serves until `stop`.
    package func run() async throws {
        try await group.run()
    }

    /// A new rate limit from now on (SIGHUP).
    package func update(_ limits: APILimits) {
        limiter.update(perMinute: limits.requestsPerMinute, burst: limits.burst)
    }

    /// Stops listening, lets requests in flight finish, and makes `run` return.
    package func stop() async {
        await group.triggerGracefulShutdown()
    }
}

extension APIServer: LiveObject {}
