import Foundation
import ShopApplication
import ShopBootstrap
import ShopMetrics
import ShopModels
import ShopPorts
import ShopWebhookServer

/// The webhook listener over the shop's storage and its Stripe account: what `serve --webhook-listen` and
/// `storefront webhooks` run.
///
/// Order of calls: `start` (binds, or refuses) → the listener runs as a task → `stop`.
public enum WebhookListener {
    /// Refuses unless the shop takes payments through Stripe, the one provider that sends webhooks.
    public static func requireStripe(_ configuration: ShopConfiguration) throws(ServiceStartFailure) {
        guard configuration.payments == .stripe else {
            throw ServiceStartFailure(.configuration, "webhooks come from Stripe: start with --payments stripe (the sandbox sends none)")
        }
    }

    public static func start(
        at address: ListenAddress, storage: ShopStorage, configuration: ShopConfiguration, environment: [String: String],
        secrets: [String], log: @escaping @Sendable (String) -> Void
    ) async throws(ServiceStartFailure) -> RunningWebhookListener {
        try requireStripe(configuration)
        let payments: PaymentStack
        do {
            payments = try PaymentStack.make(
                configuration: configuration, environment: environment, ledger: storage.ledger, references: storage.references,
                currency: storage.catalog.shop.currency, clock: ContinuousClock(), latency: .zero, fault: FaultHook(environment: environment),
                log: log
            )
        } catch {
            throw ServiceStartFailure(.configuration, error.description)
        }
        guard let webhook = payments.webhook?(secrets) else {
            throw ServiceStartFailure(.configuration, "this payment provider sends no webhooks")
        }
        let backend = storage.merchantBackend(payments, environment: environment)
        let desk = ProviderEventDesk(
            webhook: webhook, events: storage.providerEvents, backend: backend, orders: storage.orders, dates: .system, wallets: storage.wallets)
        let worker = ProviderEventWorker(desk: desk, log: { log("webhook \($0)") }) { log("webhook \($0.logLine)") }
        let listening = BoundPort()
        let server = WebhookServer(host: address.host, port: address.port, log: log, listening: listening.bound) { payload, signature in
            let reply = await worker.receive(payload: payload, signature: signature)
            ShopMetrics.count(ShopMetrics.webhookEvents, reply.metricLabels)
            return WebhookServer.Answer(status: reply.httpStatus, log: reply.logLine)
        }
        let (task, bound) = await listening.serve { try await server.run() }
        switch bound {
        case .success(let port):
            return RunningWebhookListener(server: server, task: task, port: port, worker: worker, payments: payments)
        case .failure(let failure):
            await worker.stop()
            await payments.close()
            throw ServiceStartFailure(.cannotListen, "cannot listen for webhooks on \(address): \(failure)")
        }
    }
}

/// A webhook listener that listens: stop it once, at the end.
public struct RunningWebhookListener: Sendable {
    let server: WebhookServer
    let task: Task<Void, any Error>
    /// The port it listens on (the one picked, for port 0).
    public let port: Int
    let worker: ProviderEventWorker
    let payments: PaymentStack

    /// Answers the deliveries under way, stops listening, applies what was kept, and closes the provider's
    /// connections.
    public func stop() async {
        await server.stop()
        _ = try? await task.value
        await worker.stop()
        await payments.close()
    }
}

extension ProviderEventDesk.Reply {
    /// The event types the shop acts on; any other is counted as "other", so a sender cannot grow the labels.
    static let knownTypes: Set<String> = [
        "payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled", "charge.refunded", "charge.refund.updated",
        "charge.dispute.created", "charge.dispute.closed",
    ]

    /// `type` and `result` for `storefront_webhook_events_total`.
    var metricLabels: [(String, String)] {
        switch self {
        case .accepted(let event): [("type", ShopMetrics.boundedLabel(event.type, allowed: Self.knownTypes)), ("result", "accepted")]
        case .duplicate(let event): [("type", ShopMetrics.boundedLabel(event.type, allowed: Self.knownTypes)), ("result", "duplicate")]
        case .refused: [("type", "unknown"), ("result", "refused")]
        case .retryLater(let event, _): [("type", ShopMetrics.boundedLabel(event.type, allowed: Self.knownTypes)), ("result", "retry_later")]
        }
    }
}
