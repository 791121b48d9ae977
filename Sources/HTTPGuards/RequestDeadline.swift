import LiveObjects
import NIOCore
import Synchronization

/// Closes a connection whose client takes longer than `deadline` to send a whole request, head and body, however
/// slowly it trickles bytes: the idle timer of an HTTP pipeline restarts at every byte, so a client sending one byte
/// every few seconds would otherwise hold its connection (and the server's slot) for ever.
///
/// The clock runs from the moment the server is ready for a request (the connection opened, or the last response
/// sent) until the request's end has arrived; it is stopped while the server answers. A request that asks for a
/// protocol upgrade (a WebSocket handshake) takes the handler out of the pipeline once its end has come.
/// Generic over the HTTP part types, so the NIOHTTP1 and the HTTPTypes pipelines share it.
public final class RequestDeadline<Inbound, Outbound>: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = Inbound
    public typealias InboundOut = Inbound
    public typealias OutboundIn = Outbound
    public typealias OutboundOut = Outbound

    /// What the handler needs to know of a part.
    public struct Parts: Sendable {
        public var isRequestEnd: @Sendable (Inbound) -> Bool
        public var isUpgradeHead: @Sendable (Inbound) -> Bool
        public var isResponseEnd: @Sendable (Outbound) -> Bool

        public init(
            isRequestEnd: @escaping @Sendable (Inbound) -> Bool, isUpgradeHead: @escaping @Sendable (Inbound) -> Bool,
            isResponseEnd: @escaping @Sendable (Outbound) -> Bool
        ) {
            self.isRequestEnd = isRequestEnd
            self.isUpgradeHead = isUpgradeHead
            self.isResponseEnd = isResponseEnd
        }
    }

    private let deadline: TimeAmount
    private let parts: Parts
    private let expired: @Sendable (String) -> Void
    private let waiting: WaitingConnections?
    private var timer: Scheduled<Void>?
    private var upgrading = false

    /// `expired` hears the peer's address of each connection closed for its deadline, for the log; `waiting` is told
    /// which connections wait for a request, so that a server stopping can close them at once.
    public init(deadline: TimeAmount, parts: Parts, waiting: WaitingConnections? = nil, expired: @escaping @Sendable (String) -> Void = { _ in }) {
        self.deadline = deadline
        self.parts = parts
        self.waiting = waiting
        self.expired = expired
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        arm(context)
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        waiting?.remove(context.channel)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if parts.isUpgradeHead(part) { upgrading = true }
        let ended = parts.isRequestEnd(part)
        context.fireChannelRead(data)
        guard ended else { return }
        timer?.cancel()
        timer = nil
        waiting?.remove(context.channel)
        if upgrading { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended = parts.isResponseEnd(unwrapOutboundIn(data))
        context.write(data, promise: promise)
        if ended, !upgrading { arm(context) }
    }

    private func arm(_ context: ChannelHandlerContext) {
        // A connection that starts waiting once the server is stopping is closed at once, not at its deadline.
        guard waiting?.add(context.channel) ?? true else {
            context.close(promise: nil)
            return
        }
        timer?.cancel()
        let channel = context.channel
        let expired = self.expired
        timer = context.eventLoop.scheduleTask(in: deadline) {
            expired(channel.remoteAddress?.ipAddress ?? "unknown")
            channel.close(promise: nil)
        }
    }
}

/// The connections of one server that wait for a request (none under way on them): what a stopping server closes at
/// once instead of waiting out their deadlines.
public final class WaitingConnections: Sendable {
    private let state = Mutex<(channels: [ObjectIdentifier: any Channel], closed: Bool)>(([:], false))

    public init() {}

    /// Files `channel` as waiting; false once `closeAll` ran, and the caller closes it: a connection accepted just
    /// before the stop starts waiting only after `closeAll` looked.
    func add(_ channel: any Channel) -> Bool {
        state.withLock {
            guard !$0.closed else { return false }
            $0.channels[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    func remove(_ channel: any Channel) { state.withLock { $0.channels[ObjectIdentifier(channel)] = nil } }

    /// Closes every connection waiting for a request, and every one that starts waiting from now on; requests under
    /// way finish.
    public func closeAll() {
        let channels = state.withLock {
            $0.closed = true
            return Array($0.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }
}

extension RequestDeadline: LiveObject {}
extension WaitingConnections: LiveObject {}
