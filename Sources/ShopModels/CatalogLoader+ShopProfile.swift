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
        if let days = fields["renewalReminderDays"] {
            if let days = days.integerValue,
                (Int64(ShopProfile.renewalReminderDaysRange.lowerBound)...Int64(ShopProfile.renewalReminderDaysRange.upperBound)).contains(days)
            {
                profile.renewalReminderDays = Int(days)
            } else {
                let range = ShopProfile.renewalReminderDaysRange
                fail("renewalReminderDays", "must be a whole number of days from \(range.lowerBound) (no reminders) to \(range.upperBound)")
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
            let markets = fields["markets"].flatMap { parseMarkets($0, issues: &issues) } ?? []
            let currencies = Dictionary(markets.flatMap { market in market.regionIDs.map { ($0, market.currency) } }, uniquingKeysWith: { a, _ in a })
            if let parsed = parseRegions(regions, currency: { currencies[$0] ?? currency }, issues: &issues) {
                profile.regions = parsed
                checkMarkets(markets, regions: parsed, issues: &issues)
                profile.markets = markets
            }
        } else {
            if fields["markets"] != nil { fail("markets", "name the store's regions: add \"regions\" first") }
            profile.regions = [parseDomesticRegion(fields, country: profile.countryCode, currency: currency, issues: &issues)]
        }
        return issues.count == before ? profile : nil
    }

    /// `[{"id": "eu", "name": "Europe", "currency": "EUR", "regions": ["eu"], "rounding": ".95"}]`: checked alone here,
    /// against the regions by `checkMarkets`.
    static func parseMarkets(_ value: JSONValue, issues: inout [CatalogIssue]) -> [Market]? {
        guard let list = value.arrayValue else {
            issues.append(CatalogIssue(path: "$.store.markets", message: "must be an array of markets"))
            return nil
        }
        var markets: [Market] = []
        for (index, item) in list.enumerated() {
            let path = "$.store.markets[\(index)]"
            func fail(_ field: String, _ message: String) { issues.append(CatalogIssue(path: "\(path)\(field)", message: message)) }
            guard let fields = item.objectValue else {
                fail("", "must be an object with id, name, currency and regions")
                continue
            }
            let before = issues.count
            for key in fields.keys where !["id", "name", "currency", "regions", "rounding", "prices"].contains(key) {
                fail(".\(key)", "is not a market's field")
            }
            let id = fields["id"]?.stringValue ?? ""
            if !isIdentifier(id) { fail(".id", "must be 1 to 40 letters, digits, - or _") }
            if markets.contains(where: { $0.id == id }) { fail(".id", "repeats the market id \"\(id)\"") }
            let name = fields["name"]?.stringValue ?? ""
            if name.isEmpty || name.count > 40 || containsControlCharacter(name) {
                fail(".name", "must be a string of 1 to 40 characters without control characters, such as \"Europe\"")
            }
            let currency = fields["currency"]?.stringValue.flatMap(Currency.init(code:))
            if currency == nil {
                fail(".currency", "must be a currency the shop knows: \(Currency.known.keys.sorted().joined(separator: ", "))")
            }
            let regionIDs = fields["regions"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if regionIDs.isEmpty || regionIDs.count != fields["regions"]?.arrayValue?.count {
                fail(".regions", "must be a non-empty array of region ids")
            }
            var rounding = PriceRounding.none
            if let written = fields["rounding"] {
                if let currency, let parsed = written.stringValue.flatMap({ PriceRounding(written: $0, currency: currency) }) {
                    rounding = parsed
                } else {
                    fail(
                        ".rounding", "must be one of \(PriceRounding.spellings.joined(separator: ", ")) (.99 and the like for a currency with cents)")
                }
            }
            var prices: [String: Int64] = [:]
            if let written = fields["prices"] {
                if let entries = written.objectValue {
                    for (key, amount) in entries {
                        guard let amount = amount.integerValue, (1...Money.maximumMinorUnits).contains(amount) else {
                            fail(".prices.\(key)", "must be a whole number of the currency's minor units, from 1 to \(Money.maximumMinorUnits)")
                            continue
                        }
                        prices[key] = amount
                    }
                } else {
                    fail(".prices", "must be an object of prices by product id or variant SKU, such as {\"keycap-dusk\": 5900}")
                }
            }
            guard issues.count == before, let currency else { continue }
            markets.append(Market(id: id, name: name, currency: currency, regionIDs: regionIDs, rounding: rounding, prices: prices))
        }
        return markets
    }

    /// Each market's fixed prices name a product without options or a variant, and a market in another currency than
    /// the shop's own (where the catalog's price is the price).
    static func checkMarketPrices(_ shop: ShopProfile, products: [Product], issues: inout [CatalogIssue]) {
        let plain = Set(products.filter(\.variants.isEmpty).map(\.id.rawValue))
        let withVariants = Set(products.filter { !$0.variants.isEmpty }.map(\.id.rawValue))
        let skus = Set(products.flatMap { $0.variants.map(\.sku.rawValue) })
        for (index, market) in shop.markets.enumerated() {
            let path = "$.store.markets[\(index)].prices"
            if !market.prices.isEmpty && market.currency == shop.currency {
                issues.append(
                    CatalogIssue(path: path, message: "the market sells in the shop's own \(shop.currency.code): its prices are the catalog's"))
                continue
            }
            for key in market.prices.keys.sorted() where !plain.contains(key) && !skus.contains(key) {
                let why =
                    withVariants.contains(key)
                    ? "is a product with options: fix each variant's price by its SKU" : "names no product or variant SKU of the catalog"
                issues.append(CatalogIssue(path: "\(path).\(key)", message: why))
            }
        }
    }

    /// Each market's regions exist and belong to it alone.
    static func checkMarkets(_ markets: [Market], regions: [SalesRegion], issues: inout [CatalogIssue]) {
        var owner: [String: String] = [:]
        for (index, market) in markets.enumerated() {
            for (at, region) in market.regionIDs.enumerated() {
                let path = "$.store.markets[\(index)].regions[\(at)]"
                if !regions.contains(where: { $0.id == region }) {
                    issues.append(CatalogIssue(path: path, message: "names no region (the store's are \(regions.map(\.id).joined(separator: ", ")))"))
                } else if let other = owner[region] {
                    issues.append(CatalogIssue(path: path, message: "\"\(region)\" is already in the market \"\(other)\""))
                }
                owner[region] = market.id
            }
        }
    }
}
