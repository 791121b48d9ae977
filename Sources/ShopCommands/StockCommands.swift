import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopPorts

/// `storefront stock`: every product's stock, and counts set or adjusted by hand.
public enum StockCommands {
    /// Every product's stock (at most `low` on hand, when given), fewest first; 74 when storage fails.
    public static func list(
        configuration: ShopConfiguration, low: Int?, json: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let levels: [StockLevel]
        do { levels = try await storage.stock.stockLevels() } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        try emit(levels.filter { level in low.map { level.onHand <= $0 } ?? true }, json: json)
    }

    /// Runs a change and prints the product's new level; 65 for an unknown product or a count out of bounds, 74 when
    /// storage failed.
    public static func change(
        configuration: ShopConfiguration, json: Bool, environment: [String: String] = ProcessInfo.processInfo.environment,
        _ body: (any StockRepository) async throws(StockChangeError) -> StockLevel
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let level: StockLevel
        do throws(StockChangeError) {
            level = try await body(storage.stock)
        } catch {
            complain("\(error)")
            if case .storage = error { throw ExitCodes.ioError }
            throw ExitCodes.dataError
        }
        try emit([level], json: json)
    }

    /// Prints `levels` as a table or as `{"version": 1, "stock": [...]}`.
    static func emit(_ levels: [StockLevel], json: Bool) throws {
        try writeResult(json ? try StockReport.json(levels) : StockReport.table(levels), what: "the stock")
    }
}
