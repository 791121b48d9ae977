import ArgumentParser
import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopPorts
import StoragePostgres
import StorageSQLite
import StorefrontUI
import SystemPackage

/// Where the merchant's commands (`orders show/ship/deliver`, `stock`) find the shop: the data directory's SQLite,
/// or PostgreSQL.
struct ShopDatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp("Where the shop keeps its files. Default: $XDG_DATA_HOME/storefront. Env: STOREFRONT_DATA_DIR.", valueName: "path"))
    var dataDirectory: String?

    @Option(help: ArgumentHelp("The shop's PostgreSQL instead of the data directory's SQLite. Env: STOREFRONT_DATABASE_URL.", valueName: "url"))
    var database: String?

    /// The configuration these options complete: flag, environment, config file, default.
    func configuration(environment: [String: String]) throws -> ShopConfiguration {
        var configuration = try ShopConfiguration.loadForCommand(environment: environment)
        try configuration.apply(flags: [("data-dir", dataDirectory), ("database", database)])
        return configuration
    }

    /// The shop's storage, opened for writing (SQLite is brought up to date; PostgreSQL must be already); a shop that
    /// is not there is told and exits 66.
    func openStorage() async throws -> ShopStorage {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try configuration(environment: environment)
        let directory = configuration.dataDirectory(environment: environment)
        return try await openingStorage {
            try await ShopStorage.openExisting(at: configuration.storagePlace(dataDirectory: directory), environment: environment)
        }
    }

    func openOrders() async throws -> (orders: any OrderRepository & RefundRepository, close: @Sendable () -> Void) {
        let storage = try await openStorage()
        return (storage.orders, storage.close)
    }

    func openTokens() async throws -> (tokens: any APITokenRepository, close: @Sendable () -> Void) {
        let storage = try await openStorage()
        return (storage.tokens, storage.close)
    }

    func openStock() async throws -> (stock: any StockRepository, close: @Sendable () -> Void) {
        let storage = try await openStorage()
        return (storage.stock, storage.close)
    }
}

/// The order an order command acts on, where to find it, and how to print it.
struct OrderTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("The order number, such as SF-000001.", valueName: "number"))
    var number: String

    @OptionGroup var shop: ShopDatabaseOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false
}

/// How the order commands print an order: its summary and history, or the JSON document.
enum OrderOutput {
    /// Prints the order as asked; a change that is made but cannot be told is still an error.
    static func emit(_ order: Order, events: [OrderEvent], refunds: [FiledRefund] = [], json: Bool) throws {
        let text = json ? try OrderReport.json(order, events: events, refunds: refunds) : OrderReport.text(order, events: events, refunds: refunds)
        try writeResult(text, what: "the order")
    }
}

extension OrdersCommand {
    /// `storefront orders show N`: one order, its lines and its history.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one order with its lines and its history, oldest event first.")

        @OptionGroup var target: OrderTarget

        func run() async throws {
            let (number, json) = (target.number, target.json)
            let (orders, close) = try await target.shop.openOrders()
            defer { close() }
            let order: Order?
            let events: [OrderEvent]
            let refunds: [FiledRefund]
            do {
                order = try await orders.order(number: number)
                events = try await orders.events(orderNumber: number)
                refunds = try await orders.refunds(orderNumber: number)
            } catch {
                complain("\(error)")
                throw ExitCodes.ioError
            }
            guard let order else {
                complain("There is no order \(number).")
                throw ExitCodes.dataError
            }
            try OrderOutput.emit(order, events: events, refunds: refunds, json: json)
        }
    }

    /// `storefront orders ship N --carrier … --tracking-number …`.
    struct Ship: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a paid order shipped, with its carrier and tracking number.")

        @OptionGroup var target: OrderTarget
        @Option(help: ArgumentHelp("Who carries the parcel, such as UPS.", valueName: "name"))
        var carrier: String

        @Option(name: .customLong("tracking-number"), help: ArgumentHelp("The carrier's tracking number.", valueName: "text"))
        var trackingNumber: String

        @Option(name: .customLong("tracking-url"), help: ArgumentHelp("Where the shopper can follow the parcel (https://…).", valueName: "url"))
        var trackingURL: String?

        func validate() throws {
            for (name, value) in [("--carrier", carrier), ("--tracking-number", trackingNumber)] where !MerchantEntry.isPlainLine(value) {
                throw ValidationError("\(name) must be 1 to 100 characters on one line, got \"\(value)\"")
            }
            if let trackingURL, !MerchantEntry.isWebAddress(trackingURL) {
                throw ValidationError("--tracking-url must be a web address (https://…), got \"\(trackingURL)\"")
            }
        }

        func run() async throws {
            let (number, parcel) = (target.number, Shipment(carrier: carrier, trackingNumber: trackingNumber, trackingURL: trackingURL))
            try await BackOfficeSession.run(target) { office, actor throws(BackOfficeError) in
                try await office.ship(number, parcel, by: actor, expecting: nil)
            }
        }
    }

    /// `storefront orders deliver N`.
    struct Deliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a shipped order delivered.")

        @OptionGroup var target: OrderTarget

        func run() async throws {
            let number = target.number
            try await BackOfficeSession.run(target) { office, actor throws(BackOfficeError) in
                try await office.markDelivered(number, by: actor, expecting: nil)
            }
        }
    }
}
