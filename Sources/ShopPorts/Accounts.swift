import Foundation
import LiveObjects
import ShopModels
import Synchronization

/// What the shop remembers about an account: the name and email the identity provider gave on the first sign-in.
public struct AccountProfile: Hashable, Sendable {
    public var customerID: String
    public var name: String?
    public var email: String?
    /// The language the account chose with the language key (`de`), which its sessions open in; nil for none chosen.
    public var language: String?
    public init(customerID: String, name: String?, email: String?, language: String? = nil) {
        self.customerID = customerID
        self.name = name
        self.email = email
        self.language = language
    }
}

/// Keeps account profiles.
public protocol AccountProfileRepository: Sendable {
    func profile(forCustomer customer: String) async throws -> AccountProfile?
    /// Stores `profile`, keeping stored values where the new one has nil.
    func save(_ profile: AccountProfile) async throws
}

/// One customer's saved cards and addresses, and which of each is the default.
public struct WalletContents: Hashable, Sendable {
    public var cards: [PaymentMethod]
    public var defaultCardID: String?
    public var addresses: [Contact]
    public var defaultAddressID: String?

    public init(cards: [PaymentMethod] = [], defaultCardID: String? = nil, addresses: [Contact] = [], defaultAddressID: String? = nil) {
        self.cards = cards
        self.defaultCardID = defaultCardID
        self.addresses = addresses
        self.defaultAddressID = defaultAddressID
    }

    public var defaultCard: PaymentMethod? { cards.first { $0.id == defaultCardID } }
    public var defaultAddress: Contact? { addresses.first { $0.id == defaultAddressID } }
}

/// Saved cards (only the provider's token, network, last 4 and expiry) and addresses, per customer.
///
/// The first card or address a customer saves becomes the default; removing the default makes
/// the oldest remaining one the default.
public protocol WalletRepository: Sendable {
    func wallet(forCustomer customer: String) async throws -> WalletContents
    func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) async throws
    func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) async throws
    func setDefaultCard(id: String, forCustomer customer: String) async throws
    func setDefaultAddress(id: String, forCustomer customer: String) async throws
    func removeCard(id: String, forCustomer customer: String) async throws
    func removeAddress(id: String, forCustomer customer: String) async throws
    /// Puts every card and address of `contents` into the customer's wallet in one step when it holds
    /// neither cards nor addresses, so no reader sees it half filled; returns the wallet as it is after.
    func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) async throws -> WalletContents
}

/// The two kinds of wallet rows as both databases keep them, each in a table of its own.
public enum WalletRowTable: String, Sendable {
    case cards = "wallet_card"
    case addresses = "address"
}

/// A database wallet repository, whose default and remove work alike on either table: it writes those two once
/// and gets the four per-kind calls from them.
public protocol WalletTableRepository: WalletRepository {
    /// Makes row `id` the default of its table, if the customer has it.
    func setDefault(in table: WalletRowTable, id: String, customer: String) async throws
    /// Removes row `id`; when it was the default, the oldest remaining row becomes the default.
    func remove(from table: WalletRowTable, id: String, customer: String) async throws
}

extension WalletTableRepository {
    public func setDefaultCard(id: String, forCustomer customer: String) async throws { try await setDefault(in: .cards, id: id, customer: customer) }
    public func setDefaultAddress(id: String, forCustomer customer: String) async throws {
        try await setDefault(in: .addresses, id: id, customer: customer)
    }
    public func removeCard(id: String, forCustomer customer: String) async throws { try await remove(from: .cards, id: id, customer: customer) }
    public func removeAddress(id: String, forCustomer customer: String) async throws {
        try await remove(from: .addresses, id: id, customer: customer)
    }
}

/// A wallet repository that changes what reading a wallet does and passes every other call to `base`.
public protocol ForwardingWalletRepository: WalletRepository {
    var base: any WalletRepository { get }
}

extension ForwardingWalletRepository {
    public func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) async throws {
        try await base.addCard(card, forCustomer: customer, makeDefault: makeDefault)
    }
    public func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) async throws {
        try await base.addAddress(address, forCustomer: customer, makeDefault: makeDefault)
    }
    public func setDefaultCard(id: String, forCustomer customer: String) async throws { try await base.setDefaultCard(id: id, forCustomer: customer) }
    public func setDefaultAddress(id: String, forCustomer customer: String) async throws {
        try await base.setDefaultAddress(id: id, forCustomer: customer)
    }
    public func removeCard(id: String, forCustomer customer: String) async throws { try await base.removeCard(id: id, forCustomer: customer) }
    public func removeAddress(id: String, forCustomer customer: String) async throws { try await base.removeAddress(id: id, forCustomer: customer) }
    public func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) async throws -> WalletContents {
        // Filled below, then read through this repository, so what it leaves out stays out.
        _ = try await base.fillIfEmpty(contents, forCustomer: customer)
        return try await wallet(forCustomer: customer)
    }
}

/// A wallet repository that shows only the cards the payment provider can charge: cards vaulted by
/// another provider (the sandbox, before a shop moved to Stripe) stay stored but are not offered.
public struct ChargeableCardsWalletRepository: ForwardingWalletRepository {
    public let base: any WalletRepository
    private let canCharge: @Sendable (PaymentMethod) -> Bool

    public init(_ base: any WalletRepository, canCharge: @escaping @Sendable (PaymentMethod) -> Bool) {
        self.base = base
        self.canCharge = canCharge
    }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        var contents = try await base.wallet(forCustomer: customer)
        contents.cards = contents.cards.filter(canCharge)
        if contents.defaultCard == nil { contents.defaultCardID = contents.cards.first?.id }
        return contents
    }
}

/// Whose wallet the device's payment sheet shows: the guest's, or the signed-in account's.
///
/// Shared by the composition root between the sheet's wallet and the view model, which
/// points it at the customer paying as each checkout begins.
public final class WalletOwner: Sendable {
    private let current: Mutex<String>
    public init(_ customerID: String) { current = Mutex(customerID) }
    public var customerID: String {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

extension PaymentMethod {
    /// A card as a wallet repository keeps it, shown by its expiry; nil for a network this version does not know.
    public static func stored(token: String, network: String, lastFour: String, expiryMonth: Int, expiryYear: Int) -> PaymentMethod? {
        guard let network = PaymentNetwork(rawValue: network) else { return nil }
        let expiry = CardExpiry(month: expiryMonth, year: expiryYear)
        return PaymentMethod(id: token, network: network, lastFour: lastFour, expiry: expiry, displayName: "Expires \(expiry)")
    }
}

/// A wallet that tells the payment provider of each card removed, once the wallet no longer holds it.
public struct CardForgettingWalletRepository: ForwardingWalletRepository {
    public let base: any WalletRepository
    private let forget: @Sendable (String) async -> Void

    public init(_ base: any WalletRepository, forget: @escaping @Sendable (String) async -> Void) {
        self.base = base
        self.forget = forget
    }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        try await base.wallet(forCustomer: customer)
    }

    public func removeCard(id: String, forCustomer customer: String) async throws {
        try await base.removeCard(id: id, forCustomer: customer)
        await forget(id)
    }
}

extension WalletOwner: LiveObject {}
