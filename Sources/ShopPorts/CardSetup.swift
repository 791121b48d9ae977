import ShopModels

/// How a payment provider takes a new card from the shopper.
public enum CardCollection: Hashable, Sendable {
    /// The shopper types the number into the shop's own form, which sends it to the provider once (the sandbox;
    /// Stripe only for an account allowed raw card data).
    case typedInTheShop
    /// The shopper adds the card on the provider's own page, from a link the shop shows: the number never passes
    /// through the shop.
    case onTheProvidersPage
}

/// A page of the provider's where the shopper adds a card, and where it goes.
public struct CardSetupLink: Hashable, Sendable {
    /// The provider's id for the page (a Stripe Checkout Session).
    public var id: String
    public var url: String

    public init(id: String, url: String) {
        self.id = id
        self.url = url
    }
}

/// Where a card page stands.
public enum CardSetupState: Hashable, Sendable {
    /// Waiting for the shopper.
    case open
    /// The shopper added this card; the provider keeps it for the shop's customer.
    case completed(PaymentMethod)
    /// The page expired or was abandoned: a new link is needed.
    case expired
}

/// A provider that takes cards on its own page.
///
/// Order of calls: `startCardSetup` → the shop shows the link and follows it with `cardSetupState`, backing off,
/// until `.completed` or `.expired` → or the shopper leaves and the shop calls `cancelCardSetup`.
public protocol HostedCardSetup: Sendable {
    func startCardSetup(forCustomer customerID: String) async throws(PaymentProviderError) -> CardSetupLink
    func cardSetupState(_ link: CardSetupLink) async throws(PaymentProviderError) -> CardSetupState
    /// Closes the page so it cannot be used any more; failures are ignored (the page expires anyway).
    func cancelCardSetup(_ link: CardSetupLink) async
}
