import NIOCore
import NIOSSH

/// Forwards what the shop writes on its pty to the SSH channel.
final class TerminalOutputHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let sshChannel: Channel

    init(sshChannel: Channel) {
        self.sshChannel = sshChannel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
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
