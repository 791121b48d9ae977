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
    @Option(setting: "sessions.worker-recycle-after", as: SettingValue.text) var recycleAfterSessions: String?
    @Option(setting: "sessions.worker-lifetime", as: SettingValue.text) var workerLifetime: String?

    func validate() throws {
        if start == .exec, let sessionsPerWorker, sessionsPerWorker > 1 {
            // exec starts a new program per session; only forks of the host share workers.
            throw ValidationError("--sessions-per-worker needs --session-start fork (exec starts a program per session)")
        }
    }

    /// The flags given, as settings over the config file's `[sessions]` and the environment's.
    var given: [(setting: String, value: String?)] {
        [
            ("sessions.per-worker", sessionsPerWorker.map(String.init)), ("sessions.worker-recycle-after", recycleAfterSessions),
            ("sessions.worker-lifetime", workerLifetime),
        ]
    }
}

extension ShopOptions {
    /// What a server takes beside its own options.
    func serverStart(
        mail: MailSettings, latency: SandboxLatencyOption, sessions: SessionStartOption, settings: ServiceConfiguration
    ) throws
        -> ServerStart
    {
        var start = ServerStart(
            configuration: try configuration(settings: settings), migrate: !noMigrate, mail: mail.choice,
            sandboxLatencyMilliseconds: latency.milliseconds, sessionStart: sessions.start)
        start.workers = settings.workers
        // exec starts a new program for each session: no worker holds two.
        if sessions.start == .exec { start.workers.sessionsPerWorker = 1 }
        return start
    }
}

/// How many guests (no key) the host and one address may have at once: `serve`, `sshd-config` and `sshd-session`.
struct GuestLimitOptions: ParsableArguments {
    @Option(setting: "ssh.max-guests", as: SettingValue.number) var maxGuests: Int?
    @Option(setting: "ssh.guests-per-address", as: SettingValue.number) var guestsPerAddress: Int?

    /// The limits given, the table's defaults for the rest (`sshd-config`, `sshd-session`).
    var limits: OpenSSHSession.GuestLimits {
        func number(_ value: Int?, _ setting: String) -> Int { value ?? ServiceKey[setting].defaultValue.flatMap(ServiceKey.wholeNumber) ?? 0 }
        return OpenSSHSession.GuestLimits(
            maxGuests: number(maxGuests, "ssh.max-guests"), guestsPerAddress: number(guestsPerAddress, "ssh.guests-per-address"))
    }

    /// The flags given, as the SSH front's settings (`serve`).
    var given: [(setting: String, value: String?)] {
        [("ssh.max-guests", maxGuests.map(String.init)), ("ssh.guests-per-address", guestsPerAddress.map(String.init))]
    }
}
