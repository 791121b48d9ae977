import Foundation
import MerchantReports
import PseudoTerminal
import ShopApplication
import ShopBootstrap
import ShopModels
import ShopPorts
import ShopServices

/// `storefront subscriptions-worker`: the subscriptions' renewals on their own, beside any number of shops on the
/// same database (docs/subscriptions.md).
public enum SubscriptionCommands {
    /// The interval's bounds, in seconds.
    public static let intervals = 1...3_600

    /// Renews what is due every `interval` until SIGTERM or SIGINT, then makes one last pass; with `once`, one pass,
    /// exiting 75 when something was left for later (the provider did not answer, or the storage failed).
    public static func work(
        configuration: ShopConfiguration, migrate: Bool, interval: Duration, once: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.open(configuration: configuration, migrate: migrate, environment: environment)
        defer { storage.close() }
        let payments: PaymentStack
        do throws(StripeSettings.Problem) { payments = try Self.renewalPayments(storage, configuration, environment) } catch {
            complain(error.description)
            throw ExitCodes.configError
        }
        let worker = storage.renewalWorker(payments, environment: environment, name: workerName())
        if once {
            let pass: RenewalWorker.Pass
            do { pass = try await worker.pass(at: await storage.currentTime()) } catch {
                complain("cannot read the subscriptions: \(error)")
                await payments.close()
                throw ExitCodes.ioError
            }
            printSafely(RenewalLoop.line(pass) ?? "nothing due")
            await payments.close()
            if !pass.leftForLater.isEmpty { throw ExitCodes.temporaryFailure }
            return
        }
        announce("renewals: every \(interval.components.seconds) s on \(storage.place) as \(worker.name)")
        let loop = RenewalLoop.start(worker, every: interval, now: { await storage.currentTime() }, log: announce)
        let stop = await StopSignals().next()
        await loop.stop()
        await payments.close()
        announce("\(signalName(stop)): stopped")
    }

    /// The renewals beside a front (`serve`), a pass every minute; nil, told in the log, when the payment settings
    /// cannot be read (the sessions refuse them too).
    public static func startBeside(
        storage: ShopStorage, configuration: ShopConfiguration, environment: [String: String], interval: Duration = .seconds(60)
    ) -> RunningRenewals? {
        let payments: PaymentStack
        do throws(StripeSettings.Problem) { payments = try Self.renewalPayments(storage, configuration, environment) } catch {
            announce("renewals: off: \(error.description)")
            return nil
        }
        let worker = storage.renewalWorker(payments, environment: environment, name: workerName())
        announce("renewals: every \(interval.components.seconds) s as \(worker.name)")
        return RunningRenewals(
            loop: RenewalLoop.start(worker, every: interval, now: { await storage.currentTime() }) { announce("renewals: \($0)") }, payments: payments
        )
    }

    /// The renewals a front started; `stop` once, as the front stops.
    public struct RunningRenewals: Sendable {
        let loop: RenewalLoop
        let payments: PaymentStack

        public func stop() async {
            await loop.stop()
            await payments.close()
        }
    }

    /// The payment side renewals charge through: the one the configuration picks, as the shop's sessions use.
    static func renewalPayments(_ storage: ShopStorage, _ configuration: ShopConfiguration, _ environment: [String: String])
        throws(StripeSettings.Problem) -> PaymentStack
    {
        // A live shop renews on the wall clock's time: a clock moved for a test would charge real subscribers early.
        if storage.clock.offsetSeconds != 0, configuration.payments == .stripe,
            try StripeSettings.key(configuration: configuration, environment: environment).mode == .live
        {
            throw StripeSettings.Problem(
                description: "the shop's clock runs \(ClockCommands.describe(storage.clock.offsetSeconds)) ahead and this shop takes live payments: "
                    + "`storefront clock reset` before renewing")
        }
        return try PaymentStack.make(
            configuration: configuration, environment: environment, ledger: storage.ledger, references: storage.references,
            currency: storage.currency, clock: ContinuousClock(), latency: .zero, fault: FaultHook(environment: environment), log: announce)
    }

    /// This process's name in the leases it holds: the host and the process id.
    public static func workerName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// The subscriptions in `status` (every one when nil), soonest due first; 74 when the database fails.
    public static func list(
        status: SubscriptionStatus?, json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let found = try await reading { try await storage.subscriptions.subscriptions(status: status, limit: 100_000) }
        try writeResult(json ? try SubscriptionReport.json(found) : SubscriptionReport.table(found), what: "the subscriptions")
    }

    /// One subscription with its history; 65 for none of that id.
    public static func show(
        _ id: String, json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        guard let subscription = try await reading({ try await storage.subscriptions.subscription(id: id) }) else {
            complain("no subscription \(id): `storefront subscriptions list` shows them")
            throw ExitCodes.dataError
        }
        let history = try await reading { try await storage.subscriptions.history(of: id) }
        if json {
            try writeResult(try jsonText(["version": 1, "subscription": SubscriptionReport.object(subscription, history: history)]), what: "it")
        } else {
            let lines =
                [SubscriptionReport.table([subscription])] + history.map { "\(UTCTime($0.at).minutes)  \($0.actor)  \($0.kind)  \($0.detail)" }
            try writeResult(lines.joined(separator: "\n"), what: "it")
        }
    }

    /// The renewals due in the next `days` days and their goods at today's prices.
    public static func upcoming(
        days: Int, json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let renewals = try await reading {
            try await storage.subscriptions.upcomingRenewals(catalog: storage.catalog, from: storage.clock.now(), days: days)
        }
        try writeResult(json ? try SubscriptionReport.upcomingJSON(renewals) : SubscriptionReport.upcomingTable(renewals), what: "the renewals")
    }

    /// Cancels a subscription as the merchant: at once, or at the end of its period (`atPeriodEnd`); 65 for none of
    /// that id or one that cannot be (canceled already).
    public static func cancel(
        _ id: String, atPeriodEnd: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let answer = try await reading {
            try await storage.subscriptions.change(
                id, atPeriodEnd ? .cancelAtPeriodEnd : .cancelNow, by: "merchant:\(NSUserName())", at: storage.clock.now())
        }
        guard case .success(let changed) = answer else {
            if case .failure(let refusal) = answer { complain("\(id): \(refusal.line) `storefront subscriptions list` shows them.") }
            throw ExitCodes.dataError
        }
        printSafely(
            atPeriodEnd
                ? "\(id) ends on \(UTCTime(changed.renewsAt).minutes) UTC instead of renewing." : "\(id) is canceled: nothing more is charged.")
    }

    /// `body`'s answer; the database failing is told and exits 74.
    private static func reading<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
    }

}
