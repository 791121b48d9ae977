import AddressFormats
import Foundation

/// Reading where a shop ships: `store.regions`, or for a catalog without them its own country under the older
/// `taxBasisPoints`, `taxLabel` and `shipping` fields.
extension CatalogLoader {
    /// The one region of a store without `regions`: its country, its one tax rate and its shipping methods.
    static func parseDomesticRegion(
        _ fields: [String: JSONValue], country: String, currency: Currency, issues: inout [CatalogIssue]
    ) -> SalesRegion {
        var tax = RegionTax(rule: .added, label: "Sales tax", basisPoints: 825)
        if let value = fields["taxBasisPoints"] {
            if let points = value.integerValue, (0...10_000).contains(points) {
                tax.basisPoints = Int(points)
            } else {
                issues.append(
                    CatalogIssue(path: "$.store.taxBasisPoints", message: "must be a whole number from 0 to 10000 (hundredths of a percent)"))
            }
        }
        if let label = fields["taxLabel"] {
            if let text = label.stringValue, Self.isLabel(text) {
                tax.label = text
            } else {
                issues.append(CatalogIssue(path: "$.store.taxLabel", message: "must be a string of 1 to 30 characters without control characters"))
            }
        }
        var rates: [ShippingRate]?
        if let shipping = fields["shipping"] {
            rates = parseShippingRates(shipping, path: "$.store.shipping", currency: currency, issues: &issues)
        }
        return ShopProfile.domestic(country: country, currency: currency, tax: tax, rates: rates)
    }

    /// `store.regions`: each with an id, a name, its places, a tax rule and shipping rates; nil after any problem.
    static func parseRegions(_ value: JSONValue, currency currencyOf: (String) -> Currency, issues: inout [CatalogIssue]) -> [SalesRegion]? {
        let before = issues.count
        guard let list = value.arrayValue, !list.isEmpty else {
            issues.append(CatalogIssue(path: "$.store.regions", message: "must be a non-empty array of regions"))
            return nil
        }
        var regions: [SalesRegion] = []
        var placed: [String: String] = [:]
        for (index, item) in list.enumerated() {
            let path = "$.store.regions[\(index)]"
            func fail(_ field: String, _ message: String) { issues.append(CatalogIssue(path: "\(path)\(field)", message: message)) }
            guard let fields = item.objectValue else {
                fail("", "must be an object with id, name, places, tax and shipping")
                continue
            }
            let id = fields["id"]?.stringValue ?? ""
            if !isIdentifier(id) { fail(".id", "must be 1 to 40 letters, digits, - or _") }
            if regions.contains(where: { $0.id == id }) { fail(".id", "repeats the region id \"\(id)\"") }
            let name = fields["name"]?.stringValue ?? ""
            if name.isEmpty || name.count > 60 || containsControlCharacter(name) {
                fail(".name", "must be a string of 1 to 60 characters without control characters, such as \"the United States\"")
            }
            var places: [String] = []
            if let names = fields["places"]?.arrayValue, !names.isEmpty {
                for (at, place) in names.enumerated() {
                    guard let code = place.stringValue.map({ $0.uppercased() }), isPlace(code) else {
                        fail(".places[\(at)]", "\(place.written) is not an ISO 3166 country (\"DE\") or subdivision (\"US-TX\")")
                        continue
                    }
                    if let earlier = placed[code] { fail(".places[\(at)]", "\(code) is already in the region \"\(earlier)\"") }
                    placed[code] = id
                    places.append(code)
                }
            } else {
                fail(".places", "must be a non-empty array of ISO 3166 codes, such as [\"US\"] or [\"DE\", \"FR\"]")
            }
            let tax = fields["tax"].map { parseRegionTax($0, places: places, path: "\(path).tax", issues: &issues) } ?? .none
            // A region's amounts are in its market's currency: the shop's own where no market names it.
            let rates = fields["shipping"].flatMap { parseShippingRates($0, path: "\(path).shipping", currency: currencyOf(id), issues: &issues) }
            if fields["shipping"] == nil { fail(".shipping", "must be a non-empty array of shipping rates") }
            regions.append(SalesRegion(id: id, name: name, places: places, tax: tax, rates: rates ?? []))
        }
        return issues.count == before ? regions : nil
    }

    /// A region's `tax`: `{"rule": "added"|"included"|"none", "label", "basisPoints", "rates": {"US-TX": 625, "CA-ON":
    /// {"basisPoints": 1300, "label": "HST"}}}`; each rate's place in the region.
    static func parseRegionTax(_ value: JSONValue, places: [String], path: String, issues: inout [CatalogIssue]) -> RegionTax {
        func fail(_ field: String, _ message: String) { issues.append(CatalogIssue(path: "\(path)\(field)", message: message)) }
        guard let fields = value.objectValue else {
            fail("", "must be an object with a rule")
            return .none
        }
        guard let rule = fields["rule"]?.stringValue.flatMap(TaxPolicy.Rule.init(rawValue:)) else {
            fail(".rule", "must be \"added\" (sales tax at the checkout), \"included\" (VAT in prices) or \"none\"")
            return .none
        }
        var tax = RegionTax(rule: rule, label: rule == .included ? "VAT" : rule == .added ? "Sales tax" : "Tax")
        if let label = fields["label"] {
            if let text = label.stringValue, isLabel(text) {
                tax.label = text
            } else {
                fail(".label", "must be 1 to 30 characters without control characters")
            }
        }
        if let points = fields["basisPoints"] {
            if let rate = basisPoints(points) { tax.basisPoints = rate } else { fail(".basisPoints", "must be a whole number from 0 to 10000") }
        }
        guard let rates = fields["rates"] else { return tax }
        guard rule != .none else {
            fail(".rates", "a region without tax has no rates")
            return tax
        }
        guard let table = rates.objectValue else {
            fail(".rates", "must be an object of rates by place, such as {\"US-TX\": 625}")
            return tax
        }
        for (place, rate) in table.sorted(by: { $0.key < $1.key }) {
            let code = place.uppercased()
            let country = String(code.prefix(2))
            guard isPlace(code), places.contains(code) || places.contains(country) else {
                fail(".rates.\(place)", "\(place) is not a place of this region (its places are \(places.joined(separator: ", ")))")
                continue
            }
            if let points = basisPoints(rate) {
                tax.rates.append(RegionTax.Rate(place: code, basisPoints: points))
            } else if let object = rate.objectValue, let points = object["basisPoints"].flatMap(basisPoints),
                object["label"].map({ $0.stringValue.map(isLabel) ?? false }) ?? true
            {
                tax.rates.append(RegionTax.Rate(place: code, basisPoints: points, label: object["label"]?.stringValue))
            } else {
                fail(".rates.\(place)", "must be basis points from 0 to 10000, or {\"basisPoints\": 1300, \"label\": \"HST\"}")
            }
        }
        return tax
    }

    /// Shipping rates: each `{"id", "label", "detail", "freeFrom"}` with one of `amount`, `weightBands`
    /// (`[{"upToGrams", "amount"}]`, rising) or `subtotalBands` (`[{"from", "amount"}]`, rising from 0).
    static func parseShippingRates(_ value: JSONValue, path: String, currency: Currency, issues: inout [CatalogIssue]) -> [ShippingRate]? {
        guard let list = value.arrayValue, !list.isEmpty else {
            issues.append(CatalogIssue(path: path, message: "must be a non-empty array of shipping methods"))
            return nil
        }
        var rates: [ShippingRate] = []
        for (index, item) in list.enumerated() {
            let at = "\(path)[\(index)]"
            func fail(_ field: String, _ message: String) { issues.append(CatalogIssue(path: "\(at)\(field)", message: message)) }
            guard let object = item.objectValue, let id = object["id"]?.stringValue, let label = object["label"]?.stringValue else {
                fail("", "needs id, label and one of amount, weightBands or subtotalBands")
                continue
            }
            let detail = object["detail"]?.stringValue ?? ""
            guard !containsControlCharacter(id), !containsControlCharacter(label), !containsControlCharacter(detail) else {
                fail("", "id, label and detail must not contain control characters")
                continue
            }
            if rates.contains(where: { $0.id == id }) { fail(".id", "repeats the shipping id \"\(id)\"") }
            let money = { (value: JSONValue?) -> Money? in
                guard let minor = value?.integerValue, (0...maximumPrice).contains(minor) else { return nil }
                return Money(minorUnits: minor, currency: currency)
            }
            let priced = ["amount", "weightBands", "subtotalBands"].filter { object[$0] != nil }
            guard priced.count == 1 else {
                fail(
                    "",
                    "needs exactly one of amount, weightBands or subtotalBands (it has \(priced.isEmpty ? "none" : priced.joined(separator: ", ")))")
                continue
            }
            var pricing: ShippingRate.Pricing?
            if let amount = object["amount"] {
                if let flat = money(amount) {
                    pricing = .flat(flat)
                } else {
                    fail(".amount", "must be a whole amount from 0 to \(maximumPrice) minor units")
                }
            } else if let bands = object["weightBands"] {
                let parsed = bands.arrayValue?.compactMap { band -> ShippingRate.WeightBand? in
                    guard let grams = band.objectValue?["upToGrams"]?.integerValue, (1...100_000_000).contains(grams),
                        let amount = money(band.objectValue?["amount"])
                    else { return nil }
                    return ShippingRate.WeightBand(upToGrams: Int(grams), amount: amount)
                }
                if let parsed, !parsed.isEmpty, parsed.count == bands.arrayValue?.count,
                    zip(parsed, parsed.dropFirst()).allSatisfy({ $0.upToGrams < $1.upToGrams })
                {
                    pricing = .byWeight(parsed)
                } else {
                    fail(".weightBands", "must be bands {\"upToGrams\": 500, \"amount\": 1200} with limits from 1 g, each higher than the last")
                }
            } else if let bands = object["subtotalBands"] {
                let parsed = bands.arrayValue?.compactMap { band -> ShippingRate.SubtotalBand? in
                    guard let from = money(band.objectValue?["from"]), let amount = money(band.objectValue?["amount"]) else { return nil }
                    return ShippingRate.SubtotalBand(from: from, amount: amount)
                }
                if let parsed, parsed.first?.from.minorUnits == 0, parsed.count == bands.arrayValue?.count,
                    zip(parsed, parsed.dropFirst()).allSatisfy({ $0.from.minorUnits < $1.from.minorUnits })
                {
                    pricing = .bySubtotal(parsed)
                } else {
                    fail(".subtotalBands", "must be bands {\"from\": 0, \"amount\": 900}, the first from 0, each from more than the last")
                }
            }
            var freeFrom: Money?
            if let value = object["freeFrom"] {
                if let free = value.integerValue, (0...Money.maximumMinorUnits).contains(free) {
                    freeFrom = Money(minorUnits: free, currency: currency)
                } else {
                    fail(".freeFrom", "must be a whole number of minor units from 0 to \(Money.maximumMinorUnits)")
                }
            }
            if let pricing { rates.append(ShippingRate(id: id, label: label, detail: detail, pricing: pricing, freeFrom: freeFrom)) }
        }
        return rates
    }

    /// An ISO 3166-1 country the address table knows, or one of its ISO 3166-2 subdivisions.
    static func isPlace(_ code: String) -> Bool {
        guard let format = AddressFormats.format(for: String(code.prefix(2))) else { return false }
        return code.count == 2 || format.regions.contains { $0.code == code }
    }

    static func isLabel(_ text: String) -> Bool { !text.isEmpty && text.count <= 30 && !containsControlCharacter(text) }

    static func isIdentifier(_ text: String) -> Bool {
        (1...40).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    static func basisPoints(_ value: JSONValue) -> Int? {
        guard let points = value.integerValue, (0...10_000).contains(points) else { return nil }
        return Int(points)
    }
}
