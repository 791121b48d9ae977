import GRDB
import LiveObjects
import ShopModels
import ShopPorts
import StorageRows

/// Stock in SQLite, changed by hand: each change is one IMMEDIATE transaction.
public final class SQLiteStockRepository: StockRepository {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func stockLevels() async throws -> [StockLevel] {
        try await database.read { db in
            try Row.fetchAll(db, sql: StoredVariants.stockLevels + StoredVariants.stockLevelOrder).map(Self.level)
        }
    }

    public func setStock(of product: ProductID, onHand: Int) async throws(StockChangeError) -> StockLevel {
        let onHand = try StockLevel.checked(onHand: onHand, of: product)
        return try await change(product) { db in
            try db.execute(sql: "UPDATE stock SET on_hand = ? WHERE product_id = ?", arguments: [onHand, product.rawValue])
        }
    }

    public func adjustStock(of product: ProductID, by amount: Int) async throws(StockChangeError) -> StockLevel {
        try await change(product) { db in
            guard let onHand = try Int.fetchOne(db, sql: "SELECT on_hand FROM stock WHERE product_id = ?", arguments: [product.rawValue]) else {
                return
            }
            let next = try StockLevel.checked(onHand: onHand, changedBy: amount, of: product)
            try db.execute(sql: "UPDATE stock SET on_hand = ? WHERE product_id = ?", arguments: [next, product.rawValue])
        }
    }

    /// Runs `body` and reads the product's level back, in one transaction; an unknown product changes nothing.
    private func change(_ product: ProductID, _ body: @escaping @Sendable (Database) throws -> Void) async throws(StockChangeError) -> StockLevel {
        do {
            return try await database.pool.write { db in
                try body(db)
                guard let row = try Row.fetchOne(db, sql: StoredVariants.stockLevels + " WHERE id = ?", arguments: [product.rawValue]) else {
                    throw StockChangeError.unknownProduct(product)
                }
                return Self.level(row)
            }
        } catch let error as StockChangeError {
            throw error
        } catch {
            throw .storage(SQLiteDatabaseError.from(error, path: database.path).description)
        }
    }

    private static func level(_ row: Row) -> StockLevel {
        StockLevel(productID: ProductID(row["id"] as String), name: row["name"], onHand: row["on_hand"], reserved: row["reserved"], sold: row["sold"])
    }
}

extension SQLiteStockRepository: LiveObject {}
