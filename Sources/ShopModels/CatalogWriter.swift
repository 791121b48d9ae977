import Foundation

/// Writes a catalog in the file format `CatalogLoader` reads: what `storefront catalog export` prints, and what
/// `catalog import` and `--catalog` read back to the same catalog.
public enum CatalogWriter {
    /// The catalog as JSON, keys sorted, one product per entry: `{"store": {...}, "products": [...]}`.
    public static func json(_ catalog: Catalog, stock: (Product) -> Int? = { $0.stock }) throws -> Data {
        let document: [String: Any] = ["store": store(catalog.shop), "products": catalog.products.map { product($0, stock: stock) }]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    static func store(_ shop: ShopProfile) -> [String: Any] {
        var fields: [String: Any] = [
            "name": shop.name, "merchantIdentifier": shop.merchantIdentifier, "country": shop.countryCode,
            "currency": shop.currency.code, "taxLabel": shop.tax.label, "taxBasisPoints": shop.tax.basisPoints,
            "supportedNetworks": shop.supportedNetworks.map(\.rawValue),
            "shipping": shop.shippingMethods.map { method -> [String: Any] in
                var fields: [String: Any] = ["id": method.id, "label": method.label, "detail": method.detail, "amount": method.amount.minorUnits]
                if let free = method.freeFrom { fields["freeFrom"] = free.minorUnits }
                return fields
            },
        ]
        if let email = shop.email { fields["email"] = email }
        if let replyTo = shop.replyTo { fields["replyTo"] = replyTo }
        return fields
    }

    static func product(_ product: Product, stock: (Product) -> Int?) -> [String: Any] {
        var fields: [String: Any] = [
            "id": product.id.rawValue, "name": product.name, "summary": product.summary, "description": product.description,
            "price": product.price.minorUnits, "art": product.art, "tags": product.tags,
        ]
        guard !product.options.isEmpty else {
            if let stock = stock(product) { fields["stock"] = stock }
            return fields
        }
        fields["options"] = product.options.map { ["name": $0.name, "values": $0.values] }
        fields["variants"] = product.variants.map { variant -> [String: Any] in
            var fields: [String: Any] = ["sku": variant.sku.rawValue, "options": variant.values, "price": variant.price.minorUnits]
            if let stock = variant.stock { fields["stock"] = stock }
            if let grams = variant.grams { fields["grams"] = grams }
            return fields
        }
        return fields
    }
}
