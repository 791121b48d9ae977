import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// Carts per customer. A save is the cheapest write (`writeUnsynced`): a cart is saved on every change, and a sync
/// would be most of an add's cost on SQLite, two round trips most of it on PostgreSQL.
public final class SQLCartRepository: CartRepository {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func lines(forCustomer customer: String) async throws -> [CartLine] {
        try await database.run(.read) { connection in
            try connection.rows(
                """
                SELECT product_id, name, unit_price, currency, quantity, variant_sku, variant_title, grams FROM cart_line
                WHERE customer = \(customer) ORDER BY position
                """
            ).compactMap { row in
                // A row no shop could have written (edited by hand, damaged) is left out rather than trapping in CartLine.
                guard let currency = Currency(code: try row["currency"]), let quantity = try row["quantity"] as Int?,
                    CartLine.quantityRange.contains(quantity), let price = try row["unit_price"] as Int64?, price >= 0
                else { return nil }
                return CartLine(
                    productID: ProductID(try row["product_id"] as String), name: try row["name"],
                    unitPrice: Money(minorUnits: price, currency: currency), quantity: quantity,
                    variant: ChosenVariant(storedSKU: try row["variant_sku"], title: try row["variant_title"]), unitGrams: try row["grams"])
            }
        }
    }

    /// The lines are written over the old ones by position and the old ones past them deleted: on PostgreSQL in one
    /// statement (the two parts touch different rows, and the statement commits as one), on SQLite in its transaction.
    /// A cart of more lines than one statement takes (none a shopper makes by hand, but a script may) is written in
    /// one synced transaction, `linesPerStatement` lines a statement, on both.
    public func save(_ lines: [CartLine], forCustomer customer: String) async throws {
        let upserts = stride(from: 0, to: lines.count, by: Self.linesPerStatement).map { first in
            Self.upsert(lines[first..<min(first + Self.linesPerStatement, lines.count)], from: first, customer: customer)
        }
        let pastTheEnd: SQLStatement = "DELETE FROM cart_line WHERE customer = \(customer) AND position >= \(lines.count)"
        guard upserts.count <= 1 else {
            try await database.run(.write) { connection in
                for upsert in upserts { try connection.execute(upsert) }
                try connection.execute(pastTheEnd)
            }
            return
        }
        try await database.run(.writeUnsynced) { connection in
            switch (connection.dialect, upserts.first) {
            case (_, nil): try connection.execute(pastTheEnd)
            case (.sqlite, let upsert?):
                try connection.execute(upsert)
                try connection.execute(pastTheEnd)
            case (.postgres, let upsert?): try connection.execute("WITH written AS (\(upsert)) \(pastTheEnd)")
            }
        }
    }

    /// Ten values a line: 500 lines stay well under the values one statement may bind (PostgreSQL's 65,535; SQLite's
    /// 32,766 where it is built with its default).
    static let linesPerStatement = 500

    /// The statement writing `lines`, the first at position `first`, over the customer's lines at those positions.
    private static func upsert(_ lines: ArraySlice<CartLine>, from first: Int, customer: String) -> SQLStatement {
        var upsert: SQLStatement = """
            INSERT INTO cart_line (customer, position, product_id, name, unit_price, currency, quantity, variant_sku, variant_title, grams)
            VALUES
            """
        for (offset, line) in lines.enumerated() {
            upsert.append(
                """
                \(raw: offset == 0 ? " " : ", ")(\(customer), \(first + offset), \(line.productID.rawValue), \(line.name), \(line.unitPrice.minorUnits),
                    \(line.unitPrice.currency.code), \(line.quantity), \(line.variant?.sku.rawValue), \(line.variant?.title), \(line.unitGrams))
                """)
        }
        upsert.append(
            """

            ON CONFLICT (customer, position) DO UPDATE SET product_id = excluded.product_id, name = excluded.name,
                unit_price = excluded.unit_price, currency = excluded.currency, quantity = excluded.quantity,
                variant_sku = excluded.variant_sku, variant_title = excluded.variant_title, grams = excluded.grams
            """)
        return upsert
    }
}

extension SQLCartRepository: LiveObject {}
