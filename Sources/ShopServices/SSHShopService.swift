import Foundation
import NIOCore
import ShopBootstrap
import ShopSSH
import ShopSessions
import SystemPackage

/// What `storefront serve` listens with, besides its sessions' command.
public struct SSHShopSettings: Sendable {
    public var host: String
    public var port: Int
    /// The Ed25519 host key, made (mode 0600) on the first start.
    public var hostKeyPath: FilePath
    public var limits: ServeLimits
    /// Where the system's OpenSSH hands its sessions over to this server's workers (`sshd-session --join`), if anywhere.
    public var joinSocket: String?

    public init(host: String, port: Int, hostKeyPath: FilePath, limits: ServeLimits, joinSocket: String? = nil) {
        self.joinSocket = joinSocket
        self.host = host
        self.port = port
        self.hostKeyPath = hostKeyPath
        self.limits = limits
    }
}

/// The shop over SSH: one session process per shopper, run by `command`. What `storefront serve` runs.
///
/// Order of calls: `start` (the host key read or made, then bound, or refused) → it serves → `drain` → `shutdown`.
public enum SSHShopService {
    public static func start(
        _ settings: SSHShopSettings, command: SessionCommand, log: @escaping @Sendable (String) -> Void
    ) async throws(ServiceStartFailure) -> RunningSSHShop {
        let key: HostKey
        do {
            let (loaded, created) = try HostKey.loadOrCreate(at: settings.hostKeyPath)
            key = loaded
            log(created ? "created host key \(settings.hostKeyPath) (mode 0600)" : "host key \(settings.hostKeyPath)")
        } catch let error as HostKeyError {
            if case .cannotWrite = error { throw ServiceStartFailure(.cannotCreate, "\(error)") }
            throw ServiceStartFailure(.configuration, "\(error)")
        } catch {
            throw ServiceStartFailure(.configuration, "\(error)")
        }
        let server = StorefrontSSHServer(hostKey: key, limits: settings.limits, command: command, log: log)
        let address: SocketAddress
        do {
            address = try await server.start(host: settings.host, port: settings.port)
        } catch {
            try? await server.shutdown()
            throw ServiceStartFailure(.cannotListen, "cannot listen on \(settings.host):\(settings.port): \(error)")
        }
        if let path = settings.joinSocket {
            guard command.host.map({ $0.sessionsPerWorker > 1 }) ?? false else {
                try? await server.shutdown()
                throw ServiceStartFailure(
                    .configuration, "a join socket needs sessions in workers: --sessions-per-worker over 1 and --session-start fork")
            }
            do {
                try server.openJoinSocket(path: path)
            } catch {
                try? await server.shutdown()
                throw ServiceStartFailure(.cannotListen, "cannot take OpenSSH's sessions at \(path): \(error)")
            }
        }
        log("host key fingerprint \(key.fingerprint)")
        let port = address.port ?? settings.port
        log("listening on \(address.ipAddress ?? settings.host):\(port); connect with: ssh -p \(port) HOST")
        return RunningSSHShop(server: server)
    }
}

/// The SSH shop while it serves.
public struct RunningSSHShop: Sendable {
    let server: StorefrontSSHServer

    public var openSessions: Int { server.openSessions }

    /// New limits for what starts from now on: open sessions are kept.
    public func update(_ limits: ServeLimits) { server.update(limits) }

    /// Takes no new connection, tells the open sessions, and waits for them; returns how many were killed at the end.
    public func drain() async -> Int { await server.drain() }

    public func shutdown() async throws { try await server.shutdown() }
}

extension SSHShopSettings {
    /// What is out of bounds, if anything, named as `serve`'s options: checked before any number is used.
    public var problem: String? { Self.problem(port: port, limits: limits) }

    /// The same, before there are settings: `serve` checks its options before it knows the data directory, and so
    /// the host key's path.
    public static func problem(port: Int, limits: ServeLimits) -> String? {
        if !(0...65_535).contains(port) { return "--port must be between 0 and 65535, not \(port)" }
        if !(1...10_000).contains(limits.maxSessions) { return "--max-sessions must be between 1 and 10000, not \(limits.maxSessions)" }
        if !(0...10_000).contains(limits.maxGuests) { return "--max-guests must be between 0 and 10000, not \(limits.maxGuests)" }
        if !(1...1_000).contains(limits.guestsPerAddress) {
            return "--guests-per-address must be between 1 and 1000, not \(limits.guestsPerAddress)"
        }
        if limits.connectionsPerSourcePerMinute < 1 { return "--connections-per-minute must be at least 1" }
        return nil
    }
}
