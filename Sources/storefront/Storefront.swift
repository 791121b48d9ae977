import ArgumentParser
import Foundation
import StoreClients
import StoreModels
import StoreSandbox
import StorefrontCore
import StorefrontUI

/// The `storefront` command: the composition root, and the only place that picks live implementations.
@main
struct Storefront: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storefront",
        abstract: "A terminal storefront: browse, fill a cart and pay on an Apple Pay-style sheet.",
        version: "0.1.0",
        subcommands: [Headless.self, CatalogCommand.self]
    )
}

/// Exit codes, as documented in the README (sysexits.h values where one fits).
enum ExitCodes {
    static let usage = ExitCode(64)
    static let dataError = ExitCode(65)
    static let noInput = ExitCode(66)
}

/// Options shared by every command that opens a shop.
struct ShopOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A catalog JSON file to sell from instead of the bundled one.", valueName: "path"))
    var catalog: String?

    @Option(name: .customLong("one-tap"), help: ArgumentHelp("One-Tap Buy now: on, off, cart, product or cart,product. Overrides STOREFRONT_ONE_TAP.", valueName: "setting"))
    var oneTap: String?

    /// Loads the catalog, or prints every problem and exits with a data error.
    func catalogRepository() throws -> InMemoryCatalogRepository {
        do {
            if let catalog {
                return InMemoryCatalogRepository(catalog: try CatalogLoader.load(contentsOf: URL(fileURLWithPath: catalog)))
            }
            return try InMemoryCatalogRepository.bundled()
        } catch let error as CatalogError {
            FileHandle.standardError.write(Data("storefront: invalid catalog \(error)\n".utf8))
            throw ExitCodes.dataError
        }
    }

    func featureFlags(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StaticFeatureFlags {
        do {
            if let oneTap { return StaticFeatureFlags(enabled: try StaticFeatureFlags.parseOneTap(oneTap)) }
            return try StaticFeatureFlags.fromEnvironment(environment)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// The embedded defaults: bundled or given catalog, sandbox wallet, provider and backend, in memory.
enum SandboxComposition {
    static func dependencies(catalog: any CatalogRepository, flags: any FeatureFlags, clock: any Clock<Duration>, latency: Duration) -> StorefrontDependencies {
        let ids = IDGenerator.random
        let processor = SandboxProcessor(clock: clock, latency: latency)
        let orders = InMemoryOrderStore()
        return StorefrontDependencies(
            catalog: catalog, orderHistory: orders,
            paymentAuthorization: .sandbox(wallet: SandboxWallet(), ids: ids),
            paymentProvider: SandboxPaymentProvider(processor: processor),
            merchantBackend: SandboxMerchantBackend(processor: processor, orders: orders, dates: .system),
            featureFlags: flags, ids: ids
        )
    }
}
