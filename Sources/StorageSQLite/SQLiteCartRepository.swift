import Foundation
import GRDB
import LiveObjects
import ShopModels
import ShopPorts
import StorageRows

/// Carts per customer in SQLite; a save replaces the customer's lines in one transaction.
public final class SQLiteCartRepository: CartRepository {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func lines(forCustomer customer: String) async throws -> [CartLine] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM cart_line WHERE customer = ? ORDER BY position", arguments: [customer]).compactMap { row in
                // A row no shop could have written (edited by hand, damaged) is left out rather than trapping in CartLine.
                guard let currency = Currency(code: row["currency"]), let quantity = row["quantity"] as Int?,
                    CartLine.quantityRange.contains(quantity), let price = row["unit_price"] as Int64?, price >= 0
                else { return nil }
                return CartLine(
                    productID: ProductID(row["product_id"] as String), name: row["name"], unitPrice: Money(minorUnits: price, currency: currency),
                    quantity: quantity, variant: ChosenVariant(storedSKU: row["variant_sku"], title: row["variant_title"]), unitGrams: row["grams"])
            }
        }
    }

    /// Not synced at its commit (`writeUnsynced`): a cart is saved on every change, and a sync would be most of an add's cost.
    /// The statements are prepared once per connection (`cachedStatement`): compiling them again was most of a save.
    public func save(_ lines: [CartLine], forCustomer customer: String) async throws {
        try await database.writeUnsynced { db in
            try db.cachedStatement(sql: "DELETE FROM cart_line WHERE customer = ?").execute(arguments: [customer])
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO cart_line (customer, position, product_id, name, unit_price, currency, quantity, variant_sku, variant_title, grams)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for (position, line) in lines.enumerated() {
                try insert.execute(arguments: [
                    customer, position, line.productID.rawValue, line.name, line.unitPrice.minorUnits, line.unitPrice.currency.code, line.quantity,
                    line.variant?.sku.rawValue, line.variant?.title, line.unitGrams,
                ])
            }
        }
    }
}

extension SQLiteCartRepository: LiveObject {}
