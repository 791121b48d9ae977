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
        guard issues.isEmpty else { throw CatalogError(source: source, issues: issues) }
        return Catalog(shop: shop, products: products)
    }

    private static func productID(_ value: JSONValue?) -> String? {
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
        }
        if let id, containsControlCharacter(id) { fail("id", "contains a control character") }
        let name = text(fields, "name", path: path, id: id, required: true, maximumLength: maximumNameLength, issues: &issues)
        let description = text(fields, "description", path: path, id: id, required: true, maximumLength: 4_000, issues: &issues)
        let summary = text(fields, "summary", path: path, id: id, required: false, maximumLength: 120, issues: &issues)
        var price: Int64?
        switch fields["price"] {
        case nil: fail("price", "missing field")
        case .integer(let value):
            if value < 0 {
                fail("price", "must not be negative, got \(value)")
            } else if value > maximumPrice {
                fail("price", "is too large (at most \(maximumPrice) minor units)")
            } else {
                price = value
            }
        case .decimal(let written):
            fail("price", "must be a whole number of minor units (\(currency.code) has \(currency.exponent) decimals), got \(written)")
        default: fail("price", "must be a whole number of minor units")
        }
        if let currencyValue = fields["currency"] {
            if let code = currencyValue.stringValue, let own = Currency(code: code) {
                if own != currency { fail("currency", "is \(code) but the shop sells in \(currency.code)") }
            } else {
                fail("currency", "unknown currency \(currencyValue.written)")
            }
        }
        var stock: Int?
        switch fields["stock"] {
        case nil: break
        case .integer(let value) where (0...maximumStock).contains(value): stock = Int(value)
        default: fail("stock", "must be a whole number from 0 to \(maximumStock)")
        }
        let art = stringList(fields, "art", path: path, id: id, allowEmpty: true, issues: &issues)
        let tags = stringList(fields, "tags", path: path, id: id, allowEmpty: false, issues: &issues)
        guard issues.count == before, let id, let name, let description, let price else { return nil }
        return Product(
            id: ProductID(id), name: name,
            summary: summary ?? firstSentence(of: description),
            description: description,
            price: Money(minorUnits: price, currency: currency), art: art, tags: tags, stock: stock
        )
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

    private static func parseShopProfile(_ value: JSONValue, issues: inout [CatalogIssue]) -> ShopProfile? {
        guard case .object(let fields) = value else {
            issues.append(CatalogIssue(path: "$.store", message: "must be an object"))
            return nil
        }
        let before = issues.count
        func fail(_ field: String, _ message: String) { issues.append(CatalogIssue(path: "$.store.\(field)", message: message)) }
        var currency = Currency.usd
        if let code = fields["currency"] {
            if let known = code.stringValue.flatMap(Currency.init(code:)) {
                currency = known
            } else {
                fail("currency", "unknown currency \(code.stringValue ?? code.written)")
            }
        }
        var profile = ShopProfile.standard(currency: currency)
        if let name = fields["name"] {
            if let name = name.stringValue, !name.isEmpty, name.count <= 40, !containsControlCharacter(name) {
                profile.name = name
            } else {
                fail("name", "must be a string of 1 to 40 characters without control characters")
            }
        }
        if let merchant = fields["merchantIdentifier"] {
            if let merchant = merchant.stringValue, !merchant.isEmpty, !containsControlCharacter(merchant) {
                profile.merchantIdentifier = merchant
            } else {
                fail("merchantIdentifier", "must be a non-empty string without control characters")
            }
        }
        for (key, path) in [("email", \ShopProfile.email), ("replyTo", \ShopProfile.replyTo)] {
            guard let value = fields[key] else { continue }
            if let address = value.stringValue, Contact.emailProblem(address) == nil {
                profile[keyPath: path] = address
            } else {
                fail(key, "must be an email address such as shop@example.com")
            }
        }
        if let country = fields["country"] {
            if let country = country.stringValue, country.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }) {
                profile.countryCode = country.uppercased()
            } else {
                fail("country", "must be a two-letter ISO 3166 code")
            }
        }
        if let tax = fields["taxBasisPoints"] {
            if let points = tax.integerValue, (0...10_000).contains(points) {
                let label = fields["taxLabel"]?.stringValue ?? "Sales tax"
                if containsControlCharacter(label) { fail("taxLabel", "contains a control character") }
                profile.tax = TaxPolicy(label: label, basisPoints: Int(points))
            } else {
                fail("taxBasisPoints", "must be a whole number from 0 to 10000 (hundredths of a percent)")
            }
        }
        if let networks = fields["supportedNetworks"] {
            if let names = networks.arrayValue, !names.isEmpty {
                var parsed: [PaymentNetwork] = []
                for (index, name) in names.enumerated() {
                    if let network = name.stringValue.flatMap(PaymentNetwork.init(rawValue:)) {
                        parsed.append(network)
                    } else {
                        fail("supportedNetworks[\(index)]", "unknown network \(name.written)")
                    }
                }
                profile.supportedNetworks = parsed
            } else {
                fail("supportedNetworks", "must be a non-empty array of network names")
            }
        }
        if let shipping = fields["shipping"] {
            if let list = shipping.arrayValue, !list.isEmpty {
                var methods: [ShippingMethod] = []
                for (index, method) in list.enumerated() {
                    let path = "shipping[\(index)]"
                    guard let object = method.objectValue, let id = object["id"]?.stringValue, let label = object["label"]?.stringValue,
                        let amount = object["amount"]?.integerValue, amount >= 0
                    else {
                        fail(path, "needs id, label and a non-negative whole amount")
                        continue
                    }
                    let detail = object["detail"]?.stringValue ?? ""
                    guard !containsControlCharacter(id), !containsControlCharacter(label), !containsControlCharacter(detail) else {
                        fail(path, "id, label and detail must not contain control characters")
                        continue
                    }
                    guard amount <= maximumPrice else {
                        fail("\(path).amount", "is too large (at most \(maximumPrice) minor units)")
                        continue
                    }
                    var freeFrom: Money?
                    if let value = object["freeFrom"] {
                        guard let minor = value.integerValue, (0...Money.maximumMinorUnits).contains(minor) else {
                            fail("\(path).freeFrom", "must be a whole number of minor units from 0 to \(Money.maximumMinorUnits)")
                            continue
                        }
                        freeFrom = Money(minorUnits: minor, currency: currency)
                    }
                    methods.append(
                        ShippingMethod(
                            id: id, label: label, detail: detail,
                            amount: Money(minorUnits: amount, currency: currency), freeFrom: freeFrom
                        ))
                }
                profile.shippingMethods = methods
            } else {
                fail("shipping", "must be a non-empty array of shipping methods")
            }
        }
        return issues.count == before ? profile : nil
    }

    /// True when the text holds a C0 or C1 control, DEL, or a bidi override that could reorder what is shown.
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

/// A fast content fingerprint for change detection (not for security).
public enum ContentHash {
    public static func fnv1a64(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        return String(hash, radix: 16) + "-" + String(data.count)
    }
}
