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
            "currency": shop.currency.code, "supportedNetworks": shop.supportedNetworks.map(\.rawValue), "regions": shop.regions.map(region),
        ]
        if !shop.markets.isEmpty {
            fields["markets"] = shop.markets.map { market -> [String: Any] in
                var fields: [String: Any] = ["id": market.id, "name": market.name, "currency": market.currency.code, "regions": market.regionIDs]
                if market.rounding != .none { fields["rounding"] = market.rounding.description }
                if !market.prices.isEmpty { fields["prices"] = market.prices }
                return fields
            }
        }
        if let email = shop.email { fields["email"] = email }
        if let replyTo = shop.replyTo { fields["replyTo"] = replyTo }
        if shop.renewalReminderDays != ShopProfile.defaultRenewalReminderDays { fields["renewalReminderDays"] = shop.renewalReminderDays }
        return fields
    }

    static func region(_ region: SalesRegion) -> [String: Any] {
        var tax: [String: Any] = ["rule": region.tax.rule.rawValue, "label": region.tax.label]
        if region.tax.rule != .none {
            tax["basisPoints"] = region.tax.basisPoints
            if !region.tax.rates.isEmpty {
                tax["rates"] = Dictionary(
                    uniqueKeysWithValues: region.tax.rates.map { rate -> (String, Any) in
                        (rate.place, rate.label.map { ["basisPoints": rate.basisPoints, "label": $0] as [String: Any] } ?? rate.basisPoints)
                    })
            }
        }
        let shipping = region.rates.map { rate -> [String: Any] in
            var fields: [String: Any] = ["id": rate.id, "label": rate.label, "detail": rate.detail]
            switch rate.pricing {
            case .flat(let amount): fields["amount"] = amount.minorUnits
            case .byWeight(let bands): fields["weightBands"] = bands.map { ["upToGrams": $0.upToGrams, "amount": $0.amount.minorUnits] }
            case .bySubtotal(let bands): fields["subtotalBands"] = bands.map { ["from": $0.from.minorUnits, "amount": $0.amount.minorUnits] }
            }
            if let free = rate.freeFrom { fields["freeFrom"] = free.minorUnits }
            return fields
        }
        return ["id": region.id, "name": region.name, "places": region.places, "tax": tax, "shipping": shipping]
    }

    /// A stored picture with its digest and size, so the shop that reads it back knows it; a file not yet read as its path.
    public static func pictureField(_ picture: PictureReference) -> Any {
        guard picture.isStored else { return picture.file }
        return ["file": picture.file, "sha256": picture.digest, "width": picture.width, "height": picture.height] as [String: Any]
    }

    public static func product(_ product: Product, stock: (Product) -> Int?) -> [String: Any] {
        var fields: [String: Any] = [
            "id": product.id.rawValue, "name": product.name, "summary": product.summary, "description": product.description,
            "price": product.price.minorUnits, "art": product.art, "tags": product.tags,
        ]
        if !product.subscriptionWeeks.isEmpty { fields["subscription"] = ["everyWeeks": product.subscriptionWeeks] }
        if !product.pictures.isEmpty { fields["pictures"] = product.pictures.map(pictureField) }
        guard !product.options.isEmpty else {
            if let stock = stock(product) { fields["stock"] = stock }
            return fields
        }
        fields["options"] = product.options.map { ["name": $0.name, "values": $0.values] }
        fields["variants"] = product.variants.map { variant -> [String: Any] in
            var fields: [String: Any] = ["sku": variant.sku.rawValue, "options": variant.values, "price": variant.price.minorUnits]
            if let stock = variant.stock { fields["stock"] = stock }
            if let grams = variant.grams { fields["grams"] = grams }
            if !variant.pictures.isEmpty { fields["pictures"] = variant.pictures.map(pictureField) }
            return fields
        }
        return fields
    }
}
