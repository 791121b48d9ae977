import LiveObjects
import NIOCore

/// Closes a page's WebSocket that sends an unmasked frame, as RFC 6455 §5.1 requires of a server ("a server MUST
/// close the connection upon receiving a frame that is not masked"): masking is what keeps a page's bytes from being
/// read as another protocol by a proxy on the way.
///
/// It sits first in the pipeline and reads the raw bytes: nothing until the server's `101 Switching Protocols` has
/// gone out, then each frame's header (the MASK bit, the length and the key) to find the next one. A frame without
/// the bit gets a close frame with 1002 (protocol error) and the connection is closed; nothing of it goes further.
final class MaskedFramesOnly: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var upgraded = false
    private var refused = false
    /// Bytes of the frame now arriving still to pass before the next header, once its header has been read.
    private var payloadLeft: UInt64 = 0
    /// A header that arrived in pieces.
    private var partialHeader: [UInt8] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data)
        if !upgraded, bytes.readableBytesView.starts(with: Array("HTTP/1.1 101".utf8)) { upgraded = true }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard upgraded, !refused else {
            if !refused { context.fireChannelRead(data) }
            return
        }
        // Read in place: this runs for every key a page sends, and a key's frame is a handful of bytes.
        let bytes = unwrapInboundIn(data).readableBytesView
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if payloadLeft > 0 {
                let step = Int(min(payloadLeft, UInt64(bytes.endIndex - index)))
                payloadLeft -= UInt64(step)
                index += step
                continue
            }
            partialHeader.append(bytes[index])
            index += 1
            guard let (masked, headerLength, payload) = Self.header(partialHeader) else { continue }
            guard partialHeader.count == headerLength else { continue }
            guard masked else {
                refused = true
                let close: [UInt8] = [0x88, 0x02, 0x03, 0xEA]
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: close))).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            partialHeader = []
            payloadLeft = payload
        }
        context.fireChannelRead(data)
    }

    /// Whether `bytes` (a header so far) says masked, how long the whole header is, and the payload's length; nil
    /// until enough of it has come to tell.
    static func header(_ bytes: [UInt8]) -> (masked: Bool, length: Int, payload: UInt64)? {
        guard bytes.count >= 2 else { return nil }
        let masked = bytes[1] & 0x80 != 0
        let short = bytes[1] & 0x7F
        let extended = short == 126 ? 2 : short == 127 ? 8 : 0
        let length = 2 + extended + (masked ? 4 : 0)
        guard bytes.count >= 2 + extended else { return nil }
        let payload: UInt64 = extended == 0 ? UInt64(short) : bytes[2..<(2 + extended)].reduce(0) { $0 << 8 | UInt64($1) }
        return (masked, length, payload)
    }
}

extension MaskedFramesOnly: LiveObject {}
