import Foundation
import ShopAPI
import ShopApplication
import ShopBootstrap
import ShopPictures
import ShopPorts
import ShopSSH
import ShopSandbox

/// What `storefront api` is started with, besides the shop's configuration.
package struct APIServiceSettings: Sendable {
    package var listen: ListenAddress
    package var limits: APILimits
    /// How long an order waits for its bank's check before it is voided and its stock released.
    package var bankCheckWindow: Duration
    /// `serve --admin-keys`' file: a merchant token is honoured only while its key is in it. Nil: none is.
    package var adminKeysFile: String?
    package var sandboxLatency: Duration

    package init(listen: ListenAddress, limits: APILimits, bankCheckWindow: Duration, adminKeysFile: String?, sandboxLatency: Duration) {
        self.listen = listen
        self.limits = limits
        self.bankCheckWindow = bankCheckWindow
        self.adminKeysFile = adminKeysFile
        self.sandboxLatency = sandboxLatency
    }
}

/// The public HTTP API (openapi/storefront.yaml) over the shop's storage: what `storefront api` runs.
///
/// Order of calls: `start` (binds, or refuses) → it serves, and every minute settles the orders a bank's check held
/// past the window → `stop` (after the requests in flight).
package enum APIService {
    package static func start(
        _ settings: APIServiceSettings, configuration: ShopConfiguration, storage: ShopStorage, environment: [String: String],
        log: @escaping @Sendable (String) -> Void
    ) async throws(ServiceStartFailure) -> RunningAPI {
        let payments: PaymentStack
        do {
            payments = try PaymentStack.make(
                configuration: configuration, environment: environment, ledger: storage.ledger, references: storage.references,
                currency: storage.currency, clock: ContinuousClock(), latency: settings.sandboxLatency, fault: FaultHook(environment: environment),
                log: log)
        } catch { throw ServiceStartFailure(.configuration, error.description) }
        let commerce = storage.apiCommerce(payments, environment: environment)
        // The sweeper settles through a backend of the same parts; it holds no state of its own.
        let backend = storage.merchantBackend(payments, environment: environment)
        let merchantKeys: any MerchantKeys
        if let file = settings.adminKeysFile {
            do { _ = try AdminKeys.load(file) } catch {
                await payments.close()
                throw ServiceStartFailure(.configuration, "\(error)")
            }
            merchantKeys = AdminKeysFile(path: file, load: { path in try AdminKeys.load(path).fingerprints }, log: log)
        } else {
            merchantKeys = NoMerchantKeys()
        }
        let listening = BoundPort()
        let listen = settings.listen
        let server: APIServer
        do {
            server = try APIServer(
                host: listen.host, port: listen.port, shop: APIShop(catalog: storage.catalog, carts: storage.carts), commerce: commerce,
                tokens: storage.tokens, merchantKeys: merchantKeys, limits: settings.limits, log: log, listening: listening.bound)
        } catch {
            await payments.close()
            throw ServiceStartFailure(.cannotListen, "cannot listen on \(listen): \(error)")
        }
        let (serving, bound) = await listening.serve { try await server.run() }
        let port: Int
        switch bound {
        case .success(let bound): port = bound
        case .failure(let failure):
            await payments.close()
            throw ServiceStartFailure(.cannotListen, "cannot listen on \(listen): \(failure)")
        }
        // Orders a bank's check held longer than the window are given up: canceled at the provider unless they went
        // through first, their stock released. Looked at every minute.
        let window = settings.bankCheckWindow
        let sweeping = Task.detached {
            while !Task.isCancelled {
                if let swept = try? await backend.reconcile(minimumAge: window) {
                    for (number, status) in swept.settled { log("api: \(number), open past the bank check window, settled as \(status.rawValue)") }
                }
                try? await Task.sleep(for: .seconds(60))
            }
        }
        return RunningAPI(port: port, server: server, serving: serving, sweeping: sweeping, payments: payments)
    }
}

/// The API while it serves: stop it once, at the end.
package struct RunningAPI: Sendable {
    /// The port it listens on (the one picked, for port 0).
    package let port: Int
    let server: APIServer
    let serving: Task<Void, any Error>
    let sweeping: Task<Void, Never>
    let payments: PaymentStack

    /// A new rate limit from now on.
    package func update(_ limits: APILimits) { server.update(limits) }

    /// Stops taking requests, answers the ones in flight, and closes the provider's connections.
    package func stop() async {
        sweeping.cancel()
        await server.stop()
        _ = await serving.result
        await payments.close()
    }
}

extension APIServiceSettings {
    /// What is out of bounds, if anything, named as `api`'s options: checked before any number is used.
    package var problem: String? {
        let rate = limits.requestsPerMinute
        if !(1...1_000_000).contains(rate) { return "--rate-limit must be 1 to 1000000 requests a minute, not \(rate)" }
        if !(256...(16 << 20)).contains(limits.maxBodyBytes) { return "--max-body must be 256 bytes to 16 MiB, not \(limits.maxBodyBytes)" }
        if bankCheckWindow < .seconds(60) || bankCheckWindow > .seconds(86_400) { return "--bank-check-window must be 1m to 24h" }
        if sandboxLatency < .zero || sandboxLatency > .seconds(60) { return "--sandbox-latency-ms must be between 0 and 60000" }
        if !(1...100_000).contains(limits.maxConnections) { return "--max-connections must be 1 to 100000, not \(limits.maxConnections)" }
        if !(1...limits.maxConnections).contains(limits.connectionsPerAddress) {
            return "--connections-per-address must be 1 to --max-connections, not \(limits.connectionsPerAddress)"
        }
        return nil
    }
}

extension ShopStorage {
    /// What the API sells and changes orders with, over this storage and `payments`: `storefront api`, `up` and the
    /// API's tests build it here alike. `dates` is the clock a test moves.
    package func apiCommerce(_ payments: PaymentStack, environment: [String: String], dates: DateSource = .system) -> APICommerce {
        APICommerce(
            wallets: CardForgettingWalletRepository(wallets) { await payments.provider.forget(cardID: $0) }, profiles: profiles,
            provider: payments.provider, backend: merchantBackend(payments, environment: environment, dates: dates), orders: orders,
            backOffice: backOffice(payments, environment: environment, dates: dates), idempotency: idempotency,
            methodData: { payments.methodData($0) },
            testCards: payments.provider.mode == .sandbox ? SandboxCard.all.map(\.paymentMethod) : [], now: { dates.now() },
            catalogEditor: catalogEditor, discounts: discounts, subscriptions: subscriptions, pictureIntake: KeptPictureIntake(store: pictures)
        )
    }
}
