import Foundation

/// Reading the catalog file's `store` object: the shop's name, currency, shipping, tax and networks.
extension CatalogLoader {
    static func parseShopProfile(_ value: JSONValue, issues: inout [CatalogIssue]) -> ShopProfile? {
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
}
