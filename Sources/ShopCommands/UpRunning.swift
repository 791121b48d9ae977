import Foundation
import LiveObjects
import ShopApplication
import ShopBootstrap
import ShopPorts
import ShopServices
import ShopSessions
import Synchronization

/// The fronts, listener and workers `up` started.
struct RunningUp: Sendable {
    let storage: ShopStorage
    var ssh: RunningSSHShop?
    /// The SSH sessions' command, whose merchant keys SIGHUP reads again.
    var sshSessions: SessionCommand?
    var web: RunningWebShop?
    var api: RunningAPI?
    var webhooks: RunningWebhookListener?
    var admin: RunningAdminListener?
    var workers: [SupervisedWorker] = []
    /// The payment side the renewals charge through, closed once they stop.
    var renewalPayments: PaymentStack?
    /// The mail worker's delivery, swapped when SIGHUP brings new mail settings.
    let mail = MailSlot()
    /// Whether the fronts take new sessions and requests: `/readyz` says unready once the drain begins.
    let accepting = AcceptingFlag()

    /// Every front drained at once: no new sessions or requests, open sessions told and given their grace period.
    func drain() async {
        accepting.stop()
        let open = (ssh?.openSessions ?? 0) + (web?.openSessions ?? 0)
        announce("draining: \(open) session\(open == 1 ? "" : "s") open")
        await withTaskGroup(of: Void.self) { group in
            if let ssh {
                group.addTask {
                    let killed = await ssh.drain()
                    if killed > 0 { announce("ssh: killed \(killed) session\(killed == 1 ? "" : "s") still open at the drain timeout") }
                    try? await ssh.shutdown()
                }
            }
            if let web {
                group.addTask {
                    let left = await web.stop()
                    if left > 0 { announce("web: \(left) session\(left == 1 ? "" : "s") still open at the drain timeout; their shops are ended") }
                }
            }
            if let api { group.addTask { await api.stop() } }
            if let webhooks { group.addTask { await webhooks.stop() } }
        }
        announce("drained")
    }
}

extension UpCommands {
    /// The mail worker and the renewals the configuration enables, each supervised.
    static func workers(
        _ configuration: ServiceConfiguration, storage: ShopStorage, environment: [String: String], running: inout RunningUp
    ) throws -> [SupervisedWorker] {
        var workers: [SupervisedWorker] = []
        if configuration.isOn("mail-worker.enabled") {
            running.mail.delivery.withLock { $0 = try? mailDelivery(configuration, storage: storage, environment: environment) }
            guard running.mail.delivery.withLock({ $0 }) != nil else { throw ExitCodes.configError }
            let mail = running.mail
            announce("mail-worker: every \(SupervisedWorker.describe(configuration.duration("mail-worker.interval")))")
            workers.append(
                SupervisedWorker(
                    name: "mail-worker", interval: configuration.duration("mail-worker.interval"),
                    pass: {
                        guard let delivery = mail.delivery.withLock({ $0 }) else { return [] }
                        let pass = try await delivery.deliverDue()
                        return pass.sentLines + pass.problemLines
                    }, log: { announce($0, level: $1) }))
        }
        if configuration.isOn("renewals.enabled") {
            let payments: PaymentStack
            do throws(StripeSettings.Problem) {
                payments = try SubscriptionCommands.renewalPayments(storage, configuration.shop, environment)
            } catch {
                complain("renewals: \(error.description)")
                throw ExitCodes.configError
            }
            running.renewalPayments = payments
            let worker = storage.renewalWorker(payments, environment: environment, name: SubscriptionCommands.workerName())
            announce("renewals: every \(SupervisedWorker.describe(configuration.duration("renewals.interval"))) as \(worker.name)")
            workers.append(
                SupervisedWorker(
                    name: "renewals", interval: configuration.duration("renewals.interval"),
                    pass: {
                        let pass = try await worker.pass(at: await storage.currentTime())
                        return [RenewalLoop.line(pass)].compactMap { $0 }
                    }, log: { announce($0, level: $1) }))
        }
        return workers
    }

    /// The outbox's sender with the configured command (sendmail -t -i when none is named) and retries.
    static func mailDelivery(_ configuration: ServiceConfiguration, storage: ShopStorage, environment: [String: String]) throws -> MailDelivery? {
        try configuration.mail.delivery(
            storage: storage, environment: environment, defaultCommand: ["sendmail", "-t", "-i"],
            retryAfter: Int(configuration.duration("mail-worker.retry-after").components.seconds),
            giveUpHours: Int(configuration.duration("mail-worker.give-up-after").components.seconds / 3600))
    }
}

/// The mail worker's delivery, which SIGHUP may replace while the worker runs.
final class MailSlot: Sendable {
    let delivery = Mutex<MailDelivery?>(nil)
}

/// Set once the drain begins, so a load balancer stops sending shoppers before the fronts refuse them.
final class AcceptingFlag: Sendable {
    private let draining = Atomic(false)

    func stop() { draining.store(true, ordering: .relaxed) }

    /// `/readyz`'s check: ready until the drain begins.
    var probe: ReadinessProbe {
        ReadinessProbe("accepting") { [self] in
            let stopping = draining.load(ordering: .relaxed)
            return ReadinessCheck(name: "accepting", isReady: !stopping, detail: stopping ? "draining: taking no new sessions" : "taking sessions")
        }
    }
}

extension MailSlot: LiveObject {}
extension AcceptingFlag: LiveObject {}
