import ArgumentParser
import Foundation
import ShopApplication
import ShopBootstrap
import ShopCommands
import ShopModels
import ShopPorts

/// Where the merchant's commands (`orders show/ship/deliver`, `stock`) find the shop: the data directory's SQLite,
/// or PostgreSQL.
struct ShopDatabaseOptions: ParsableArguments {
    @Option(setting: "shop.data-dir", as: SettingValue.text) var dataDirectory: String?
    @Option(setting: "shop.database", as: SettingValue.text) var database: String?

    /// The configuration these options complete: flag, environment, config file, default.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ShopConfiguration {
        try .forCommand(flags: [("data-dir", dataDirectory), ("database", database)], environment: environment)
    }
}

/// The order an order command acts on, where to find it, and how to print it.
struct OrderTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("The order number, such as SF-000001.", valueName: "number"))
    var number: String

    @OptionGroup var shop: ShopDatabaseOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// Makes `change` in the back office and prints the order (`BackOfficeCommand.run`).
    func change(_ change: @Sendable (LiveBackOffice, OrderActor) async throws(BackOfficeError) -> Order) async throws {
        try await BackOfficeCommand.run(configuration: shop.configuration(), json: json, change)
    }
}

extension OrdersCommand {
    /// `storefront orders show N`: one order, its lines and its history.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one order with its lines and its history, oldest event first.")

        @OptionGroup var target: OrderTarget

        func run() async throws {
            try await OrderCommands.show(
                target.number, configuration: target.shop.configuration(), json: target.json)
        }
    }

    /// `storefront orders ship N --carrier … --tracking-number …`.
    struct Ship: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ship", abstract: "Mark a paid order shipped, with its carrier and tracking number.")

        @OptionGroup var target: OrderTarget
        @Option(help: ArgumentHelp("Who carries the parcel, such as UPS.", valueName: "name"))
        var carrier: String

        @Option(name: .customLong("tracking-number"), help: ArgumentHelp("The carrier's tracking number.", valueName: "text"))
        var trackingNumber: String

        @Option(name: .customLong("tracking-url"), help: ArgumentHelp("Where the shopper can follow the parcel (https://…).", valueName: "url"))
        var trackingURL: String?

        func validate() throws {
            let problem = OrderCommands.shipmentProblem(carrier: carrier, trackingNumber: trackingNumber, trackingURL: trackingURL)
            if let problem { throw ValidationError(problem) }
        }

        func run() async throws {
            let (number, parcel) = (target.number, Shipment(carrier: carrier, trackingNumber: trackingNumber, trackingURL: trackingURL))
            try await target.change { office, actor throws(BackOfficeError) in
                try await office.ship(number, parcel, by: actor, expecting: nil)
            }
        }
    }

    /// `storefront orders deliver N`.
    struct Deliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deliver", abstract: "Mark a shipped order delivered.")

        @OptionGroup var target: OrderTarget

        func run() async throws {
            let number = target.number
            try await target.change { office, actor throws(BackOfficeError) in
                try await office.markDelivered(number, by: actor, expecting: nil)
            }
        }
    }
}
