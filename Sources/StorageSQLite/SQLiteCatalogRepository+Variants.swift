import GRDB
import ShopModels
import StorageRows

extension [Product] {
    /// The products with their variants and each variant's stock, read in one query for every product with options.
    func withVariants(in db: Database) throws -> [Product] {
        let owners = filter { !$0.options.isEmpty }
        guard !owners.isEmpty else { return self }
        let marks = owners.map { _ in "?" }.joined(separator: ", ")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT product_variant.*, stock.on_hand AS on_hand FROM product_variant LEFT JOIN stock ON stock.product_id = product_variant.sku
                WHERE product_variant.product_id IN (\(marks)) ORDER BY product_variant.product_id, product_variant.position
                """, arguments: StatementArguments(owners.map(\.id.rawValue)))
        var variants: [String: [ProductVariant]] = [:]
        for row in rows {
            let price: Int64 = row["price"]
            let currency = owners[0].price.currency
            variants[row["product_id"], default: []].append(
                ProductVariant(
                    sku: ProductID(row["sku"] as String), values: Product.storedLines(row["option_values"]),
                    price: Money(minorUnits: price, currency: currency), stock: row["on_hand"], grams: row["grams"]))
        }
        return map { product in
            guard !product.options.isEmpty else { return product }
            return StoredVariants.attach(variants[product.id.rawValue] ?? [], to: product)
        }
    }
}
