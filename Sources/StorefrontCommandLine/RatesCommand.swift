import ArgumentParser
import Foundation
import ShopBootstrap
import ShopCommands

/// `storefront rates`: the exchange rates the markets sell at, and whether they are stale (docs/international.md).
struct RatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates",
        abstract: "Show the exchange rates the catalog's markets sell at, their day, and whether they are older than rates-max-age-days.")

    @Option(setting: "shop.data-dir", as: SettingValue.text) var dataDirectory: String?
    @Option(setting: "shop.database", as: SettingValue.text) var database: String?
    @Option(setting: "shop.rates", as: SettingValue.text) var rates: String?

    func run() async throws {
        let configuration = try ShopConfiguration.forCommand(flags: [("data-dir", dataDirectory), ("database", database), ("rates", rates)])
        try await RatesCommands.show(configuration: configuration)
    }
}
