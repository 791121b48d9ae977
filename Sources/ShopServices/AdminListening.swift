import PseudoTerminal
import ShopAdminListener
import ShopBootstrap
import ShopPorts

/// The operator's listener beside a front (`--admin-listen`): `/healthz`, and `/readyz` with the database's check and
/// the front's own.
public enum AdminListening {
    /// Starts it at `address`; nil without one. `checks` are the front's own beside the database's.
    /// With `metrics`, `/metrics` too.
    public static func start(
        at address: ListenAddress?, storage: ShopStorage, checks: [ReadinessProbe] = [], metrics: MetricsExport? = nil,
        log: @escaping @Sendable (String) -> Void
    ) async throws(ServiceStartFailure) -> RunningAdminListener? {
        guard let address else { return nil }
        let listening = BoundPort()
        var exposition: (@Sendable () -> [UInt8])?
        if let metrics { exposition = { metrics.exposition() } }
        let listener = AdminListener(
            host: address.host, port: address.port, checks: [ReadinessProbe("database") { await storage.databaseReadiness() }] + checks,
            metrics: exposition, log: log, listening: listening.bound)
        let (task, bound) = await listening.serve { try await listener.run() }
        switch bound {
        case .success(let port):
            log(
                "admin: listening on \(ListenAddress(host: address.host, port: port)) for GET /healthz and /readyz\(metrics == nil ? "" : " and /metrics")"
            )
            return RunningAdminListener(listener: listener, task: task, port: port)
        case .failure(let failure):
            throw ServiceStartFailure(.cannotListen, "cannot listen for the admin endpoints on \(address): \(failure)")
        }
    }

    /// The payment provider's check: the one configured (its settings were read at start, or the front would not run).
    public static func payments(_ configuration: ShopConfiguration) -> ReadinessProbe {
        let choice = configuration.payments ?? .sandbox
        return ReadinessProbe("payments") { ReadinessCheck(name: "payments", isReady: true, detail: choice == .stripe ? "Stripe" : "sandbox") }
    }

    /// The session host's check: up, or started again; nil where sessions start without one.
    /// `name` tells the fronts' hosts apart where one process runs several (`up`).
    public static func sessions(_ host: SessionHostClient?, name: String = "sessions") -> ReadinessProbe? {
        guard let host else { return nil }
        return ReadinessProbe(name) {
            switch host.revive() {
            case .success(let pid): ReadinessCheck(name: name, isReady: true, detail: "session host pid \(pid)")
            case .failure(let error): ReadinessCheck(name: name, isReady: false, detail: "the session host cannot be started: \(error)")
            }
        }
    }
}

/// An admin listener that is running.
public struct RunningAdminListener: Sendable {
    let listener: AdminListener
    let task: Task<Void, any Error>
    /// The port it listens on (the one picked, for port 0).
    public let port: Int

    public func stop() async {
        await listener.stop()
        _ = try? await task.value
    }
}
