import Crypto
import Foundation
import LiveObjects
import NIOCore
import NIOPosix
import NIOSSH

/// An SSH client written for abuse tests: one connection that asks for whatever a hostile client would
/// (hundreds of channels, huge exec commands), which the OpenSSH client will not do on one connection.
///
/// Order of calls: `connect` (key exchange, a fresh Ed25519 key proven) → `flood` → `close`.
final class SSHFloodClient {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var connection: Channel?

    /// Connects to `port` on loopback as `user` with a new key; the server's host key is not checked.
    func connect(port: Int, user: String = "flood") async throws {
        let key = NIOSSHPrivateKey(ed25519Key: Curve25519.Signing.PrivateKey())
        connection = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let ssh = NIOSSHHandler(
                        role: .client(.init(userAuthDelegate: OneKeyOffer(user: user, key: key), serverAuthDelegate: AnyHostKey())),
                        allocator: channel.allocator, inboundChildChannelInitializer: nil
                    )
                    try channel.pipeline.syncOperations.addHandler(ssh)
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
    }

    /// Opens up to `channels` session channels one after another, each sending an exec request for `command`;
    /// stops when the server refuses a channel or closes the connection. Returns how many were opened.
    func flood(channels: Int, command: String) async -> Int {
        guard let connection else { return 0 }
        var opened = 0
        for _ in 0..<channels {
            guard let child = try? await Self.sessionChannel(on: connection) else { break }
            opened += 1
            child.triggerUserOutboundEvent(SSHChannelRequestEvent.ExecRequest(command: command, wantReply: false), promise: nil)
        }
        return opened
    }

    /// Opens a session channel with a pty of `columns` x `rows` and asks for the shell: the shop starts.
    func openShell(columns: Int, rows: Int) async throws -> Channel {
        guard let connection else { throw ChannelError.ioOnClosedChannel }
        let child = try await Self.sessionChannel(on: connection)
        let terminal = SSHChannelRequestEvent.PseudoTerminalRequest(
            wantReply: true, term: "xterm-256color", terminalCharacterWidth: columns, terminalRowHeight: rows,
            terminalPixelWidth: 0, terminalPixelHeight: 0, terminalModes: SSHTerminalModes([:])
        )
        try await child.triggerUserOutboundEvent(terminal).get()
        try await child.triggerUserOutboundEvent(SSHChannelRequestEvent.ShellRequest(wantReply: true)).get()
        return child
    }

    /// Tells the server the client's window is now `columns` x `rows`.
    func resize(_ channel: Channel, columns: Int, rows: Int) async throws {
        let change = SSHChannelRequestEvent.WindowChangeRequest(
            terminalCharacterWidth: columns, terminalRowHeight: rows, terminalPixelWidth: 0, terminalPixelHeight: 0)
        try await channel.triggerUserOutboundEvent(change).get()
    }

    /// A new session channel on `connection`, opened on its event loop as swift-nio-ssh requires.
    private static func sessionChannel(on connection: Channel) async throws -> Channel {
        let promise = connection.eventLoop.makePromise(of: Channel.self)
        connection.eventLoop.execute {
            do {
                let ssh = try connection.pipeline.syncOperations.handler(type: NIOSSHHandler.self)
                ssh.createChannel(promise, channelType: .session) { child, _ in child.eventLoop.makeSucceededVoidFuture() }
            } catch {
                promise.fail(error)
            }
        }
        return try await promise.futureResult.get()
    }

    /// Waits until the server has closed the connection.
    func closedByServer() async {
        try? await connection?.closeFuture.get()
    }

    func close() async {
        try? await connection?.close()
        try? await group.shutdownGracefully()
    }
}

private final class OneKeyOffer: NIOSSHClientUserAuthenticationDelegate, LiveObject {
    private let user: String
    private let key: NIOSSHPrivateKey
    private var offered = false

    init(user: String, key: NIOSSHPrivateKey) {
        self.user = user
        self.key = key
    }

    func nextAuthenticationType(
        availableMethods: NIOSSHAvailableUserAuthenticationMethods, nextChallengePromise: EventLoopPromise<NIOSSHUserAuthenticationOffer?>
    ) {
        guard !offered, availableMethods.contains(.publicKey) else { return nextChallengePromise.succeed(nil) }
        offered = true
        nextChallengePromise.succeed(NIOSSHUserAuthenticationOffer(username: user, serviceName: "", offer: .privateKey(.init(privateKey: key))))
    }
}

private final class AnyHostKey: NIOSSHClientServerAuthenticationDelegate, LiveObject {
    func validateHostKey(hostKey: NIOSSHPublicKey, validationCompletePromise: EventLoopPromise<Void>) {
        validationCompletePromise.succeed(())
    }
}

extension SSHFloodClient: LiveObject {}
