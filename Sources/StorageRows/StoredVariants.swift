import Foundation
import ShopModels

/// How both databases keep a product's options and variants: the options as JSON in the product's row, each
/// variant in a row of its own, and stock under each variant's SKU.
public enum StoredVariants {
    /// The `options` column: "" for a product sold as one item, else its options as JSON.
    public static func options(_ options: [ProductOption]) throws -> String {
        options.isEmpty ? "" : String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
    }

    /// The options kept in a product's row; none when the column is empty or unreadable (a product then sells as one item).
    public static func options(_ stored: String) -> [ProductOption] {
        guard !stored.isEmpty else { return [] }
        return (try? JSONDecoder().decode([ProductOption].self, from: Data(stored.utf8))) ?? []
    }

    /// Where a product's stock is kept, with the units it starts with: under each variant's SKU, or the product's id.
    public static func stockKeys(of product: Product) -> [(ProductID, Int?)] {
        product.variants.isEmpty ? [(product.id, product.stock)] : product.variants.map { ($0.sku, $0.stock) }
    }

    /// `product` with its variants read back: its stock is theirs added up, its price the lowest of theirs.
    public static func attach(_ variants: [ProductVariant], to product: Product) -> Product {
        var product = product
        product.variants = variants
        product.stock = variants.reduce(0) { $0 + ($1.stock ?? 0) }
        if let lowest = variants.min(by: { $0.price.minorUnits < $1.price.minorUnits }) { product.price = lowest.price }
        return product
    }
}

extension ChosenVariant {
    /// A line's variant from its `variant_sku` and `variant_title` columns; nil for a line of a product sold as one item.
    public init?(storedSKU sku: String?, title: String?) {
        guard let sku, !sku.isEmpty else { return nil }
        self.init(sku: ProductID(sku), title: title ?? "")
    }
}

extension StoredVariants {
    /// Every product's stock row, and every variant's under its SKU named "Product — values": those in the catalog,
    /// then those withdrawn ("… (withdrawn)") and rows whose variant was edited out ("SKU (no longer in the catalog)"),
    /// so the merchant sees stock that no longer sells. The same SQL on both databases. Add a `WHERE id = ?` or the
    /// `stockLevelOrder`.
    public static let stockLevels = """
        SELECT id, name, on_hand, reserved, sold FROM (
            SELECT product.id AS id, product.name AS name, stock.on_hand AS on_hand, stock.reserved AS reserved, stock.sold AS sold,
                product.position AS position, -1 AS variant_position
            FROM product JOIN stock ON stock.product_id = product.id WHERE product.position IS NOT NULL AND product.options = ''
            UNION ALL
            SELECT variant.sku, product.name || ' — ' || variant.title, stock.on_hand, stock.reserved, stock.sold,
                product.position, variant.position
            FROM product_variant AS variant JOIN product ON product.id = variant.product_id JOIN stock ON stock.product_id = variant.sku
            WHERE product.position IS NOT NULL
            UNION ALL
            SELECT product.id, product.name || ' (withdrawn)', stock.on_hand, stock.reserved, stock.sold, 2147483647, -1
            FROM product JOIN stock ON stock.product_id = product.id WHERE product.position IS NULL AND product.options = ''
            UNION ALL
            SELECT variant.sku, product.name || ' — ' || variant.title || ' (withdrawn)', stock.on_hand, stock.reserved, stock.sold,
                2147483647, variant.position
            FROM product_variant AS variant JOIN product ON product.id = variant.product_id JOIN stock ON stock.product_id = variant.sku
            WHERE product.position IS NULL
            UNION ALL
            SELECT stock.product_id, stock.product_id || ' (no longer in the catalog)', stock.on_hand, stock.reserved, stock.sold, 2147483647, -1
            FROM stock
            WHERE NOT EXISTS (SELECT 1 FROM product WHERE product.id = stock.product_id)
                AND NOT EXISTS (SELECT 1 FROM product_variant WHERE product_variant.sku = stock.product_id)
        ) AS level
        """

    /// The stock screen's order: the fewest left first, then the catalog's order.
    public static let stockLevelOrder = " ORDER BY on_hand, position, variant_position"
}
