import HTTPGuards
import HummingbirdCore
import HummingbirdWebSocket
import LiveObjects
import Logging
import NIOCore
import NIOHTTP1

/// The WebSocket channel with a gate in front of its upgrade: a handshake from a page of a foreign origin gets
/// 403 before any upgrade or session (a declined upgrade would otherwise be a bare 400).
struct OriginGatedChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel
    /// The caps on connections and the deadline of each request, in front of the gate.
    let guards: HTTPGuards
    let gate: @Sendable () -> OriginGate

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let upgrader = try channel.pipeline.syncOperations.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            try channel.pipeline.syncOperations.addHandler(MaskedFramesOnly(), position: .first)
            for handler in guards.http1Handlers() { try channel.pipeline.syncOperations.addHandler(handler, position: .before(upgrader)) }
            try channel.pipeline.syncOperations.addHandler(gate(), position: .before(upgrader))
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Reads the first request's head, closing a connection that has not sent one in time: a WebSocket handshake on the session path whose `Origin` is not allowed loses its
/// `Upgrade`, so the router answers it (403) as a plain request; then the gate steps out of the pipeline.
final class OriginGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let allowed: @Sendable (String?) -> Bool
    private let refused: @Sendable (_ origin: String, _ peer: String) -> Void
    private let headDeadline: TimeAmount
    private var deadline: Scheduled<Void>?

    /// `headDeadline`: how long a connection may take to send its first request's head. Until then no idle timer
    /// of the HTTP pipeline runs, so without this a client that connects and sends nothing (or a header a minute)
    /// would hold a connection for ever.
    init(allowed: @escaping @Sendable (String?) -> Bool, headDeadline: TimeAmount, refused: @escaping @Sendable (String, String) -> Void) {
        self.allowed = allowed
        self.refused = refused
        self.headDeadline = headDeadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: headDeadline) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        deadline?.cancel()
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let isHandshake = head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
        let origin = head.headers.first(name: "origin")
        if isHandshake, path == WebFront.sessionPath, !allowed(origin) {
            refused(origin ?? "missing", context.channel.remoteAddress?.ipAddress ?? "unknown")
            // Passed on as a plain GET: the upgrader lets it through and the router's answer for a foreign page is 403.
            var plain = head
            plain.headers.remove(name: "upgrade")
            plain.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(plain)))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

extension OriginGate: LiveObject {}
