import ArgumentParser
import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopSSH
import ShopServices
import ShopSessions
import ShopStripe
import SystemPackage

/// `--sandbox-latency-ms` on a server, handed on to every session it starts.
struct SessionLatencyOption: ParsableArguments {
    @Option(
        name: .customLong("sandbox-latency-ms"),
        help: ArgumentHelp("Passed to each session: how long each sandbox payment call takes.", valueName: "ms"))
    var milliseconds: Int?

    func validate() throws {
        if let milliseconds, !(0...60_000).contains(milliseconds) {
            throw ValidationError("--sandbox-latency-ms must be between 0 and 60000")
        }
    }

    /// The environment every session of this server starts with (`SessionLaunch.shop`); a Stripe key Stripe refuses,
    /// or cannot be asked about, is told and ends the server.
    func sessionEnvironment(configuration: ShopConfiguration, dataDirectory: FilePath, environment: [String: String]) async throws
        -> [String: String]
    {
        do throws(ServiceStartFailure) {
            return try await SessionLaunch.shop(
                configuration: configuration, dataDirectory: dataDirectory, latencyMilliseconds: milliseconds, environment: environment,
                log: announce)
        } catch { throw error.told() }
    }
}

/// `--session-start` on a server: whether sessions are forks of a pre-started host (the default) or new programs.
struct SessionStartOption: ParsableArguments {
    enum Start: String, ExpressibleByArgument, CaseIterable {
        /// Each session a fork of one pre-initialised session host: its pages shared, its start a fork.
        case fork
        /// Each session a new `storefront run` program, as before the host.
        case exec
    }

    @Option(
        name: .customLong("session-start"),
        help: ArgumentHelp(
            "How a session's process starts: fork (from a session host started once; the default) or exec (a new program each time).",
            valueName: "fork|exec"))
    var start: Start = .fork

    /// The session host for `fork`, started now from this very program to prepare `arguments` (the shop's session
    /// command line); nil for `exec`.
    func host(preparing arguments: [String], environment: [String: String]) throws -> SessionHostClient? {
        guard start == .fork else { return nil }
        do {
            let host = try SessionHostClient.start(executable: thisExecutable(), arguments: arguments, environment: environment) { announce($0) }
            announce("sessions: forked from a session host, pid \(host.hostPID.map(String.init) ?? "?")")
            return host
        } catch {
            complain("cannot start the session host: \(error); --session-start exec starts each session as a new program instead")
            throw ExitCodes.systemError
        }
    }
}
