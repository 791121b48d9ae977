import ArgumentParser
import Foundation
import MerchantReports
import PseudoTerminal
import ShopBootstrap
import ShopCredentialFile
import ShopMerchant
import ShopModels
import ShopPorts
import ShopServices
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
        do {
            return try WebhookSigningSecrets.read(value: environment[Self.secretVariable], file: secretFile.map { FilePath($0) })
        } catch {
            throw error.told()
        }
    }
}

extension ListenAddress {
    /// `--listen HOST:PORT` and its kin; a bad one is a usage error.
    init(argument text: String) throws {
        do { try self.init(parsing: text) } catch { throw ValidationError(error.description) }
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
            transform: ListenAddress.init(argument:))
        var listen = ListenAddress(host: "127.0.0.1", port: 8088)

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let configuration = try shop.configuration(environment: environment)
            do { try WebhookListener.requireStripe(configuration) } catch { throw error.told() }
            let secrets = try settings.secrets(environment: environment)
            let dataDirectory = configuration.dataDirectory(environment: environment)
            let storage = try await ShopStorage.open(
                configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !shop.noMigrate, environment: environment)
            let listener: RunningWebhookListener
            do {
                listener = try await WebhookListener.start(
                    at: listen, storage: storage, configuration: configuration, environment: environment, secrets: secrets, log: announce)
            } catch { throw error.told() }
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
