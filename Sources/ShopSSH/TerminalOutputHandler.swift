import LiveObjects
import NIOCore
import NIOSSH
import ShopMetrics

/// When the oldest key not yet answered reached the server; the channel and the pty's relay share it, on one loop.
final class KeyAnswerTimer {
    private var waitingSince: NIODeadline?
    /// Looked up once, not at each answer.
    private let timing: Timing

    /// Times the keys of a session of `front`.
    init(front: String) {
        timing = Timing(ShopMetrics.serverKeyToFrame, [("front", front)])
    }

    /// A key arrived from the client.
    func keyArrived() {
        if waitingSince == nil { waitingSince = .now() }
    }

    /// The session wrote: what a key waited for, from the server's side, is recorded.
    func answered() {
        guard let since = waitingSince else { return }
        waitingSince = nil
        let waited = NIODeadline.now() - since
        timing.record(.nanoseconds(waited.nanoseconds))
    }
}

/// Forwards what the shop writes on its pty to the SSH channel.
final class TerminalOutputHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let sshChannel: Channel
    private let keys: KeyAnswerTimer

    init(sshChannel: Channel, keys: KeyAnswerTimer) {
        self.sshChannel = sshChannel
        self.keys = keys
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        keys.answered()
        let bytes = unwrapInboundIn(data)
        sshChannel.write(SSHChannelData(type: .channel, data: .byteBuffer(bytes)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        sshChannel.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // EIO on read means the last process holding the pty has gone: the normal end.
        context.close(promise: nil)
    }
}

extension KeyAnswerTimer: LiveObject {}
extension TerminalOutputHandler: LiveObject {}
