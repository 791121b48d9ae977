import Foundation
import Logging
import ServiceLifecycle
import ShopMetrics
import Synchronization
import UnixSignals

/// Waits for the group's graceful shutdown (SIGTERM, SIGINT), then runs `stop`: a front's drain, a listener's close.
struct StopOnShutdown: Service {
    let stop: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await stop()
    }
}

/// A worker's passes, one every `interval`, until shutdown; a pass that fails is logged and the worker tried again
/// after a back-off that doubles from `interval` up to `maxBackOff`, and comes back to `interval` once a pass works.
struct SupervisedWorker: Service {
    let name: String
    let interval: Duration
    var maxBackOff = Duration.seconds(300)
    /// One pass: its lines for the log; a throw is the worker failing.
    let pass: @Sendable () async throws -> [String]
    let log: @Sendable (String, Logger.Level) -> Void
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    func run() async throws {
        var failures = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                // Shutdown cancels a pass in flight: a mail command is killed, and its message stays due in the outbox.
                let lines = try await cancelWhenGracefulShutdown { try await pass() }
                for line in lines { log("\(name): \(line)", .info) }
                failures = 0
            } catch is CancellationError {
                return
            } catch {
                failures += 1
                ShopMetrics.count(ShopMetrics.workerFailures, [("worker", name)])
                let wait = delay(after: failures)
                log("\(name): failed (\(failures) in a row): \(error); trying again in \(Self.describe(wait))", .warning)
            }
            let wait = delay(after: failures)
            do { try await cancelWhenGracefulShutdown { try await sleep(wait) } } catch { return }
        }
    }

    /// `interval` after a pass that worked; doubled for each failure in a row, up to `maxBackOff`.
    func delay(after failures: Int) -> Duration {
        guard failures > 0 else { return interval }
        var delay = interval
        for _ in 0..<min(failures, 30) where delay < maxBackOff { delay *= 2 }
        return min(delay, maxBackOff)
    }

    static func describe(_ duration: Duration) -> String { "\(duration.components.seconds) s" }
}

/// Runs `reload` on every SIGHUP until shutdown, and once at once for a SIGHUP that came while `up` was starting.
struct ReloadOnHangUp: Service {
    let reload: @Sendable () async -> Void

    func run() async throws {
        let hangUps = await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown()
        // Taken over now: one that came before, while starting, is answered once.
        if EarlyHangUps.takeQueued() { await reload() }
        for await _ in hangUps {
            await reload()
        }
    }
}

/// SIGHUP from `up`'s first instruction until it is ready: noted, never the default action (which ends the process
/// with 129, and systemd, whose reload sends it, does not restart a unit that died of it). Once `up` runs, the reload
/// service takes the signal over and answers a noted one once.
public enum EarlyHangUps {
    private static let noted = Atomic<Bool>(false)

    /// Call first thing in `main` when the command is `up`.
    public static func queueUntilReady() {
        signal(SIGHUP) { _ in EarlyHangUps.noted.store(true, ordering: .relaxed) }
    }

    /// Whether a SIGHUP came since `queueUntilReady`; forgets it.
    static func takeQueued() -> Bool { noted.exchange(false, ordering: .relaxed) }
}
