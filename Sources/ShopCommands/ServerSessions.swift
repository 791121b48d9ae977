import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopServices
import ShopSessions
import SystemPackage

/// How a server (`serve`, `web`) starts its sessions: the environment each gets, and where their processes come from.
public enum ServerSessions {
    /// Whether a session's process is a fork of a pre-started host (the default) or a new program.
    public enum Start: String, CaseIterable, Sendable {
        /// Each session a fork of one pre-initialised session host: its pages shared, its start a fork.
        case fork
        /// Each session a new `storefront run` program, as before the host.
        case exec
    }

    /// The environment every session of this server starts with (`SessionLaunch.shop`); a Stripe key Stripe refuses,
    /// or cannot be asked about, is told and ends the server.
    public static func environment(
        configuration: ShopConfiguration, dataDirectory: FilePath, latencyMilliseconds: Int?, codeMail: CodeMailSettings? = nil,
        openID: TerminalOpenIDSettings? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> [String: String] {
        do throws(ServiceStartFailure) {
            return try await SessionLaunch.shop(
                configuration: configuration, dataDirectory: dataDirectory, latencyMilliseconds: latencyMilliseconds, environment: environment,
                codeMail: codeMail, openID: openID, log: announce)
        } catch { throw error.told() }
    }

    /// The session host for `fork`, started now from this very program to prepare `arguments` (the shop's session
    /// command line); nil for `exec`. A host that cannot start is told and exits 71.
    public static func host(
        _ start: Start, preparing arguments: [String], workers: WorkerPolicy = .processPerSession,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> SessionHostClient? {
        guard start == .fork else { return nil }
        do {
            let host = try SessionHostClient.start(executable: thisExecutable(), arguments: arguments, environment: environment, workers: workers) {
                announce($0)
            }
            let shared =
                workers.sessionsPerWorker > 1
                ? ", up to \(workers.sessionsPerWorker) in each worker process (recycled after \(workers.recycleAfterSessions) sessions or \(ServeDuration.describe(workers.recycleAfter)))"
                : ", a process each"
            announce("sessions: forked from a session host, pid \(host.hostPID.map(String.init) ?? "?")\(shared)")
            return host
        } catch {
            complain("cannot start the session host: \(error); --session-start exec starts each session as a new program instead")
            throw ExitCodes.systemError
        }
    }

    /// The line a server logs when a signal starts its drain.
    static func drainLine(_ signal: Int32, open: Int, for timeout: Duration) -> String {
        "\(signalName(signal)): draining \(open) session\(open == 1 ? "" : "s") for up to \(ServeDuration.describe(timeout))"
    }
}
