import ArgumentParser
import Foundation
import PseudoTerminal
import ShopCommands

/// `--sandbox-latency-ms`: how long each sandbox payment call takes, in `run` and `api`, and in each session of a server.
struct SandboxLatencyOption: ParsableArguments {
    @Option(setting: "shop.sandbox-latency-ms", as: SettingValue.number) var milliseconds: Int?
}

extension ServerSessions.Start: ExpressibleByArgument {}

/// `--session-start` on a server: whether sessions are forks of a pre-started host (the default) or new programs.
struct SessionStartOption: ParsableArguments {
    @Option(
        name: .customLong("session-start"),
        help: ArgumentHelp(
            "How a session's process starts: fork (from a session host started once; the default) or exec (a new program each time).",
            valueName: "fork|exec"))
    var start: ServerSessions.Start = .fork

    @Option(setting: "sessions.per-worker", as: SettingValue.number) var sessionsPerWorker: Int?
    @Option(defaultOf: "sessions.worker-recycle-after", as: SettingValue.number) var recycleAfterSessions: Int
    @Option(defaultOf: "sessions.worker-lifetime", as: SettingValue.duration) var workerLifetime: Duration

    func validate() throws {
        if start == .exec, let sessionsPerWorker, sessionsPerWorker > 1 {
            // exec starts a new program per session; only forks of the host share workers.
            throw ValidationError("--sessions-per-worker needs --session-start fork (exec starts a program per session)")
        }
    }

    /// The policy the flags give, over `STOREFRONT_SESSIONS_PER_WORKER` (the variable `up`'s `[sessions] per-worker` has).
    func workers(environment: [String: String]) throws -> WorkerPolicy {
        var perWorker = sessionsPerWorker ?? WorkerPolicy.defaultSessionsPerWorker
        let key = ServiceKey["sessions.per-worker"]
        if sessionsPerWorker == nil, let value = environment[key.environment] {
            if let problem = key.problem(value, label: key.environment) { throw ValidationError(problem) }
            perWorker = ServiceKey.wholeNumber(value) ?? perWorker
        }
        return WorkerPolicy(
            sessionsPerWorker: start == .exec ? 1 : perWorker, recycleAfterSessions: recycleAfterSessions, recycleAfter: workerLifetime)
    }
}

extension ShopOptions {
    /// What a server takes beside its own options.
    func serverStart(
        mail: MailSettings, latency: SandboxLatencyOption, sessions: SessionStartOption,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws
        -> ServerStart
    {
        var start = ServerStart(
            configuration: try configuration(), migrate: !noMigrate, mail: mail.choice,
            sandboxLatencyMilliseconds: latency.milliseconds, sessionStart: sessions.start)
        start.workers = try sessions.workers(environment: environment)
        return start
    }
}

/// How long a server's sessions may idle, how long a stop waits for them, and how fast one address may open them:
/// `serve` and `web` (whose defaults are the same as the SSH front's).
struct SessionTimeOptions: ParsableArguments {
    @Option(defaultOf: "ssh.idle-timeout", as: SettingValue.duration) var idleTimeout: Duration
    @Option(defaultOf: "ssh.drain-timeout", as: SettingValue.duration) var drainTimeout: Duration
    @Option(defaultOf: "ssh.connections-per-minute", as: SettingValue.number) var connectionsPerMinute: Int
}

/// How many guests (no key) the host and one address may have at once: `serve`, `sshd-config` and `sshd-session`.
struct GuestLimitOptions: ParsableArguments {
    @Option(defaultOf: "ssh.max-guests", as: SettingValue.number) var maxGuests: Int
    @Option(defaultOf: "ssh.guests-per-address", as: SettingValue.number) var guestsPerAddress: Int

    var limits: OpenSSHSession.GuestLimits { OpenSSHSession.GuestLimits(maxGuests: maxGuests, guestsPerAddress: guestsPerAddress) }
}
