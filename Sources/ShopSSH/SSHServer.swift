import Foundation
import LiveObjects
import NIOCore
import NIOPosix
import NIOSSH
import ShopSessions
import Synchronization

/// The key a connection authenticated with (set once by the auth delegate, read by its sessions),
/// and whether it has started a session yet.
final class ConnectionIdentity: Sendable {
    private struct State {
        var fingerprint: String?
        var isGuest = false
        var hasStartedSession = false
        var failedKeyExchange = false
    }

    private let state = Mutex(State())

    var fingerprint: String { state.withLock { $0.fingerprint ?? "" } }
    var hasStartedSession: Bool { state.withLock { $0.hasStartedSession } }

    func authenticate(as fingerprint: String) {
        state.withLock { $0.fingerprint = fingerprint }
    }

    /// Signed in with no key: a guest, whose session keeps nothing.
    func authenticateAsGuest() {
        state.withLock { $0.isGuest = true }
    }

    var isGuest: Bool { state.withLock { $0.isGuest && $0.fingerprint == nil } }

    func sessionStarted() {
        state.withLock { $0.hasStartedSession = true }
    }

    /// The client and the server had nothing in common to encrypt with: no key was ever asked for.
    func keyExchangeFailed() {
        state.withLock { $0.failedKeyExchange = true }
    }

    var failedKeyExchange: Bool { state.withLock { $0.failedKeyExchange } }

    /// True until the client proves a key. An RSA-only OpenSSH client never even asks: the server's
    /// signature algorithms name none it can use.
    var failedToAuthenticate: Bool { state.withLock { $0.fingerprint == nil } }
}

/// What every session handler on the server shares.
struct SessionContext: Sendable {
    var command: SessionCommand
    var terminalTypes: TerminalTypes
    var admission: AdmissionControl
    var registry: SessionRegistry
    var identity: ConnectionIdentity
    var peer: String
    var log: @Sendable (String) -> Void
    /// What this connection has asked for, against `allowance`.
    var budget: ConnectionBudget
    var allowance: ConnectionAllowance
    /// Refusals any client can cause as often as it likes: logged at a bounded rate.
    var refusals: RefusalLogThrottle
}

/// `storefront serve`: an SSH server whose every session is the shop, on a pty of its own.
///
/// Order of calls: `start` → (serving) → `drain` when asked to stop → `shutdown`.
public final class StorefrontSSHServer: Sendable {
    private let hostKey: HostKey
    private let command: SessionCommand
    private let admission: AdmissionControl
    private let registry = SessionRegistry()
    private let group: MultiThreadedEventLoopGroup
    private let listener = Mutex<Channel?>(nil)
    private let joinListener = Mutex<OpenSSHJoinListener?>(nil)
    private let log: @Sendable (String) -> Void
    private let refusals: RefusalLogThrottle

    public init(
        hostKey: HostKey, limits: ServeLimits, command: SessionCommand, threads: Int = System.coreCount, log: @escaping @Sendable (String) -> Void
    ) {
        self.hostKey = hostKey
        self.command = command
        self.admission = AdmissionControl(limits: limits)
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
        self.log = log
        self.refusals = RefusalLogThrottle(write: log)
    }

    /// Binds and starts accepting; returns the address actually bound (port 0 picks a free one).
    public func start(host: String, port: Int) async throws -> SocketAddress {
        let hostKey = hostKey.sshKey
        let admission = admission
        let registry = registry
        let command = command
        let terminalTypes = TerminalTypes.host(environment: command.environment)
        let log = log
        let refusals = refusals
        let allowance = admission.limits.allowance
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { connection in
                let peer = connection.remoteAddress?.ipAddress ?? "unknown"
                if let refusal = admission.admitConnection(from: peer, at: .now) {
                    refusals.log("refused a connection", "refused a connection from \(peer): \(refusal)")
                    return connection.eventLoop.makeCompletedFuture {
                        try connection.pipeline.syncOperations.addHandler(RefuseConnectionHandler(reason: "storefront: \(refusal)"))
                    }
                }
                let identity = ConnectionIdentity()
                // A connection that has not started the shop within a minute (no key proven, or only
                // tunnels asked for) is let go, as sshd's LoginGraceTime: it would hold a socket for nothing.
                connection.eventLoop.scheduleTask(in: .seconds(60)) {
                    guard !identity.hasStartedSession, connection.isActive else { return }
                    log("closed a connection from \(peer) that started no session within 60s")
                    connection.close(promise: nil)
                }
                let budget = ConnectionBudget(allowance)
                let context = SessionContext(
                    command: command, terminalTypes: terminalTypes, admission: admission, registry: registry, identity: identity, peer: peer,
                    log: log,
                    budget: budget, allowance: allowance, refusals: refusals
                )
                return connection.eventLoop.makeCompletedFuture {
                    let ssh = NIOSSHHandler(
                        role: .server(
                            .init(
                                hostKeys: [hostKey],
                                userAuthDelegate: PublicKeyIdentityDelegate(
                                    identity: identity, peer: peer, allowsGuests: admission.limits.maxGuests > 0, log: log),
                                banner: .init(message: StorefrontSSHServer.banner(allowsGuests: admission.limits.maxGuests > 0), languageTag: "en")
                            )),
                        allocator: connection.allocator,
                        inboundChildChannelInitializer: { child, type in
                            let spent = budget.take(.channel)
                            guard spent.allowed else {
                                if spent.firstRefusal {
                                    refusals.log("flood", "closed the connection from \(peer): more than \(allowance.channels) channels")
                                }
                                connection.close(promise: nil)
                                return child.eventLoop.makeFailedFuture(ServeError.channelTypeRefused)
                            }
                            guard case .session = type else {
                                refusals.log("refused port forwarding", "refused port forwarding from \(peer)")
                                return child.eventLoop.makeFailedFuture(ServeError.channelTypeRefused)
                            }
                            return child.eventLoop.makeCompletedFuture {
                                try child.pipeline.syncOperations.addHandler(SessionChannelHandler(context: context))
                            }
                        }
                    )
                    try connection.pipeline.syncOperations.addHandler(UnprovenKeyLogger(peer: peer, identity: identity, log: log))
                    try connection.pipeline.syncOperations.addHandler(QuickAckHandler(), name: QuickAckHandler.name)
                    try connection.pipeline.syncOperations.addHandlers([ssh, ConnectionErrorHandler(peer: peer, identity: identity, log: log)])
                }
            }
            .bind(host: host, port: port)
            .get()
        listener.withLock { $0 = channel }
        guard let address = channel.localAddress else { throw ServeError.notBound }
        return address
    }

    /// Sessions open now.
    public var openSessions: Int { admission.openSessions }

    /// Also takes the sessions the system's OpenSSH hands over at `path` (`storefront sshd-session --join PATH`) into
    /// this server's workers, counted against its limits and drained with its own. Throws with the reason.
    public func openJoinSocket(path: String) throws {
        let context = JoinContext(
            path: path, command: command, terminalTypes: TerminalTypes.host(environment: command.environment), admission: admission,
            registry: registry, log: log, refusals: refusals)
        let joins = OpenSSHJoinListener(path: path, context: context)
        try joins.start()
        joinListener.withLock { $0 = joins }
        log("taking OpenSSH's sessions at \(path)")
    }

    /// New limits for sessions and connections from now on; the flood allowance stays as started.
    public func update(_ limits: ServeLimits) {
        var limits = limits
        limits.allowance = admission.limits.allowance
        admission.update(limits)
    }

    /// Stops accepting, asks every session to end (each client reads why), waits up to the drain
    /// timeout, then kills what is left. Returns how many sessions had to be killed.
    @discardableResult
    public func drain() async -> Int {
        admission.startDraining()
        let channel = listener.withLock { $0 }
        try? await channel?.close()
        joinListener.withLock { $0 }?.stop()
        let open = registry.handles
        log("draining: \(open.count) open session\(open.count == 1 ? "" : "s")")
        for handle in open { handle.end(.shutdown) }
        let loop = group.next()
        guard await !registry.waitUntilEmpty(timeout: admission.limits.drainTimeout, on: loop) else { return 0 }
        let left = registry.handles
        for handle in left { handle.kill() }
        // SIGKILL cannot be ignored; the bound only guards against a process stuck in the kernel.
        _ = await registry.waitUntilEmpty(timeout: .seconds(5), on: loop)
        return left.count
    }

    /// Closes every connection and stops the event loops.
    public func shutdown() async throws {
        try await group.shutdownGracefully()
    }
}

/// Why the server could not do what was asked.
public enum ServeError: Error, CustomStringConvertible {
    case notBound
    case channelTypeRefused

    public var description: String {
        switch self {
        case .notBound: return "the listening socket has no address"
        case .channelTypeRefused: return "storefront offers sessions only: no port forwarding"
        }
    }
}

extension StorefrontSSHServer {
    /// What a client shows before it signs in: how to get in, so a client with only RSA keys (which this server does
    /// not take) reads more than "Permission denied".
    static func banner(allowsGuests: Bool) -> String {
        var lines = [
            "Storefront: your SSH key is your account. This server takes Ed25519 and ECDSA keys (not RSA);",
            "make one with: ssh-keygen -t ed25519",
        ]
        if allowsGuests { lines.append("Or shop as a guest, keeping nothing: ssh -p PORT guest@HOST") }
        lines.append("A shop behind OpenSSH (storefront sshd-config) takes every key type OpenSSH does.")
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension ConnectionIdentity: LiveObject {}
extension StorefrontSSHServer: LiveObject {}
