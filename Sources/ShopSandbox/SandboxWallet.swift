import ShopModels
import ShopPorts

/// A well-known provider test card and what the sandbox does when it is charged.
public struct SandboxCard: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        case succeeds
        case declines(DeclineReason)
        /// Succeeds with the shopper there (as if the bank's check passed at once); charged off-session, as renewals
        /// are, the bank wants the subscriber to authenticate (`authentication_required`).
        case needsAuthenticationOffSession
    }

    public var number: String
    public var network: PaymentNetwork
    public var label: String
    public var outcome: Outcome

    public var lastFour: String { String(number.suffix(4)) }
    /// The id the sandbox vault gives this card: it carries the outcome, never the number.
    public var walletID: String { Self.cardID(outcome: outcome, suffix: "\(network.rawValue)_\(lastFour)") }

    public var paymentMethod: PaymentMethod {
        PaymentMethod(id: walletID, network: network, lastFour: lastFour, expiry: CardExpiry(month: 12, year: 2034), displayName: label)
    }

    /// The test cards, clearly labelled so a demo can show each failure by picking a card.
    public static let all: [SandboxCard] = [
        SandboxCard(number: "4242424242424242", network: .visa, label: "Test: succeeds", outcome: .succeeds),
        SandboxCard(number: "5555555555554444", network: .mastercard, label: "Test: succeeds", outcome: .succeeds),
        SandboxCard(number: "4000000000000002", network: .visa, label: "Test: declined", outcome: .declines(.generic)),
        SandboxCard(number: "4000000000009995", network: .visa, label: "Test: insufficient funds", outcome: .declines(.insufficientFunds)),
        SandboxCard(number: "4000000000000069", network: .visa, label: "Test: expired card", outcome: .declines(.expiredCard)),
        SandboxCard(number: "4000000000000127", network: .visa, label: "Test: incorrect CVC", outcome: .declines(.incorrectCVC)),
        SandboxCard(number: "4000000000000119", network: .visa, label: "Test: processing error", outcome: .declines(.processingError)),
        SandboxCard(number: "4242424242424241", network: .visa, label: "Test: incorrect number", outcome: .declines(.incorrectNumber)),
        SandboxCard(number: "4000002760003184", network: .visa, label: "Test: authenticate off-session", outcome: .needsAuthenticationOffSession),
    ]

    /// "card_<outcome>_<suffix>", where the outcome is "ok" or a decline reason.
    static func cardID(outcome: Outcome, suffix: String) -> String {
        switch outcome {
        case .succeeds: "card_ok_\(suffix)"
        case .declines(let reason): "card_\(reason.rawValue)_\(suffix)"
        case .needsAuthenticationOffSession: "card_offsession-auth_\(suffix)"
        }
    }

    /// "Test: declined" and the like: the label of the test card with the same outcome as `cardID`.
    static func label(cardID: String) -> String? {
        guard let outcome = outcome(cardID: cardID) else { return nil }
        return all.first { $0.outcome == outcome }?.label
    }

    /// What charging the vaulted card `cardID` does, or nil when the sandbox never issued it.
    static func outcome(cardID: String) -> Outcome? {
        let parts = cardID.split(separator: "_", maxSplits: 2)
        guard parts.count == 3, parts[0] == "card" else { return nil }
        if parts[1] == "ok" { return .succeeds }
        if parts[1] == "offsession-auth" { return .needsAuthenticationOffSession }
        return DeclineReason(rawValue: String(parts[1])).map { .declines($0) }
    }
}

/// A wallet preloaded with the sandbox test cards and a few contacts, one of which the shop cannot ship to.
public struct SandboxWallet: Wallet {
    public var cards: [SandboxCard]
    public var storedContacts: [Contact]
    public var defaultPaymentMethodID: String?
    public var defaultContactID: String?

    public init(cards: [SandboxCard] = SandboxCard.all, contacts: [Contact] = SandboxWallet.sampleContacts) {
        self.cards = cards
        self.storedContacts = contacts
        self.defaultPaymentMethodID = cards.first?.walletID
        self.defaultContactID = contacts.first?.id
    }

    public func contents() throws -> WalletContents {
        WalletContents(
            cards: cards.map(\.paymentMethod), defaultCardID: defaultPaymentMethodID, addresses: storedContacts, defaultAddressID: defaultContactID)
    }

    public static let sampleContacts: [Contact] = [
        Contact(
            id: "contact-jane", name: "Jane Appleseed", email: "jane@example.com", phone: "+1 555 0100",
            address: PostalAddress(street: "1 Loop Road", city: "Cupertino", region: "US-CA", postalCode: "95014", countryCode: "US")),
        Contact(
            id: "contact-sam", name: "Sam Rivera", email: "sam@example.org", phone: "+1 555 0142",
            address: PostalAddress(street: "42 Harbor Street", city: "Portland", region: "US-OR", postalCode: "97201", countryCode: "US")),
        Contact(
            id: "contact-ines", name: "Ines Okafor", email: "", phone: "+354 555 0199",
            address: PostalAddress(street: "Laugavegur 7", city: "Reykjavik", postalCode: "101", countryCode: "IS")),
        Contact(
            id: "contact-priya", name: "Priya Nair", email: "priya@example.ca", phone: "+1 416 555 0123",
            address: PostalAddress(
                street: "100 Queen St W", street2: "Suite 300", city: "Toronto", region: "CA-ON", postalCode: "M5H 2N2", countryCode: "CA")),
        Contact(
            id: "contact-lena", name: "Lena Vogel", email: "lena@example.de", phone: "+49 30 5550 100",
            address: PostalAddress(street: "Hauptstraße 1", city: "Berlin", postalCode: "10115", countryCode: "DE")),
    ]
}
