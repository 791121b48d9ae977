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

/// The shop's HTTP listener for its payment provider: `POST /webhooks/stripe` hands each signed event to a receiver.
///
/// Plain HTTP on the address it is given; in production it listens on loopback behind a reverse proxy that ends TLS
/// (docs/webhooks.md). Order of calls: `init` → `run` (returns once stopped) → `stop` from elsewhere, or SIGTERM/SIGINT
/// with `handlesSignals`: deliveries under way are answered first.
public final class WebhookServer: Sendable {
    /// What a handled delivery answers: the HTTP status and a line for the log.
    public struct Answer: Sendable {
        public var status: Int
        public var log: String

        public init(status: Int, log: String) {
            self.status = status
            self.log = log
        }
    }

    /// The path Stripe is pointed at.
    public static let stripePath = "/webhooks/stripe"
    /// Stripe's events are a few kilobytes; anything past this is refused unread.
    public static let defaultBodyLimit = 256 * 1024

    /// Connections held at once; more wait in the listen queue.
    public static let maxConnections = 128

    private let group: ServiceGroup

    /// `log` gets a line per delivery; `listening` the bound port once it listens; `receive` the body and the
    /// `Stripe-Signature` header of each delivery that passed the checks on size and content type.
    public init(
        host: String, port: Int, bodyLimit: Int = defaultBodyLimit, handlesSignals: Bool = false, log: @escaping @Sendable (String) -> Void,
        listening: @escaping @Sendable (Int) async -> Void = { _ in },
        receive: @escaping @Sendable (_ payload: [UInt8], _ signature: String?) async -> Answer
    ) {
        let router = Router()
        router.post(RouterPath(Self.stripePath)) { request, _ -> Response in
            try await Self.deliver(request, bodyLimit: bodyLimit, log: log, receive: receive)
        }
        router.get("/healthz") { _, _ -> Response in Self.answer(200, "ok") }
        // A peer that goes quiet is let go, and only so many are held at once: a request that has not arrived whole
        // 30 s after its connection opened is closed, however it trickles, and one address holds at most half the
        // slots, so a flood from one address leaves room for the provider's deliveries (behind a proxy, 64 at once).
        let guards = HTTPGuards(
            HTTPGuardLimits(requestDeadline: .seconds(30), connectionsPerAddress: Self.maxConnections / 2, connections: Self.maxConnections),
            name: "webhooks", log: log
        )
        let app = Application(
            router: router,
            server: .http1(
                configuration: HTTP1Channel.Configuration(additionalChannelHandlers: guards.httpTypesHandlers(), idleTimeout: .seconds(30))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), serverName: nil, availableConnectionsDelegate: MaximumAvailableConnections(Self.maxConnections)
            ),
            onServerRunning: { channel in await listening(channel.localAddress?.port ?? 0) }, logger: Self.quietLogger
        )
        group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: app)], gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [], logger: Self.quietLogger
            ))
    }

    /// Serves until stopped; throws when the address cannot be listened on.
    public func run() async throws {
        try await group.run()
    }

    /// Stops listening, answers the deliveries under way, then lets `run` return.
    public func stop() async {
        await group.triggerGracefulShutdown()
    }

    private static func deliver(
        _ request: Request, bodyLimit: Int, log: @Sendable (String) -> Void, receive: @Sendable ([UInt8], String?) async -> Answer
    ) async throws -> Response {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            log("webhook refused: content type \(request.headers[.contentType] ?? "none"), not application/json")
            return answer(415, "the body must be application/json")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > bodyLimit {
            log("webhook refused: a body of \(length) bytes, over the limit of \(bodyLimit)")
            return answer(413, "the body is over \(bodyLimit) bytes")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: bodyLimit)
        } catch {
            log("webhook refused: a body over the limit of \(bodyLimit) bytes")
            return answer(413, "the body is over \(bodyLimit) bytes")
        }
        let signature = HTTPField.Name("Stripe-Signature").flatMap { request.headers[$0] }
        let reply = await receive(Array(body.readableBytesView), signature)
        log("webhook \(reply.log)")
        // The log line says why a delivery was not applied; the provider's dashboard is told only to send it again,
        // never the shop's internals (a database's path, an error's text).
        return answer(reply.status, reply.status >= 500 ? "not applied now; send it again later" : reply.log)
    }

    /// Hummingbird's own messages: errors only, in the server's log; the shop logs each delivery itself.
    private static let quietLogger: Logger = {
        // Through the process's log handler: a server's is the shop's own log (text or JSON lines).
        var logger = Logger(label: "storefront.webhooks")
        logger.logLevel = .error
        return logger
    }()

    /// A small JSON answer: the provider's dashboard shows it beside the delivery.
    private static func answer(_ status: Int, _ message: String) -> Response {
        let object = ["status": status < 300 ? "ok" : status < 500 ? "refused" : "retry", "message": message] as [String: String]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

extension WebhookServer: LiveObject {}
