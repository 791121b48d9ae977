import ArgumentParser
import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopSSH
import ShopSessions
import ShopStripe
import SystemPackage

/// How a server (`serve`, `web`) starts the shop for one session: the command line and environment each session
/// process gets, made once from the server's own configuration.
enum SessionLaunch {
    /// The environment every session starts with, holding the server's configuration as `SessionSettings` (its paths
    /// made absolute, One-Tap and the sandbox's latency put in); checks a Stripe key first.
    static func shop(
        configuration: ShopConfiguration, dataDirectory: FilePath, latencyMilliseconds: Int?, environment: [String: String]
    ) async throws -> [String: String] {
        var settings = configuration
        settings.dataDirectory = dataDirectory
        settings.catalog = configuration.catalog.map(absolute)
        settings.stripeSecretKeyFile = configuration.stripeSecretKeyFile.map(absolute)
        if let latencyMilliseconds { settings.sandboxLatencyMilliseconds = latencyMilliseconds }
        // The key itself reaches a session only through the environment it inherits, never its settings.
        if configuration.payments == .stripe { try await checkStripe(configuration: configuration, environment: environment) }
        var sessionEnvironment = environment
        // The schema is this process's to migrate; sessions only check it.
        sessionEnvironment[SessionSettings.variable] = SessionSettings(configuration: settings, migrates: configuration.database == nil).encoded()
        // A session's terminal is the client's, described by its pty request, never the server's.
        // The server sends the shoppers' mail itself (one worker), so sessions are given no mail command.
        for name in [
            "TERM", "COLUMNS", "LINES", "NO_COLOR", "COLORFGBG", "TMUX", "TMUX_PANE", "STY", SessionCommand.fingerprintVariable,
            SessionCommand.guestVariable, SessionCommand.browserGuestVariable, SessionCommand.sandboxSignInVariable, "STOREFRONT_MAIL_COMMAND",
        ] { sessionEnvironment[name] = nil }
        SessionCommand.setLocale(&sessionEnvironment)
        return sessionEnvironment
    }

    /// Asks Stripe once, before any shopper connects, whether it takes the key; exits with the reason if not.
    private static func checkStripe(configuration: ShopConfiguration, environment: [String: String]) async throws {
        let settings = try StripeSettings.load(configuration: configuration, environment: environment)
        let client = StripeClient(key: settings.key, base: settings.base, retry: .init(retries: 0))
        let answer: Result<Void, StripeFailure>
        do {
            try await client.verifyKey()
            answer = .success(())
        } catch { answer = .failure(error) }
        try? await client.shutdown()
        switch answer {
        case .success:
            announce("payments: Stripe, \(settings.key.mode.label), at \(settings.base)")
        case .failure(.refused(let status, let error)):
            complain(
                "Stripe refused the secret key (\(status)): \(error.message ?? "no reason given"); check \(StripeSettings.keyVariable) or stripe-secret-key-file"
            )
            throw ExitCodes.configError
        case .failure(let error):
            complain("cannot reach Stripe at \(settings.base) to check the secret key: \(error)")
            throw ExitCodes.cannotListen
        }
    }

    /// Each session holds a socket and two pty descriptors: lift the soft limit to the hard one so
    /// `--max-sessions` is not silently capped by a default of 1024.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    static func absolute(_ path: FilePath) -> FilePath {
        path.isAbsolute ? path : FilePath(FileManager.default.currentDirectoryPath).pushing(path)
    }
}

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
