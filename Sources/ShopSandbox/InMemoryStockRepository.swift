import ShopModels
import ShopPorts
import Synchronization

/// Stock counts kept in memory: for tests and the merchant console's snapshots.
public final class InMemoryStockRepository: StockRepository {
    private let levels: Mutex<[StockLevel]>

    public init(_ levels: [StockLevel]) {
        self.levels = Mutex(levels)
    }

    public func stockLevels() -> [StockLevel] {
        levels.withLock { $0.sorted { ($0.onHand, $0.name) < ($1.onHand, $1.name) } }
    }

    public func setStock(of product: ProductID, onHand: Int) throws(StockChangeError) -> StockLevel {
        let onHand = try StockLevel.checked(onHand: onHand, of: product)
        return try change(product) { $0.onHand = onHand }
    }

    public func adjustStock(of product: ProductID, by change: Int) throws(StockChangeError) -> StockLevel {
        try self.change(product) { level throws(StockChangeError) in
            level.onHand = try StockLevel.checked(onHand: level.onHand, changedBy: change, of: product)
        }
    }

    private func change(_ product: ProductID, _ body: (inout StockLevel) throws(StockChangeError) -> Void) throws(StockChangeError) -> StockLevel {
        let result: Result<StockLevel, StockChangeError> = levels.withLock { all in
            guard let index = all.firstIndex(where: { $0.productID == product }) else { return .failure(.unknownProduct(product)) }
            do throws(StockChangeError) {
                try body(&all[index])
                return .success(all[index])
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
