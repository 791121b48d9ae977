import Foundation

/// A validated catalog: the shop's profile and its products in catalog order.
public struct Catalog: Sendable {
    public var shop: ShopProfile
    public var products: [Product]

    public init(shop: ShopProfile, products: [Product]) {
        self.shop = shop
        self.products = products
    }
}

/// Reads and validates catalog JSON: either `{"store": {...}, "products": [...]}` or a bare array of products.
///
/// Validation collects every problem instead of stopping at the first, so one run of
/// `storefront catalog validate` shows the whole list.
public enum CatalogLoader {
    public static let maximumNameLength = 80
    public static let maximumPrice: Int64 = 100_000_000_00
    public static let maximumStock: Int64 = 1_000_000

    public static func load(contentsOf url: URL) throws -> Catalog {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CatalogError(source: url.path, issues: [CatalogIssue(path: "$", message: "cannot read file: \(error.localizedDescription)")])
        }
        return try load(data: data, source: url.path)
    }

    public static func load(data: Data, source: String) throws -> Catalog {
        let root: JSONValue
        do {
            root = try JSONParser.parse([UInt8](data))
        } catch {
            throw CatalogError(source: source, issues: [CatalogIssue(path: "$", message: "malformed JSON at \(error)")])
        }
        var issues: [CatalogIssue] = []
        var shop = ShopProfile.standard()
        let productValues: [JSONValue]
        switch root {
        case .array(let array):
            productValues = array
        case .object(let object):
            if let storeValue = object["store"], let parsed = parseShopProfile(storeValue, issues: &issues) { shop = parsed }
            guard let products = object["products"]?.arrayValue else {
                issues.append(CatalogIssue(path: "$.products", message: object["products"] == nil ? "missing field" : "must be an array of products"))
                throw CatalogError(source: source, issues: issues)
            }
            productValues = products
        default:
            throw CatalogError(
                source: source, issues: [CatalogIssue(path: "$", message: "must be an object with \"products\" or an array of products")])
        }

        var products: [Product] = []
        products.reserveCapacity(productValues.count)
        var seen: [String: Int] = [:]
        seen.reserveCapacity(productValues.count)
        for (index, value) in productValues.enumerated() {
            let path = "$.products[\(index)]"
            guard case .object(let fields) = value else {
                issues.append(CatalogIssue(path: path, message: "must be an object"))
                continue
            }
            let idString = productID(fields["id"])
            if let idString {
                if let first = seen[idString] {
                    issues.append(CatalogIssue(path: "\(path).id", productID: idString, message: "duplicate id (first used at $.products[\(first)])"))
                } else {
                    seen[idString] = index
                }
            }
            if let product = parseProduct(fields, path: path, id: idString, currency: shop.currency, issues: &issues) {
                products.append(product)
            }
        }
        if productValues.isEmpty {
            issues.append(CatalogIssue(path: "$.products", message: "has no products"))
        }
        issues += skuClashes(products, productIDs: seen)
        checkMarketPrices(shop, products: products, issues: &issues)
        guard issues.isEmpty else { throw CatalogError(source: source, issues: issues) }
        return Catalog(shop: shop, products: products)
    }

    public static func productID(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let string): string
        case .integer(let number): String(number)
        default: nil
        }
    }

    private static func parseProduct(_ fields: [String: JSONValue], path: String, id: String?, currency: Currency, issues: inout [CatalogIssue])
        -> Product?
    {
        let before = issues.count
        func fail(_ field: String, _ message: String) {
            issues.append(CatalogIssue(path: "\(path).\(field)", productID: id, message: message))
        }
        if fields["id"] == nil {
            fail("id", "missing field")
        } else if id?.isEmpty != false {
            fail("id", "must be a non-empty string or a whole number")
        } else if let id, let problem = identifierProblem(id) {
            fail("id", problem)
        }
        let name = text(fields, "name", path: path, id: id, required: true, maximumLength: maximumNameLength, issues: &issues)
        let description = text(fields, "description", path: path, id: id, required: true, maximumLength: 4_000, issues: &issues)
        let summary = text(fields, "summary", path: path, id: id, required: false, maximumLength: 120, issues: &issues)
        let everyVariantPriced = fields["variants"]?.arrayValue.map { !$0.isEmpty && $0.allSatisfy { $0.objectValue?["price"] != nil } } ?? false
        var price: Int64?
        if fields["price"] == nil, !everyVariantPriced {
            fail("price", "missing field")
        } else if let value = fields["price"] {
            price = minorUnits(value, currency: currency) { fail("price", $0) }
        }
        if let currencyValue = fields["currency"] {
            if let code = currencyValue.stringValue, let own = Currency(code: code) {
                if own != currency { fail("currency", "is \(code) but the shop sells in \(currency.code)") }
            } else {
                fail("currency", "unknown currency \(currencyValue.written)")
            }
        }
        let stock = fields["stock"].flatMap { stockCount($0) { fail("stock", $0) } }
        let art = stringList(fields, "art", path: path, id: id, allowEmpty: true, issues: &issues)
        let tags = stringList(fields, "tags", path: path, id: id, allowEmpty: false, issues: &issues)
        let options = parseOptions(fields["options"], path: path, id: id, issues: &issues)
        let variants = parseVariants(
            fields["variants"], options: options, path: path, id: id, price: price, currency: currency, issues: &issues)
        if !options.isEmpty, fields["stock"] != nil { fail("stock", "is kept per variant for a product with options") }
        let subscriptionWeeks = parseSubscription(fields["subscription"]) { fail("subscription", $0) }
        let pictures = parsePictures(fields["pictures"]) { at, message in fail("pictures\(at)", message) }
        guard issues.count == before, let id, let name, let description else { return nil }
        let lowest = variants.map(\.price.minorUnits).min()
        guard let price = lowest ?? price else { return nil }
        let counted = variants.compactMap(\.stock)
        return Product(
            id: ProductID(id), name: name,
            summary: summary ?? firstSentence(of: description),
            description: description,
            price: Money(minorUnits: price, currency: currency), art: art, tags: tags,
            stock: variants.isEmpty ? stock : (counted.count == variants.count ? counted.reduce(0, +) : nil),
            options: options, variants: variants, subscriptionWeeks: subscriptionWeeks, pictures: pictures
        )
    }

    /// The most intervals a product is offered at.
    public static let maximumSubscriptionIntervals = 6

    /// `{"everyWeeks": [2, 4]}`: the intervals a product is sold as a subscription at, ascending; empty for none.
    static func parseSubscription(_ value: JSONValue?, fail: (String) -> Void) -> [Int] {
        guard let value else { return [] }
        guard let object = value.objectValue, Set(object.keys) == ["everyWeeks"], let list = object["everyWeeks"]?.arrayValue else {
            fail("must be {\"everyWeeks\": [weeks, …]}")
            return []
        }
        var weeks: [Int] = []
        for item in list {
            guard case .integer(let count) = item, RenewalSchedule.intervals.contains(Int(count)) else {
                fail(
                    "everyWeeks: each must be a whole number of weeks from \(RenewalSchedule.intervals.lowerBound) to \(RenewalSchedule.intervals.upperBound)"
                )
                return []
            }
            weeks.append(Int(count))
        }
        guard !weeks.isEmpty, weeks.count <= maximumSubscriptionIntervals, Set(weeks).count == weeks.count else {
            fail("everyWeeks: 1 to \(maximumSubscriptionIntervals) intervals, each once")
            return []
        }
        return weeks.sorted()
    }

    /// A price in minor units, within 0...`maximumPrice`; nil after telling `fail` what is wrong.
    static func minorUnits(_ value: JSONValue, currency: Currency, fail: (String) -> Void) -> Int64? {
        switch value {
        case .integer(let value):
            if value < 0 {
                fail("must not be negative, got \(value)")
            } else if value > maximumPrice {
                fail("is too large (at most \(maximumPrice) minor units)")
            } else {
                return value
            }
        case .decimal(let written):
            fail("must be a whole number of minor units (\(currency.code) has \(currency.exponent) decimals), got \(written)")
        default: fail("must be a whole number of minor units")
        }
        return nil
    }

    /// A count of units within 0...`maximumStock`; nil after telling `fail` what is wrong.
    static func stockCount(_ value: JSONValue, fail: (String) -> Void) -> Int? {
        if case .integer(let count) = value, (0...maximumStock).contains(count) { return Int(count) }
        fail("must be a whole number from 0 to \(maximumStock)")
        return nil
    }

    private static func text(
        _ fields: [String: JSONValue], _ field: String, path: String, id: String?, required: Bool, maximumLength: Int, issues: inout [CatalogIssue]
    ) -> String? {
        func fail(_ message: String) { issues.append(CatalogIssue(path: "\(path).\(field)", productID: id, message: message)) }
        guard let value = fields[field] else {
            if required { fail("missing field") }
            return nil
        }
        guard let string = value.stringValue else {
            fail("must be a string")
            return nil
        }
        if required, string.utf8.allSatisfy({ $0 == UInt8(ascii: " ") }) {
            fail("must not be empty")
            return nil
        }
        let length = string.utf8.count <= maximumLength ? string.utf8.count : string.count
        if length > maximumLength { fail("is too long (\(length) characters, at most \(maximumLength))") }
        if containsControlCharacter(string, allowNewlines: field == "description") { fail("contains a control character") }
        return string
    }

    private static func stringList(
        _ fields: [String: JSONValue], _ field: String, path: String, id: String?, allowEmpty: Bool, issues: inout [CatalogIssue]
    ) -> [String] {
        guard let value = fields[field] else { return [] }
        guard let list = value.arrayValue else {
            issues.append(CatalogIssue(path: "\(path).\(field)", productID: id, message: "must be an array of strings"))
            return []
        }
        var out: [String] = []
        for (index, item) in list.enumerated() {
            guard let string = item.stringValue, allowEmpty || !string.isEmpty else {
                issues.append(CatalogIssue(path: "\(path).\(field)[\(index)]", productID: id, message: "must be a non-empty string"))
                continue
            }
            if containsControlCharacter(string) {
                issues.append(CatalogIssue(path: "\(path).\(field)[\(index)]", productID: id, message: "contains a control character"))
            }
            out.append(string)
        }
        return out
    }

    /// True when the text holds a C0 or C1 control, DEL, or a bidi override that could reorder what is shown.
    /// The longest product id or SKU: an id is a part of the API's paths and of every log line naming it.
    public static let maximumIdentifierLength = 100

    /// Why `text` cannot be a product's id or a variant's SKU, or nil: at most 100 characters, no control character, no
    /// slash (a part of the API's paths: `/v1/cart/lines/{id}`), no space at either end. One rule wherever an id comes in.
    public static func identifierProblem(_ text: String) -> String? {
        if text.unicodeScalars.count > maximumIdentifierLength { return "is longer than \(maximumIdentifierLength) characters" }
        if containsControlCharacter(text) { return "contains a control character" }
        if text.contains("/") { return "contains a slash, which ids cannot (they are parts of the API's paths)" }
        if text.first?.isWhitespace == true || text.last?.isWhitespace == true { return "begins or ends with a space" }
        return nil
    }

    public static func containsControlCharacter(_ text: String, allowNewlines: Bool = false) -> Bool {
        // Printable ASCII is the common case and needs no scalar walk.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return false }
        return text.unicodeScalars.contains { scalar in
            if allowNewlines, scalar == "\n" { return false }
            return scalar.isUnsafeForTerminal
        }
    }

    /// Up to and including the first full stop of the first line; UTF-8 search, as '.' and newline are ASCII.
    private static func firstSentence(of text: String) -> String {
        let utf8 = text.utf8
        let lineEnd = utf8.firstIndex(of: UInt8(ascii: "\n")) ?? utf8.endIndex
        if let stop = utf8[..<lineEnd].firstIndex(of: UInt8(ascii: ".")) {
            return String(text[...stop])
        }
        return String(text[..<lineEnd])
    }
}
