import Foundation
import LiveObjects
import NIOCore
import NIOSSH

/// Acknowledges every segment the client sends at once, until its session starts.
///
/// During the SSH handshake both ends send small messages and wait for an answer; with Linux's
/// delayed ACK, the client's Nagle waits on our ACK, which cost about 40 ms per round trip and
/// put the first frame near 130 ms. TCP_QUICKACK is not sticky, so it is set again after each read.
/// Once the shop runs, every key gets an answer that carries the ACK, so the session removes this
/// handler rather than pay a system call per keystroke.
final class QuickAckHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let name = "storefront.quickack"

    private static let option = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 12))  // TCP_QUICKACK

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        try? context.channel.syncOptions?.setOption(Self.option, value: 1)
        context.fireChannelRead(data)
    }
}

/// Says why, before the SSH version line (RFC 4253 §4.2 allows other lines first), and hangs up.
final class RefuseConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let reason: String

    init(reason: String) {
        self.reason = reason
    }

    func channelActive(context: ChannelHandlerContext) {
        var line = context.channel.allocator.buffer(capacity: reason.utf8.count + 2)
        line.writeString(reason + "\r\n")
        let channel = context.channel
        context.writeAndFlush(NIOAny(line)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Whatever the client says is ignored: the answer is already no.
    }
}

/// Logs a broken connection (a client that is not SSH, a failed key exchange) and closes it.
final class ConnectionErrorHandler: ChannelInboundHandler {
    typealias InboundIn = Any

    private let peer: String
    private let identity: ConnectionIdentity
    private let log: @Sendable (String) -> Void

    init(peer: String, identity: ConnectionIdentity, log: @escaping @Sendable (String) -> Void) {
        self.peer = peer
        self.identity = identity
        self.log = log
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if (error as? NIOSSHError)?.type == .keyExchangeNegotiationFailure {
            // The client and this server share no key exchange, host key or cipher: say which this server has,
            // since the client's own message ("remote closed the connection") names none.
            identity.keyExchangeFailed()
            log(
                "connection from \(peer) closed: no algorithm in common with the client; this server offers the ciphers \(offeredCiphers), key exchange \(offeredKeyExchanges) and \(acceptedKeyTypes) keys"
            )
        } else {
            log("connection from \(peer) closed: \(error)")
        }
        context.close(promise: nil)
    }
}

/// Logs a connection that ends without proving a key. At the head of the pipeline, because the
/// SSH handler does not pass the close on.
final class UnprovenKeyLogger: ChannelInboundHandler {
    typealias InboundIn = Any

    private let peer: String
    private let identity: ConnectionIdentity
    private let log: @Sendable (String) -> Void

    init(peer: String, identity: ConnectionIdentity, log: @escaping @Sendable (String) -> Void) {
        self.peer = peer
        self.identity = identity
        self.log = log
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A client whose only key is RSA offers nothing swift-nio-ssh can verify and leaves: say
        // so, or the operator sees a silent disconnect.
        if identity.failedToAuthenticate && !identity.failedKeyExchange {
            log("connection from \(peer) closed without proving a key: this server accepts \(acceptedKeyTypes) keys, not RSA")
        }
        context.fireChannelInactive()
    }
}

extension QuickAckHandler: LiveObject {}
extension RefuseConnectionHandler: LiveObject {}
extension ConnectionErrorHandler: LiveObject {}
extension UnprovenKeyLogger: LiveObject {}
