import Foundation
import MerchantReports
import PseudoTerminal
import ShopBootstrap
import ShopServices
import ShopWebhookServer
import SystemPackage

/// `storefront webhooks`: Stripe's signed events heard on their own, and the ones waiting to be applied.
public enum WebhookCommands {
    /// The endpoint's signing secrets from `file` or the environment (one of them); a problem is told and exits 78.
    public static func secrets(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [String] {
        do throws(ServiceStartFailure) {
            return try WebhookSigningSecrets.read(value: environment[WebhookSigningSecrets.variable], file: file.map { FilePath($0) })
        } catch {
            throw error.told()
        }
    }

    /// Listens at `address` until SIGTERM or SIGINT, then applies what it kept and stops.
    public static func listen(
        at address: ListenAddress, configuration: ShopConfiguration, secretFile: String?, migrate: Bool, adminListen: ListenAddress? = nil,
        metrics: MetricsExport? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        do throws(ServiceStartFailure) { try WebhookListener.requireStripe(configuration) } catch { throw error.told() }
        let secrets = try secrets(file: secretFile, environment: environment)
        let storage = try await ShopStorage.open(configuration: configuration, migrate: migrate, environment: environment)
        let listener: RunningWebhookListener
        do throws(ServiceStartFailure) {
            listener = try await WebhookListener.start(
                at: address, storage: storage, configuration: configuration, environment: environment, secrets: secrets, log: announce)
        } catch { throw error.told() }
        announce(
            "webhooks: listening on \(ListenAddress(host: address.host, port: listener.port)) for POST \(WebhookServer.stripePath); storage: \(storage.place)"
        )
        let admin: RunningAdminListener?
        do throws(ServiceStartFailure) {
            admin = try await AdminListening.start(
                at: adminListen, storage: storage, checks: [AdminListening.payments(configuration)], metrics: metrics, log: announce)
        } catch {
            await listener.stop()
            throw error.told()
        }
        let stop = await StopSignals().next()
        await admin?.stop()
        await listener.stop()
        announce("\(signalName(stop)): stopped")
    }

    /// The provider's events kept but not yet applied, oldest first.
    public static func waiting(
        configuration: ShopConfiguration, migrate: Bool, json: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.open(configuration: configuration, migrate: migrate, environment: environment)
        let events = try await storage.providerEvents.waiting(limit: 1_000)
        printSafely(json ? try ProviderEventReport.json(events) : ProviderEventReport.table(events))
    }
}
