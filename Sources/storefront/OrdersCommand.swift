import ArgumentParser
import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopSSH
import StoragePostgres
import StorageSQLite
import StorefrontUI
import SystemPackage

/// `storefront orders`: the orders as a table or JSON for scripts, one order with its history, and the merchant's
/// changes to an order (`OrdersCommand+Changes`).
struct OrdersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "List, show, ship, deliver, refund and cancel orders.",
        subcommands: [List.self, Show.self, Ship.self, Deliver.self, Refund.self, Cancel.self],
        defaultSubcommand: List.self
    )
}

extension OrdersCommand {
    /// `storefront orders [list]`: the order history as a table, or JSON for scripts.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List placed orders of every customer, newest first."
        )

        @Option(help: ArgumentHelp("Only this customer's orders: local:<user>, sandbox-id:<id> or ssh:SHA256:<fingerprint>.", valueName: "id"))
        var customer: String?

        @Option(
            name: .customLong("data-dir"),
            help: ArgumentHelp("Where the shop keeps its files. Default: $XDG_DATA_HOME/storefront. Env: STOREFRONT_DATA_DIR.", valueName: "path"))
        var dataDirectory: String?

        @Option(
            help: ArgumentHelp(
                "Read the orders from this PostgreSQL instead of the data directory's SQLite. Env: STOREFRONT_DATABASE_URL.", valueName: "url"))
        var database: String?

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        @Option(help: ArgumentHelp("Show at most this many orders.", valueName: "n"))
        var limit: Int = 1_000

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
            if let customer, !Self.isCustomerID(customer) {
                throw ValidationError(
                    "--customer \"\(customer)\" is not a customer id: use local:<user>, sandbox-id:<id> or ssh:SHA256:<fingerprint>")
            }
        }

        /// True for the ids orders are filed under: `local:<user>`, `sandbox-id:<id>`, `ssh:SHA256:<fingerprint>`.
        static func isCustomerID(_ text: String) -> Bool {
            let plain = { (rest: Substring) in
                !rest.isEmpty && rest.count <= 256 && rest.unicodeScalars.allSatisfy { !$0.isUnsafeForTerminal && $0 != " " }
            }
            if text.hasPrefix("local:") { return plain(text.dropFirst(6)) }
            if text.hasPrefix("sandbox-id:") { return plain(text.dropFirst(11)) }
            if text.hasPrefix("ssh:") { return SSHPublicKeyIdentity.isFingerprint(String(text.dropFirst(4))) }
            return false
        }

        /// EX_SOFTWARE: the orders were read but could not be written as JSON.
        static let cannotSerialize = ExitCode(70)

        func run() async throws {
            // The same precedence as the shop itself: flag, environment, config file, default.
            let environment = ProcessInfo.processInfo.environment
            var configuration = try ShopConfiguration.loadForCommand(environment: environment)
            try configuration.apply(flags: [("data-dir", dataDirectory), ("database", database)])
            // Listing writes nothing. On SQLite, the data directory decides whether there is a shop to read at all.
            let place: StoragePlace? =
                if let url = configuration.database { .postgres(url) } else {
                    try dataDirectory(named: configuration.dataDirectory, environment: environment).map { .sqlite(directory: $0) }
                }
            let orders = try await openingStorage {
                guard let place else { return [Order]() }
                return try await ShopStorage.readOrders(at: place, customer: customer, limit: limit, environment: environment)
            }
            // The list is the command's result: a list that did not reach its reader (a full disk, a closed pipe) is an error.
            try writeResult(try render(orders), what: "the orders")
        }

        /// The data directory to read: a directory that was named must exist (66); the default one not made yet holds
        /// no orders (nil).
        private func dataDirectory(named: FilePath?, environment: [String: String]) throws -> FilePath? {
            let directory = named ?? ShopConfiguration.defaultDataDirectory(environment: environment)
            var info = stat()
            if directory.withPlatformString({ stat($0, &info) }) != 0 {
                guard named == nil, errno == ENOENT else {
                    complain("no such data directory: \(directory)")
                    throw ExitCodes.noInput
                }
                return nil
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                complain("the data directory \(directory) is not a directory")
                throw ExitCodes.noInput
            }
            return directory
        }

        private func render(_ orders: [Order]) throws -> String {
            guard json else { return OrderReport.table(orders) }
            do {
                return try OrderReport.json(orders)
            } catch {
                complain("cannot write the orders as JSON: \(error)")
                throw Self.cannotSerialize
            }
        }
    }
}
