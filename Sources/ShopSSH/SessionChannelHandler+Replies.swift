import NIOCore
import NIOSSH

/// Answers to channel requests, and messages on the client's stderr.
extension SessionChannelHandler {
    func reply(_ success: Bool, wanted: Bool, context: ChannelHandlerContext) {
        guard wanted else { return }
        context.triggerUserOutboundEvent(success ? ChannelSuccessEvent() as Any : ChannelFailureEvent() as Any, promise: nil)
    }

    /// Accepts the request so the client stays to read `message` on stderr, then ends with status 1.
    func refuse(_ message: String, wantReply: Bool, context: ChannelHandlerContext) {
        reply(true, wanted: wantReply, context: context)
        writeError(message, to: context.channel)
        let channel = context.channel
        channel.triggerUserOutboundEvent(SSHChannelRequestEvent.ExitStatus(exitStatus: 1)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func writeOutput(_ text: String, to channel: Channel) {
        var buffer = channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        channel.writeAndFlush(SSHChannelData(type: .channel, data: .byteBuffer(buffer)), promise: nil)
    }

    func writeError(_ message: String, to channel: Channel) {
        var buffer = channel.allocator.buffer(capacity: message.utf8.count + 2)
        buffer.writeString(message + "\r\n")
        channel.writeAndFlush(SSHChannelData(type: .stdErr, data: .byteBuffer(buffer)), promise: nil)
    }
}
