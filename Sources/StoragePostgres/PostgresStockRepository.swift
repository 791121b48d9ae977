import LiveObjects
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// Stock in PostgreSQL, changed by hand: each change is one statement under the row's lock, so two hosts' changes
/// never lose one.
public final class PostgresStockRepository: StockRepository {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func stockLevels() async throws -> [StockLevel] {
        try await database.read { connection in
            var levels: [StockLevel] = []
            let rows = try await connection.query(
                "\(unescaped: StoredVariants.stockLevels + StoredVariants.stockLevelOrder)", logger: PostgresDatabase.quiet)
            for try await (id, name, onHand, reserved, sold) in rows.decode((String, String, Int, Int, Int).self) {
                levels.append(StockLevel(productID: ProductID(id), name: name, onHand: onHand, reserved: reserved, sold: sold))
            }
            return levels
        }
    }

    public func setStock(of product: ProductID, onHand: Int) async throws(StockChangeError) -> StockLevel {
        let onHand = try StockLevel.checked(onHand: onHand, of: product)
        return try await change(product) { connection in
            try await connection.query("UPDATE stock SET on_hand = \(onHand) WHERE product_id = \(product.rawValue)", logger: PostgresDatabase.quiet)
        }
    }

    public func adjustStock(of product: ProductID, by amount: Int) async throws(StockChangeError) -> StockLevel {
        try await change(product) { connection in
            guard
                let onHand = try await connection.query(
                    "SELECT on_hand FROM stock WHERE product_id = \(product.rawValue) FOR UPDATE", logger: PostgresDatabase.quiet
                )
                .collect().first?.decode(Int.self)
            else { return }
            let next = try StockLevel.checked(onHand: onHand, changedBy: amount, of: product)
            try await connection.query("UPDATE stock SET on_hand = \(next) WHERE product_id = \(product.rawValue)", logger: PostgresDatabase.quiet)
        }
    }

    /// Runs `body` and reads the product's level back, in one transaction; an unknown product changes nothing.
    private func change(_ product: ProductID, _ body: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws(StockChangeError)
        -> StockLevel
    {
        do {
            return try await database.write { connection in
                try await body(connection)
                let rows = try await connection.query(
                    "\(unescaped: StoredVariants.stockLevels) WHERE id = \(product.rawValue)", logger: PostgresDatabase.quiet)
                for try await (id, name, onHand, reserved, sold) in rows.decode((String, String, Int, Int, Int).self) {
                    return StockLevel(productID: ProductID(id), name: name, onHand: onHand, reserved: reserved, sold: sold)
                }
                throw StockChangeError.unknownProduct(product)
            }
        } catch let error as StockChangeError {
            throw error
        } catch let error as PostgresDatabaseError {
            throw .storage(error.storageError.message)
        } catch {
            throw .storage("\(error)")
        }
    }
}

extension PostgresStockRepository: LiveObject {}
