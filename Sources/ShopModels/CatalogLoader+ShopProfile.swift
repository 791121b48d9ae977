import Foundation

/// Reading the catalog file's `store` object: the shop's name, currency, networks, and its regions
/// (`CatalogLoader+Regions.swift`).
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
        if let regions = fields["regions"] {
            for legacy in ["shipping", "taxBasisPoints", "taxLabel"] where fields[legacy] != nil {
                fail(legacy, "goes in a region's shipping or tax where the store has regions")
            }
            if let parsed = parseRegions(regions, currency: currency, issues: &issues) { profile.regions = parsed }
        } else {
            profile.regions = [parseDomesticRegion(fields, country: profile.countryCode, currency: currency, issues: &issues)]
        }
        return issues.count == before ? profile : nil
    }
}
