import ArgumentParser
import Foundation
import MerchantReports
import PseudoTerminal
import ShopBootstrap
import ShopCredentialFile
import ShopMerchant
import ShopModels
import ShopPorts
import ShopWebhookServer
import SystemPackage

/// How the webhook listener checks what arrives: the endpoint's signing secrets. `serve` and `webhooks` take these.
struct WebhookSettings: ParsableArguments {
    static let secretVariable = "STOREFRONT_STRIPE_WEBHOOK_SECRET"

    @Option(
        name: .customLong("webhook-secret-file"),
        help: ArgumentHelp(
            "A file (mode 0600, yours) holding the endpoint's signing secret (whsec_…), one per line while a secret is rotated. Env: \(secretVariable) (comma-separated).",
            valueName: "path"
        ))
    var secretFile: String?

    /// The signing secrets from the file or the environment (one of them); a problem is told and exits 78.
    func secrets(environment: [String: String]) throws -> [String] {
        let text: String
        switch (environment[Self.secretVariable].flatMap { $0.isEmpty ? nil : $0 }, secretFile) {
        case (nil, nil):
            complain(
                "webhooks need the endpoint's signing secret from Stripe: set \(Self.secretVariable), or name a file with --webhook-secret-file (docs/webhooks.md)"
            )
            throw ExitCodes.configError
        case (.some, .some):
            complain("both \(Self.secretVariable) and --webhook-secret-file are set; keep one")
            throw ExitCodes.configError
        case (let value?, nil):
            text = value
        case (nil, let path?):
            do {
                text = String(decoding: try ProtectedFile.read(FilePath(path)), as: UTF8.self)
            } catch {
                complain("the webhook secret file \(path) cannot be used: \(error) (it must be yours, a regular file, mode 0600)")
                throw ExitCodes.configError
            }
        }
        let secrets = text.split(whereSeparator: { $0 == "," || $0.isNewline }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !secrets.isEmpty else {
            complain("the webhook signing secret is empty")
            throw ExitCodes.configError
        }
        for secret in secrets where !secret.hasPrefix("whsec_") || secret.count < 16 {
            complain(
                "\"\(secret.prefix(10))…\" is not a Stripe webhook signing secret (they start whsec_); the dashboard shows it under the endpoint")
            throw ExitCodes.configError
        }
        return secrets
    }
}

/// Where the webhook listener listens: `HOST:PORT`, `[IPv6]:PORT`.
struct ListenAddress: Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    init(parsing text: String) throws {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ValidationError("\"\(text)\" is not HOST:PORT (such as 127.0.0.1:8088)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("\"\(text)\" names no host (such as 127.0.0.1:8088)") }
        self.host = host
        self.port = port
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The webhook listener over the shop's storage and its Stripe account: what `serve --webhook-listen` and
/// `storefront webhooks` run.
///
/// Order of calls: `start` (binds, or exits 69) → the listener runs as a task → `stop`.
enum WebhookListener {
    /// Exits 78 unless the shop takes payments through Stripe, the one provider that sends webhooks.
    static func requireStripe(_ configuration: ShopConfiguration) throws {
        guard configuration.payments == .stripe else {
            complain("webhooks come from Stripe: start with --payments stripe (the sandbox sends none)")
            throw ExitCodes.configError
        }
    }

    static func start(
        at address: ListenAddress, storage: ShopStorage, configuration: ShopConfiguration, environment: [String: String],
        secrets: [String], log: @escaping @Sendable (String) -> Void
    ) async throws -> RunningWebhookListener {
        try requireStripe(configuration)
        let payments = try configuringPayments { () throws(StripeSettings.Problem) in
            try PaymentStack.make(
                configuration: configuration, environment: environment, ledger: storage.ledger, references: storage.references,
                currency: storage.catalog.shop.currency, clock: ContinuousClock(), latency: .zero, fault: FaultHook(environment: environment),
                log: log
            )
        }
        guard let webhook = payments.webhook?(secrets) else {
            complain("this payment provider sends no webhooks")
            throw ExitCodes.configError
        }
        let backend = LiveMerchantBackend(processor: payments.processor, orders: storage.orders, dates: .system)
        let desk = ProviderEventDesk(
            webhook: webhook, events: storage.providerEvents, backend: backend, orders: storage.orders, dates: .system, wallets: storage.wallets)
        let worker = ProviderEventWorker(desk: desk, log: { log("webhook \($0)") }) { log("webhook \($0.logLine)") }
        let (bound, binding) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let server = WebhookServer(
            host: address.host, port: address.port, log: log, listening: { binding.yield(.success($0)) }
        ) { payload, signature in
            let reply = await worker.receive(payload: payload, signature: signature)
            return WebhookServer.Answer(status: reply.httpStatus, log: reply.logLine)
        }
        let task = Task {
            do {
                try await server.run()
                binding.finish()
            } catch {
                binding.yield(.failure(error))
                binding.finish()
                throw error
            }
        }
        for await first in bound {
            switch first {
            case .success(let port): return RunningWebhookListener(server: server, task: task, port: port, worker: worker, payments: payments)
            case .failure(let error):
                complain("cannot listen for webhooks on \(address): \(error)")
                await worker.stop()
                await payments.close()
                throw ExitCodes.cannotListen
            }
        }
        await worker.stop()
        await payments.close()
        complain("the webhook listener on \(address) stopped before it listened")
        throw ExitCodes.cannotListen
    }
}

/// A webhook listener that listens: stop it once, at the end.
struct RunningWebhookListener {
    let server: WebhookServer
    let task: Task<Void, any Error>
    let port: Int
    let worker: ProviderEventWorker
    let payments: PaymentStack

    /// Answers the deliveries under way, stops listening, applies what was kept, and closes the provider's
    /// connections.
    func stop() async {
        await server.stop()
        _ = try? await task.value
        await worker.stop()
        await payments.close()
    }
}

/// `storefront webhooks`: hears Stripe's signed events on their own, beside shops that run elsewhere, and lists the
/// ones waiting to be applied.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Listen for Stripe's signed webhook events, or list the ones waiting to be applied.",
        subcommands: [Listen.self, Waiting.self], defaultSubcommand: Listen.self
    )

    struct Listen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Listen for Stripe's signed webhook events (POST /webhooks/stripe): each is kept and answered, then applied to its order once.",
            discussion:
                "Run it behind a reverse proxy that ends TLS; docs/webhooks.md shows one. Stops on SIGTERM or SIGINT, after applying what it kept."
        )

        @OptionGroup var shop: ShopOptions
        @OptionGroup var settings: WebhookSettings

        @Option(
            help: ArgumentHelp("The address to listen on, HOST:PORT; port 0 picks a free one (printed at start).", valueName: "address"),
            transform: ListenAddress.init(parsing:))
        var listen = ListenAddress(host: "127.0.0.1", port: 8088)

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let configuration = try shop.configuration(environment: environment)
            try WebhookListener.requireStripe(configuration)
            let secrets = try settings.secrets(environment: environment)
            let dataDirectory = configuration.dataDirectory(environment: environment)
            let storage = try await ShopStorage.open(
                configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !shop.noMigrate, environment: environment)
            let listener = try await WebhookListener.start(
                at: listen, storage: storage, configuration: configuration, environment: environment, secrets: secrets, log: announce
            )
            announce(
                "webhooks: listening on \(ListenAddress(host: listen.host, port: listener.port)) for POST \(WebhookServer.stripePath); storage: \(storage.place)"
            )
            let stop = await StopSignals().next()
            await listener.stop()
            announce("\(signalName(stop)): stopped")
        }
    }

    struct Waiting: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the provider's events kept but not yet applied, oldest first: waiting for their next try, or given up after three days."
        )

        @OptionGroup var shop: ShopOptions
        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let configuration = try shop.configuration(environment: environment)
            let dataDirectory = configuration.dataDirectory(environment: environment)
            let storage = try await ShopStorage.open(
                configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !shop.noMigrate, environment: environment)
            let events = try await storage.providerEvents.waiting(limit: 1_000)
            printSafely(json ? try ProviderEventReport.json(events) : ProviderEventReport.table(events))
        }
    }
}

extension ListenAddress {
    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}
