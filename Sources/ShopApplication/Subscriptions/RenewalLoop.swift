import Foundation
import ShopPorts

/// The renewal worker beside a shop (`serve`) or on its own (`storefront subscriptions-worker`): a pass over the due
/// subscriptions at once, then one every `interval`, until stopped; then one last pass.
///
/// Order of calls: `start` → passes run → `stop`.
public struct RenewalLoop: Sendable {
    private let passes: RecurringPass

    public static func start(
        _ worker: RenewalWorker, every interval: Duration, now: @escaping @Sendable () async -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void
    ) -> RenewalLoop {
        RenewalLoop(passes: RecurringPass(ticks: .ticks(every: interval)) { await pass(worker, at: await now(), log: log) })
    }

    public func stop(lastPass: Duration = .seconds(5)) async {
        await passes.stop(lastPass: lastPass)
    }

    /// One pass, its outcome logged in a line when it did anything; the shop's storage failing is logged, not thrown.
    public static func pass(_ worker: RenewalWorker, at now: Date, log: @Sendable (String) -> Void) async {
        do {
            let pass = try await worker.pass(at: now)
            if let line = line(pass) { log(line) }
        } catch {
            log("cannot read the subscriptions: \(error)")
        }
    }

    /// "renewed 3, skipped 1, failed 1, ended 0, left for later 0, reminded 2"; nil when nothing was due.
    public static func line(_ pass: RenewalWorker.Pass) -> String? {
        guard pass.claimed > 0 || !pass.reminded.isEmpty else { return nil }
        return "renewed \(pass.renewed.count), skipped \(pass.skipped.count), failed \(pass.failed.count), ended \(pass.ended.count), "
            + "left for later \(pass.leftForLater.count), reminded \(pass.reminded.count)"
    }
}
