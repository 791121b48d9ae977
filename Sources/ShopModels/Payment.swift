import AddressFormats
import ShopLanguages

/// A card network, as named in a payment request's supported networks.
public enum PaymentNetwork: String, Hashable, Sendable, Codable, CaseIterable {
    case visa, mastercard, amex, discover, jcb
    case diners, unionpay, cartesBancaires, eftpos
    /// A brand the shop has no name for: shown as a card, never as another brand.
    case other

    public var displayName: String {
        switch self {
        case .visa: "Visa"
        case .mastercard: "Mastercard"
        case .amex: "Amex"
        case .discover: "Discover"
        case .jcb: "JCB"
        case .diners: "Diners Club"
        case .unionpay: "UnionPay"
        case .cartesBancaires: "Cartes Bancaires"
        case .eftpos: "eftpos"
        case .other: "Card"
        }
    }
}

/// What kinds of payment the merchant can process, as in `PKMerchantCapability`.
public struct MerchantCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let threeDSecure = MerchantCapabilities(rawValue: 1 << 0)
    public static let credit = MerchantCapabilities(rawValue: 1 << 1)
    public static let debit = MerchantCapabilities(rawValue: 1 << 2)
}

/// A line on the payment sheet. The last one is the total, labelled with the merchant's name.
public struct SummaryItem: Hashable, Sendable {
    /// `included`: a part of the amounts above it, shown for what it is (VAT in the prices), not added to the total.
    public enum Kind: Hashable, Sendable { case final, pending, included }
    public var label: Localized
    public var amount: Money
    public var kind: Kind

    public init(label: Localized, amount: Money, kind: Kind = .final) {
        self.label = label
        self.amount = amount
        self.kind = kind
    }
}

/// A month and year of card expiry.
public struct CardExpiry: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var month: Int
    public var year: Int
    public init(month: Int, year: Int) {
        self.month = month
        self.year = year
    }
    public var description: String { String(format2(month)) + "/" + format2(year % 100) }
    public static func < (lhs: CardExpiry, rhs: CardExpiry) -> Bool { (lhs.year, lhs.month) < (rhs.year, rhs.month) }
    private func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// A card in the shopper's wallet as the payment sheet sees it: never the full number.
public struct PaymentMethod: Hashable, Sendable, Identifiable {
    public var id: String
    public var network: PaymentNetwork
    public var lastFour: String
    public var expiry: CardExpiry
    public var displayName: String

    public init(id: String, network: PaymentNetwork, lastFour: String, expiry: CardExpiry, displayName: String) {
        self.id = id
        self.network = network
        self.lastFour = lastFour
        self.expiry = expiry
        self.displayName = displayName
    }

    /// "Visa ••4242".
    public var shortName: String { "\(network.displayName) ••\(lastFour)" }
}

/// A postal address: two street lines, a city, a region where the country names one, a postal code and a country.
public struct PostalAddress: Hashable, Sendable, Codable {
    public var street: String
    /// The second street line (apartment, suite, building); empty where there is none.
    public var street2: String
    public var city: String
    /// The subdivision's ISO 3166-2 code ("US-TX", "CA-ON") where the country has a table of them, else the region as
    /// typed; empty where the address names none.
    public var region: String
    public var postalCode: String
    public var countryCode: String

    public init(street: String, street2: String = "", city: String, region: String = "", postalCode: String, countryCode: String) {
        self.street = street
        self.street2 = street2
        self.city = city
        self.region = region
        self.postalCode = postalCode
        self.countryCode = countryCode
    }

    /// "1 Infinite Loop, Suite 2, Cupertino CA 95014, US", "Hauptstraße 1, 10115 Berlin, DE": the city, region and postal
    /// code in the order the country writes them, the region as it writes it ("CA" of "US-CA").
    public var singleLine: String {
        let street = [street, street2].filter { !$0.isEmpty }.joined(separator: ", ")
        let region = region.hasPrefix(countryCode + "-") ? String(region.dropFirst(countryCode.count + 1)) : region
        let written = AddressFormats.format(for: countryCode)?.fields ?? [.street, .city, .region, .postal]
        // A country whose format folds the city into the street still gets its city, after the rest.
        let order = written + ([.city, .region, .postal] as [AddressFormat.Field]).filter { !written.contains($0) }
        let place = order.compactMap { field -> String? in
            switch field {
            case .street: nil
            case .city: city
            case .region: region
            case .postal: postalCode
            }
        }
        return "\(street), \(place.filter { !$0.isEmpty }.joined(separator: " ")), \(countryCode)"
    }
}

/// A shopper's contact details, as in `PKContact`.
public struct Contact: Hashable, Sendable, Identifiable, Codable {
    public var id: String
    public var name: String
    public var email: String
    public var phone: String
    public var address: PostalAddress

    /// "Name, address on one line": what an order says it ships to.
    public var shipToLine: String { "\(name), \(address.singleLine)" }

    public init(id: String, name: String, email: String, phone: String, address: PostalAddress) {
        self.id = id
        self.name = name
        self.email = email
        self.phone = phone
        self.address = address
    }
}

/// The contact fields a payment request needs.
public enum ContactField: String, Hashable, Sendable, CaseIterable {
    case name, email, phone, postalAddress
}

/// A request for payment, modelled on `PKPaymentRequest`.
public struct PaymentRequest: Hashable, Sendable {
    public var merchantIdentifier: String
    public var merchantName: String
    public var countryCode: String
    public var currency: Currency
    public var supportedNetworks: [PaymentNetwork]
    public var merchantCapabilities: MerchantCapabilities
    public var summaryItems: [SummaryItem]
    public var shippingMethods: [ShippingMethod]
    public var requiredShippingContactFields: Set<ContactField>

    public init(
        merchantIdentifier: String, merchantName: String, countryCode: String, currency: Currency,
        supportedNetworks: [PaymentNetwork], merchantCapabilities: MerchantCapabilities,
        summaryItems: [SummaryItem], shippingMethods: [ShippingMethod],
        requiredShippingContactFields: Set<ContactField>
    ) {
        self.merchantIdentifier = merchantIdentifier
        self.merchantName = merchantName
        self.countryCode = countryCode
        self.currency = currency
        self.supportedNetworks = supportedNetworks
        self.merchantCapabilities = merchantCapabilities
        self.summaryItems = summaryItems
        self.shippingMethods = shippingMethods
        self.requiredShippingContactFields = requiredShippingContactFields
    }

    /// The last summary item, which is the amount charged.
    public var total: SummaryItem? { summaryItems.last }

    /// Why this request cannot be presented, or nil when it can (the checks `PKPaymentAuthorizationController` makes).
    public var validationFailure: String? {
        if merchantIdentifier.isEmpty { return "missing merchant identifier" }
        if countryCode.count != 2 { return "country code must have two letters" }
        if supportedNetworks.isEmpty { return "no supported networks" }
        if merchantCapabilities.isEmpty { return "no merchant capabilities" }
        guard let total = summaryItems.last else { return "no summary items" }
        if total.label != .verbatim(merchantName) { return "the last summary item must be labelled with the merchant name" }
        if total.amount.minorUnits < 0 { return "negative total" }
        if summaryItems.contains(where: { $0.amount.currency != currency }) { return "summary items in another currency" }
        let parts = summaryItems.dropLast().filter { $0.kind != .included }.map(\.amount).sum(in: currency)
        if summaryItems.count > 1, parts != total.amount { return "the total is not the sum of the items" }
        return nil
    }
}

/// The authorized payment the sheet hands back, mirrored so tests can build one (cf. `PKPayment`).
public struct Payment: Hashable, Sendable {
    public var method: PaymentMethod
    /// Opaque data the wallet produced; the provider turns it into a token.
    public var methodData: String
    public var shippingContact: Contact
    public var shippingMethod: ShippingMethod
    public var transactionIdentifier: String

    public init(method: PaymentMethod, methodData: String, shippingContact: Contact, shippingMethod: ShippingMethod, transactionIdentifier: String) {
        self.method = method
        self.methodData = methodData
        self.shippingContact = shippingContact
        self.shippingMethod = shippingMethod
        self.transactionIdentifier = transactionIdentifier
    }
}
