import LiveObjects
import NIOCore
import Synchronization

/// How many connections each client address holds, and all together: shared by every connection of one server.
public final class ConnectionLedger: Sendable {
    public let perAddress: Int
    public let total: Int
    private let counts = Mutex<(byAddress: [String: Int], all: Int)>(([:], 0))
    private let stopping = Mutex(false)

    /// From now on every new connection is closed as it comes: the server is stopping.
    func stop() { stopping.withLock { $0 = true } }

    public init(perAddress: Int, total: Int) {
        self.perAddress = perAddress
        self.total = total
    }

    /// Takes a place for `address`; false when it or the server is full (nothing taken).
    func take(_ address: String) -> Bool {
        guard !stopping.withLock({ $0 }) else { return false }
        return counts.withLock { counts in
            guard counts.all < total, counts.byAddress[address, default: 0] < perAddress else { return false }
            counts.all += 1
            counts.byAddress[address, default: 0] += 1
            return true
        }
    }

    func give(_ address: String) {
        counts.withLock { counts in
            counts.all -= 1
            let left = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = left > 0 ? left : nil
        }
    }

    /// Connections held now, for tests and logs.
    public var open: Int { counts.withLock { $0.all } }
}

/// Closes a new connection at once when its address, or the server, already holds as many as the ledger allows:
/// one client's sockets cannot fill the slots every visitor shares.
public final class ConnectionCap: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny

    private let ledger: ConnectionLedger
    private let refused: @Sendable (String) -> Void
    private var held: String?

    /// `refused` hears each refused address, for the log.
    public init(ledger: ConnectionLedger, refused: @escaping @Sendable (String) -> Void = { _ in }) {
        self.ledger = ledger
        self.refused = refused
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        // The peer is known once the socket is accepted, before the first byte.
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if ledger.take(address) {
            held = address
        } else {
            refused(address)
            context.close(promise: nil)
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        if let held { ledger.give(held) }
        held = nil
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }
}

extension ConnectionLedger: LiveObject {}
extension ConnectionCap: LiveObject {}
