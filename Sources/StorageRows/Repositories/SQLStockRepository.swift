import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// Stock, changed by hand: each change and the level read back are one transaction, and on PostgreSQL the row is
/// locked first, so two hosts' changes never lose one.
public final class SQLStockRepository: StockRepository {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func stockLevels() async throws -> [StockLevel] {
        try await database.run(.read) { connection in
            try connection.rows("\(raw: StoredVariants.stockLevels + StoredVariants.stockLevelOrder)").map(Self.level)
        }
    }

    public func setStock(of product: ProductID, onHand: Int) async throws(StockChangeError) -> StockLevel {
        let onHand = try StockLevel.checked(onHand: onHand, of: product)
        return try await change(product) { connection in
            try connection.execute("UPDATE stock SET on_hand = \(onHand) WHERE product_id = \(product.rawValue)")
        }
    }

    public func adjustStock(of product: ProductID, by amount: Int) async throws(StockChangeError) -> StockLevel {
        try await change(product) { connection in
            guard
                let onHand: Int = try connection.value("SELECT on_hand FROM stock WHERE product_id = \(product.rawValue)\(raw: connection.forUpdate)")
            else { return }
            let next = try StockLevel.checked(onHand: onHand, changedBy: amount, of: product)
            try connection.execute("UPDATE stock SET on_hand = \(next) WHERE product_id = \(product.rawValue)")
        }
    }

    /// Runs `body` and reads the product's level back, in one transaction; an unknown product changes nothing.
    private func change(_ product: ProductID, _ body: @escaping @Sendable (any SQLConnection) throws -> Void) async throws(StockChangeError)
        -> StockLevel
    {
        try await database.run(.write, failing: StockChangeError.storage) { connection in
            try body(connection)
            guard let row = try connection.row("\(raw: StoredVariants.stockLevels) WHERE id = \(product.rawValue)") else {
                throw StockChangeError.unknownProduct(product)
            }
            return try Self.level(row)
        }
    }

    private static func level(_ row: SQLRow) throws -> StockLevel {
        StockLevel(
            productID: ProductID(try row["id"] as String), name: try row["name"], onHand: try row["on_hand"], reserved: try row["reserved"],
            sold: try row["sold"])
    }
}

extension SQLStockRepository: LiveObject {}
