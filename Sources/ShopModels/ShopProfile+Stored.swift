import Foundation

/// How the databases keep a shop's profile beside its catalog: the catalog file's `store` object, so one reader and
/// one writer serve the file, the export and both databases.
extension ShopProfile {
    /// The profile as `catalog_meta` keeps it.
    public var storedJSON: String {
        let data = (try? JSONSerialization.data(withJSONObject: CatalogWriter.store(self), options: [.sortedKeys, .withoutEscapingSlashes]))
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The profile `storedJSON` wrote, or one written before regions (its one tax and shipping list become the
    /// domestic region); nil when the text is neither.
    public init?(storedJSON text: String) {
        if let value = try? JSONParser.parse(Array(text.utf8)), value.objectValue?["countryCode"] == nil {
            var issues: [CatalogIssue] = []
            guard let profile = CatalogLoader.parseShopProfile(value, issues: &issues) else { return nil }
            self = profile
            return
        }
        guard let legacy = try? JSONDecoder().decode(LegacyProfile.self, from: Data(text.utf8)) else { return nil }
        let currency = legacy.currency
        self.init(
            name: legacy.name, merchantIdentifier: legacy.merchantIdentifier, countryCode: legacy.countryCode, currency: currency,
            supportedNetworks: legacy.supportedNetworks,
            regions: [
                Self.domestic(
                    country: legacy.countryCode, currency: currency,
                    tax: RegionTax(rule: .added, label: legacy.tax.label, basisPoints: legacy.tax.basisPoints),
                    rates: legacy.shippingMethods.map {
                        ShippingRate(id: $0.id, label: $0.label, detail: $0.detail, pricing: .flat($0.amount), freeFrom: $0.freeFrom)
                    })
            ])
        email = legacy.email
        replyTo = legacy.replyTo
    }

    /// The profile's form before regions (stored by `Codable` up to schema version 19).
    private struct LegacyProfile: Decodable {
        struct Tax: Decodable {
            let label: String
            let basisPoints: Int
        }
        let name: String
        let merchantIdentifier: String
        let countryCode: String
        let currency: Currency
        let tax: Tax
        let supportedNetworks: [PaymentNetwork]
        let shippingMethods: [ShippingMethod]
        let email: String?
        let replyTo: String?
    }
}
