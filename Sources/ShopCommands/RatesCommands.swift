import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts

/// `storefront rates`: the exchange rates the shop's markets sell at, their day, and whether they are stale
/// (docs/international.md).
public enum RatesCommands {
    /// Prints the rates' source and day, each market with its currency, rounding and what 100 of the shop's currency
    /// is there; rates older than `rates-max-age-days` (by the shop's clock) are named as stale. 78 for rates that do
    /// not read or do not serve the markets.
    public static func show(configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let rates: ExchangeRates
        let source: String
        do { (rates, source) = try configuration.exchangeRates() } catch {
            complain("bad configuration: \(error)")
            throw ExitCodes.configError
        }
        let pricing = (storage.catalog as? MarketCatalog)?.pricing
        printSafely(
            report(rates: rates, source: source, pricing: pricing, today: UTCTime(storage.clock.now()).calendarDate, configuration: configuration))
    }

    /// What `show` prints.
    public static func report(rates: ExchangeRates, source: String, pricing: MarketPricing?, today: String, configuration: ShopConfiguration)
        -> String
    {
        let limit = configuration.ratesMaxAgeDays ?? ShopConfiguration.defaultRatesMaxAgeDays
        let age = rates.age(on: today) ?? 0
        let freshness =
            age > limit
            ? "STALE: \(age) days old, more than the \(limit) days rates-max-age-days allows; drop in today's file"
            : age == 1 ? "1 day old" : "\(age) days old"
        var lines = ["rates of \(rates.day) from \(source) (\(freshness))"]
        guard let pricing else {
            lines.append("the catalog names no markets: the shop sells in its own currency alone")
            return lines.joined(separator: "\n")
        }
        let base = pricing.base.currency
        let hundred = Money(minorUnits: 100 * base.minorUnitsPerMajor, currency: base)
        lines.append("markets (the first is home):")
        let width = pricing.markets.map(\.id.count).max() ?? 0
        for market in pricing.markets {
            let id = market.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let regions = market.regionIDs.joined(separator: ", ")
            let converted =
                market.currency == base
                ? "the shop's own currency"
                : rates.convert(hundred, to: market.currency).map {
                    "\(hundred.plainAmount) \(base.code) = \($0.plainAmount) \(market.currency.code)"
                }
                    ?? "no rate"
            // Fixed prices are sold as they are: the rates and the rounding leave them alone.
            let fixed = market.prices.isEmpty ? "" : "  \(market.prices.count) price\(market.prices.count == 1 ? "" : "s") fixed"
            lines.append("  \(id)  \(market.currency.code)  rounding \(market.rounding)  regions \(regions)  \(converted)\(fixed)")
        }
        return lines.joined(separator: "\n")
    }
}
