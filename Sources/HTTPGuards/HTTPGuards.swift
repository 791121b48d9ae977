import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The guards of one HTTP server: how long a request may take to arrive, and how many connections each address and
/// the whole server may hold.
public struct HTTPGuardLimits: Sendable {
    public var requestDeadline: TimeAmount
    public var connectionsPerAddress: Int
    public var connections: Int

    public init(requestDeadline: TimeAmount = .seconds(30), connectionsPerAddress: Int = 32, connections: Int = 512) {
        self.requestDeadline = requestDeadline
        self.connectionsPerAddress = connectionsPerAddress
        self.connections = connections
    }
}

/// Builds the guards' channel handlers for each kind of pipeline: Hummingbird's HTTPTypes parts (the API, webhooks)
/// and NIOHTTP1's (the web front, whose WebSocket upgrader works on them).
public struct HTTPGuards: Sendable {
    public let limits: HTTPGuardLimits
    public let ledger: ConnectionLedger
    /// The connections waiting for a request, closed by `closeWaiting` when the server stops.
    public let waiting = WaitingConnections()
    private let log: @Sendable (String) -> Void

    /// `log` hears one line per connection closed by a guard; `name` starts it (`api`, `web`, `webhooks`).
    public init(_ limits: HTTPGuardLimits, name: String, log: @escaping @Sendable (String) -> Void) {
        self.limits = limits
        ledger = ConnectionLedger(perAddress: limits.connectionsPerAddress, total: limits.connections)
        self.log = { log("\(name): \($0)") }
    }

    /// For a Hummingbird `HTTP1Channel`'s `additionalChannelHandlers`.
    public func httpTypesHandlers() -> [any RemovableChannelHandler] {
        let parts = RequestDeadline<HTTPRequestPart, HTTPResponsePart>.Parts(
            isRequestEnd: { if case .end = $0 { true } else { false } },
            isUpgradeHead: { _ in false },
            isResponseEnd: { if case .end = $0 { true } else { false } }
        )
        return [cap(), RequestDeadline(deadline: limits.requestDeadline, parts: parts, waiting: waiting, expired: expired)]
    }

    /// For a NIOHTTP1 pipeline; a WebSocket handshake's end takes the deadline out, the socket's own timers follow.
    public func http1Handlers() -> [any RemovableChannelHandler] {
        let parts = RequestDeadline<HTTPServerRequestPart, HTTPServerResponsePart>.Parts(
            isRequestEnd: { if case .end = $0 { true } else { false } },
            isUpgradeHead: { part in
                guard case .head(let head) = part else { return false }
                return head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
            },
            isResponseEnd: { if case .end = $0 { true } else { false } }
        )
        return [cap(), RequestDeadline(deadline: limits.requestDeadline, parts: parts, waiting: waiting, expired: expired)]
    }

    /// Closes the connections that wait for a request: a stopping server need not wait out their deadlines.
    public func closeWaiting() {
        // New connections first, so one accepted while the waiting ones close is not left to its deadline.
        ledger.stop()
        waiting.closeAll()
    }

    private func cap() -> ConnectionCap {
        let (log, limits) = (self.log, self.limits)
        return ConnectionCap(ledger: ledger) { address in
            log("refused a connection from \(address): \(limits.connectionsPerAddress) per address, \(limits.connections) in all")
        }
    }

    private var expired: @Sendable (String) -> Void {
        let (log, deadline) = (self.log, limits.requestDeadline)
        return { address in log("closed a connection from \(address) that did not send a whole request within \(deadline.nanoseconds / 1_000_000) ms")
        }
    }
}
