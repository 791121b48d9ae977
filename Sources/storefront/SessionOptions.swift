import ArgumentParser
import Foundation
import PseudoTerminal
import ShopCommands

/// `--sandbox-latency-ms`: how long each sandbox payment call takes, in `run` and `api`, and in each session of a server.
struct SandboxLatencyOption: ParsableArguments {
    @Option(
        name: .customLong("sandbox-latency-ms"),
        help: ArgumentHelp(
            "How long each sandbox payment call takes, to show progress (run's default: 300; a server's sessions take it).", valueName: "ms"))
    var milliseconds: Int?

    func validate() throws {
        if let milliseconds, !(0...60_000).contains(milliseconds) {
            throw ValidationError("--sandbox-latency-ms must be between 0 and 60000")
        }
    }
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

    @Option(
        name: .customLong("sessions-per-worker"),
        help: ArgumentHelp(
            "With fork: sessions each worker process holds (default \(WorkerPolicy.defaultSessionsPerWorker)); 1 gives each session a process of its own. Env: STOREFRONT_SESSIONS_PER_WORKER.",
            valueName: "n"))
    var sessionsPerWorker: Int?

    @Option(
        name: .customLong("worker-recycle-after"),
        help: ArgumentHelp("A worker takes no new session after this many, and ends after its last (default 1000).", valueName: "n"))
    var recycleAfterSessions = 1_000

    @Option(
        name: .customLong("worker-lifetime"),
        help: ArgumentHelp("Nor after this long: 30m, 6h (default 6h).", valueName: "duration"),
        transform: Arguments.duration("--worker-lifetime", examples: "30m or 6h"))
    var workerLifetime = Duration.seconds(6 * 3600)

    func validate() throws {
        if let sessionsPerWorker, !(1...1_000).contains(sessionsPerWorker) {
            throw ValidationError("--sessions-per-worker must be between 1 and 1000")
        }
        guard recycleAfterSessions >= 1 else { throw ValidationError("--worker-recycle-after must be at least 1") }
        if start == .exec, let sessionsPerWorker, sessionsPerWorker > 1 {
            // exec starts a new program per session; only forks of the host share workers.
            throw ValidationError("--sessions-per-worker needs --session-start fork (exec starts a program per session)")
        }
    }

    /// The policy the flags give, over `STOREFRONT_SESSIONS_PER_WORKER` (the variable `up`'s `[sessions] per-worker` has).
    func workers(environment: [String: String]) throws -> WorkerPolicy {
        var perWorker = sessionsPerWorker ?? WorkerPolicy.defaultSessionsPerWorker
        if sessionsPerWorker == nil, let value = environment["STOREFRONT_SESSIONS_PER_WORKER"] {
            guard let number = Int(value), (1...1_000).contains(number) else {
                throw ValidationError("STOREFRONT_SESSIONS_PER_WORKER must be a number from 1 to 1000, not \"\(value)\"")
            }
            perWorker = number
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
/// `serve` and `web`.
struct SessionTimeOptions: ParsableArguments {
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Close a session after this long without a key: 90s, 15m, 2h (default: 15m).", valueName: "duration"),
        transform: Arguments.duration("--idle-timeout", examples: "90s, 15m or 2h"))
    var idleTimeout = Duration.seconds(15 * 60)

    @Option(
        name: .customLong("drain-timeout"),
        help: ArgumentHelp("How long SIGTERM waits for sessions to end before ending them (default: 10s).", valueName: "duration"),
        transform: Arguments.duration("--drain-timeout", examples: "10s or 1m"))
    var drainTimeout = Duration.seconds(10)

    @Option(name: .customLong("connections-per-minute"), help: ArgumentHelp("Sessions one address may open in any minute.", valueName: "n"))
    var connectionsPerMinute = 30
}

/// How many guests (no key) the host and one address may have at once: `serve`, `sshd-config` and `sshd-session`.
struct GuestLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("max-guests"),
        help: ArgumentHelp("Guest sessions (no key) open at once on this host, beside key holders' (default 16).", valueName: "n"))
    var maxGuests = 16

    @Option(name: .customLong("guests-per-address"), help: ArgumentHelp("Guest sessions one address may hold at once (default 2).", valueName: "n"))
    var guestsPerAddress = 2

    var limits: OpenSSHSession.GuestLimits { OpenSSHSession.GuestLimits(maxGuests: maxGuests, guestsPerAddress: guestsPerAddress) }
}
