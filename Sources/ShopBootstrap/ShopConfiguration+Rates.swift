import Foundation
import ShopBundledCatalog
import ShopModels
import ShopPorts

/// The exchange rates the shop's markets sell at: the merchant's file (`shop.rates`), else the bundled sample.
extension ShopConfiguration {
    /// Days old at which rates are named as stale where `rates-max-age-days` is not set.
    public static let defaultRatesMaxAgeDays = 7

    /// The rates as configured, with where they came from for messages.
    public func exchangeRates() throws(ConfigurationError) -> (rates: ExchangeRates, source: String) {
        guard let path = rates else {
            do { return (try ExchangeRates(ecbXML: Array(BundledRates.xml.utf8)), "the bundled sample rates") } catch {
                // The bundled file is checked by the tests: it cannot be wrong in a build that passed them.
                throw ConfigurationError(source: "bundled rates.xml", line: nil, message: error.description)
            }
        }
        let url = URL(fileURLWithPath: path.string)
        let bytes: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            // One byte past the limit is read, so a file over it is told as such rather than cut.
            bytes = Array(try handle.read(upToCount: ExchangeRates.maximumFileBytes + 1) ?? Data())
        } catch {
            throw ConfigurationError(source: path.string, line: nil, message: "cannot read the rates file: \(error.localizedDescription)")
        }
        do { return (try ExchangeRates(ecbXML: bytes), path.string) } catch {
            throw ConfigurationError(source: path.string, line: error.line > 0 ? error.line : nil, message: error.message)
        }
    }

    /// The storage with its catalog as the home market sells it, where the catalog names markets.
    public func pricingMarkets(of storage: ShopStorage) throws(ConfigurationError) -> ShopStorage {
        guard !(storage.catalog is MarketCatalog) else { return storage }
        var storage = storage
        storage.catalog = MarketCatalog.home(storage.catalog, pricing: try marketPricing(for: storage.catalog.shop))
        return storage
    }

    /// The markets of `shop` priced at the configured rates; nil for a shop whose catalog names no markets.
    public func marketPricing(for shop: ShopProfile) throws(ConfigurationError) -> MarketPricing? {
        guard !shop.markets.isEmpty else { return nil }
        let (rates, source) = try exchangeRates()
        do { return try MarketPricing(shop: shop, rates: rates) } catch {
            throw ConfigurationError(source: source, line: nil, message: error.message)
        }
    }
}
