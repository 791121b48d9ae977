import Foundation

/// The catalog file's options and variants (docs/catalog.md): read and checked as `CatalogLoader` reads products.
extension CatalogLoader {
    /// A variant's SKU names its stock, so it must be unique in the catalog and apart from every product's id.
    static func skuClashes(_ products: [Product], productIDs: [String: Int]) -> [CatalogIssue] {
        var issues: [CatalogIssue] = []
        var skus: [ProductID: ProductID] = [:]
        for product in products {
            for (index, variant) in product.variants.enumerated() {
                let path = "$.products[\(productIDs[product.id.rawValue] ?? 0)].variants[\(index)].sku"
                if let owner = skus[variant.sku] {
                    issues.append(CatalogIssue(path: path, productID: product.id.rawValue, message: "\(variant.sku) is already a SKU of \(owner)"))
                } else if let index = productIDs[variant.sku.rawValue] {
                    issues.append(
                        CatalogIssue(path: path, productID: product.id.rawValue, message: "\(variant.sku) is the id of $.products[\(index)]"))
                }
                skus[variant.sku] = product.id
            }
        }
        return issues
    }

    /// `options`: at most three, each a unique non-empty name with unique non-empty values.
    static func parseOptions(_ value: JSONValue?, path: String, id: String?, issues: inout [CatalogIssue]) -> [ProductOption] {
        guard let value else { return [] }
        func fail(_ at: String, _ message: String) { issues.append(CatalogIssue(path: "\(path).options\(at)", productID: id, message: message)) }
        guard let list = value.arrayValue else {
            fail("", "must be an array of options")
            return []
        }
        if list.count > ProductOption.maximumCount { fail("", "has \(list.count) options; a product has at most \(ProductOption.maximumCount)") }
        var options: [ProductOption] = []
        for (index, item) in list.enumerated() {
            guard let fields = item.objectValue else {
                fail("[\(index)]", "must be an object with \"name\" and \"values\"")
                continue
            }
            let name = label(fields["name"]) { fail("[\(index)].name", $0) }
            if let name, options.contains(where: { $0.name == name }) { fail("[\(index)].name", "repeats the option \"\(name)\"") }
            var values: [String] = []
            if let list = fields["values"]?.arrayValue, !list.isEmpty {
                for (position, item) in list.enumerated() {
                    guard let value = label(item, fail: { fail("[\(index)].values[\(position)]", $0) }) else { continue }
                    if values.contains(value) { fail("[\(index)].values[\(position)]", "repeats the value \"\(value)\"") }
                    values.append(value)
                }
            } else {
                fail("[\(index)].values", "must be a non-empty array of strings")
            }
            if let name { options.append(ProductOption(name: name, values: values)) }
        }
        return options
    }

    /// `variants`: each with a SKU, one known value per option, a combination no other variant has, and an optional
    /// price (the product's otherwise), stock and weight in grams.
    static func parseVariants(
        _ value: JSONValue?, options: [ProductOption], path: String, id: String?, price: Int64?, currency: Currency,
        issues: inout [CatalogIssue]
    ) -> [ProductVariant] {
        func fail(_ at: String, _ message: String) { issues.append(CatalogIssue(path: "\(path).variants\(at)", productID: id, message: message)) }
        guard let value else {
            if !options.isEmpty { fail("", "missing field: a product with options lists its variants") }
            return []
        }
        guard let list = value.arrayValue, !list.isEmpty else {
            fail("", "must be a non-empty array of variants")
            return []
        }
        if options.isEmpty { fail("", "needs \"options\" naming what its variants differ in") }
        var variants: [ProductVariant] = []
        for (index, item) in list.enumerated() {
            let at = "[\(index)]"
            guard let fields = item.objectValue else {
                fail(at, "must be an object")
                continue
            }
            let sku = productID(fields["sku"])
            if sku?.isEmpty != false {
                fail("\(at).sku", fields["sku"] == nil ? "missing field" : "must be a non-empty string")
            } else if let sku, let problem = identifierProblem(sku) {
                fail("\(at).sku", problem)
            }
            var values: [String] = []
            if let list = fields["options"]?.arrayValue, list.count == options.count {
                for (position, item) in list.enumerated() {
                    let option = options[position]
                    guard let value = item.stringValue, option.values.contains(value) else {
                        fail("\(at).options[\(position)]", "must be one of \(option.name)'s values: \(option.values.joined(separator: ", "))")
                        continue
                    }
                    values.append(value)
                }
            } else if !options.isEmpty {
                fail(
                    "\(at).options",
                    "must list \(options.count) value\(options.count == 1 ? "" : "s"), one for each option (\(options.map(\.name).joined(separator: ", ")))"
                )
            }
            if values.count == options.count, let first = variants.firstIndex(where: { $0.values == values }) {
                fail("\(at).options", "repeats the combination of variants[\(first)]")
            }
            let own = fields["price"].flatMap { minorUnits($0, currency: currency) { fail("\(at).price", $0) } }
            let stock = fields["stock"].flatMap { stockCount($0) { fail("\(at).stock", $0) } }
            var grams: Int?
            if let weight = fields["grams"] {
                if case .integer(let value) = weight, (1...1_000_000).contains(value) {
                    grams = Int(value)
                } else {
                    fail("\(at).grams", "must be a whole number of grams from 1 to 1000000")
                }
            }
            let pictures = parsePictures(fields["pictures"]) { inner, message in fail("\(at).pictures\(inner)", message) }
            guard let sku, !sku.isEmpty, values.count == options.count, let unit = own ?? price else { continue }
            variants.append(
                ProductVariant(
                    sku: ProductID(sku), values: values, price: Money(minorUnits: unit, currency: currency), stock: stock, grams: grams,
                    pictures: pictures))
        }
        return variants
    }

    /// An option's name or value: a non-empty string of at most 40 characters without control characters.
    static func label(_ value: JSONValue?, fail: (String) -> Void) -> String? {
        guard let string = value?.stringValue, !string.trimmingCharacters(in: .whitespaces).isEmpty else {
            fail(value == nil ? "missing field" : "must be a non-empty string")
            return nil
        }
        if string.count > 40 { fail("is too long (\(string.count) characters, at most 40)") }
        if containsControlCharacter(string) { fail("contains a control character") }
        return string
    }
}
