import ArgumentParser
import Foundation
import StoreClients
import StoreModels
import StoreSandbox
import StoreSQLite
import StorefrontCore
import StorefrontUI

/// The `storefront` command: the composition root, and the only place that picks live implementations.
@main
struct Storefront: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storefront",
        abstract: "A terminal storefront: browse, fill a cart and pay on an Apple Pay-style sheet.",
        version: "0.1.0",
        subcommands: [Run.self, Headless.self, OrdersCommand.self, CatalogCommand.self],
        defaultSubcommand: Run.self
    )
}

/// Exit codes, as documented in the README (sysexits.h values where one fits).
enum ExitCodes {
    static let usage = ExitCode(64)
    static let dataError = ExitCode(65)
    static let noInput = ExitCode(66)
    static let noTerminal = ExitCode(69)
    static let cannotCreate = ExitCode(73)
    static let ioError = ExitCode(74)
    static let configError = ExitCode(78)
}

/// Prints `message` to stderr prefixed with the command name.
func complain(_ message: String) {
    FileHandle.standardError.write(Data("storefront: \(message)\n".utf8))
}

/// Options shared by every command that opens a shop. Flags win over the environment and the config file.
struct ShopOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A catalog JSON file to sell from instead of the bundled one. Env: STOREFRONT_CATALOG.", valueName: "path"))
    var catalog: String?

    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Where the shop keeps its files. Default: $XDG_DATA_HOME/storefront. Env: STOREFRONT_DATA_DIR.", valueName: "path"))
    var dataDirectory: String?

    @Option(name: .customLong("one-tap"), help: ArgumentHelp("One-Tap Buy now: on, off, cart, product or cart,product. Env: STOREFRONT_ONE_TAP.", valueName: "setting"))
    var oneTap: String?

    /// The file, environment and these flags, merged.
    func configuration(environment: [String: String]) throws -> Configuration {
        var configuration: Configuration
        do {
            configuration = try Configuration.load(environment: environment)
        } catch let error as ConfigurationError {
            complain("bad configuration: \(error)")
            throw ExitCodes.configError
        }
        if let catalog { configuration.catalog = catalog }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        if let oneTap { configuration.oneTap = oneTap }
        return configuration
    }

    /// Opens the database in the data directory and the catalog in it, importing the catalog
    /// file (or the bundled one) when its content changed. Prints the problem and exits on failure.
    static func openStore(path: String?, dataDirectory: String) throws -> (database: StoreDatabase, catalog: SQLiteCatalogRepository) {
        if let path, !FileManager.default.fileExists(atPath: path) {
            complain("no such catalog file: \(path)")
            throw ExitCodes.noInput
        }
        do {
            let database = try StoreDatabase.open(directory: URL(fileURLWithPath: dataDirectory))
            if let path {
                return (database, try SQLiteCatalogRepository.open(database: database, catalogFile: URL(fileURLWithPath: path)))
            }
            return (database, try SQLiteCatalogRepository.open(database: database, catalogData: Data(BundledCatalog.json.utf8), source: "bundled catalog"))
        } catch let error as CatalogError {
            complain("invalid catalog \(error)")
            throw ExitCodes.dataError
        } catch let error as StoreDatabaseError {
            complain("\(error)")
            if case .cannotCreateDirectory = error { throw ExitCodes.cannotCreate }
            throw ExitCodes.ioError
        }
    }

    static func featureFlags(_ setting: String?) throws -> StaticFeatureFlags {
        guard let setting else { return .defaults }
        do {
            return StaticFeatureFlags(enabled: try StaticFeatureFlags.parseOneTap(setting))
        } catch {
            complain("\(error)")
            throw ExitCodes.usage
        }
    }
}

/// The embedded defaults: the catalog, orders and the provider's records in SQLite, and the sandbox
/// wallet, provider and backend. Orders left open by an earlier stop are settled first.
enum SandboxComposition {
    /// Synchronous: settling earlier orders reads and writes the database and touches no actor state.
    static func dependencies(store: (database: StoreDatabase, catalog: SQLiteCatalogRepository), flags: any FeatureFlags, clock: any Clock<Duration>, latency: Duration) throws -> (dependencies: StorefrontDependencies, settled: [(number: String, status: OrderStatus)]) {
        let ids = IDGenerator.random
        let processor = SandboxProcessor(clock: clock, latency: latency, ledger: SQLiteChargeLedger(database: store.database))
        let orders = SQLiteOrderStore(database: store.database, currency: store.catalog.store.currency)
        let environment = ProcessInfo.processInfo.environment
        // Test hook: STOREFRONT_FAULT=kill-after-reserving (or -charging, -recording) makes the
        // process kill itself there, as a power cut would, so fault tests can restart it.
        let killAt = environment["STOREFRONT_FAULT"].flatMap { value in
            SandboxMerchantBackend.Step(rawValue: String(value.dropFirst("kill-".count)))
        }
        let backend = SandboxMerchantBackend(processor: processor, orders: orders, dates: .system) { step in
            if step == killAt { kill(getpid(), SIGKILL) }
        }
        let settleAfter = environment["STOREFRONT_SETTLE_AFTER_SECONDS"].flatMap(Int.init) ?? 120
        let settled: [(number: String, status: OrderStatus)]
        do {
            settled = try backend.reconcile(minimumAge: .seconds(settleAfter))
        } catch {
            complain("cannot settle earlier orders: \(error)")
            throw ExitCodes.ioError
        }
        let dependencies = StorefrontDependencies(
            catalog: store.catalog, orderHistory: orders,
            paymentAuthorization: .sandbox(wallet: SandboxWallet(), ids: ids),
            paymentProvider: SandboxPaymentProvider(processor: processor),
            merchantBackend: backend,
            featureFlags: flags, ids: ids,
            carts: SQLiteCartStore(database: store.database),
            // A guest is the local user; accounts (and SSH keys) bring their own identity.
            customerID: "local:\(NSUserName())"
        )
        return (dependencies, settled)
    }
}
