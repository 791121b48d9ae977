import Foundation
import LiveObjects
import ShopModels
import ShopPorts
import Synchronization

// What a session keeps only while it lasts (an SSH guest's wallet, cart and profile; a browser visitor's sign-in
// tokens), and what tests keep instead of a database where a test needs no SQL.

/// Wallets kept in memory, per customer: the double for the SQLite wallet repository.
public final class InMemoryWalletRepository: WalletRepository {
    private let wallets = Mutex<[String: WalletContents]>([:])

    public init(_ initial: [String: WalletContents] = [:]) {
        wallets.withLock { $0 = initial }
    }

    public func wallet(forCustomer customer: String) throws -> WalletContents {
        wallets.withLock { $0[customer] ?? WalletContents() }
    }

    public func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) throws {
        update(customer) { wallet in
            wallet.cards.removeAll { $0.id == card.id }
            wallet.cards.append(card)
            if makeDefault || wallet.defaultCardID == nil { wallet.defaultCardID = card.id }
        }
    }

    public func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) throws {
        update(customer) { wallet in
            wallet.addresses.removeAll { $0.id == address.id }
            wallet.addresses.append(address)
            if makeDefault || wallet.defaultAddressID == nil { wallet.defaultAddressID = address.id }
        }
    }

    public func setDefaultCard(id: String, forCustomer customer: String) throws {
        update(customer) { wallet in
            if wallet.cards.contains(where: { $0.id == id }) { wallet.defaultCardID = id }
        }
    }

    public func setDefaultAddress(id: String, forCustomer customer: String) throws {
        update(customer) { wallet in
            if wallet.addresses.contains(where: { $0.id == id }) { wallet.defaultAddressID = id }
        }
    }

    public func removeCard(id: String, forCustomer customer: String) throws {
        update(customer) { wallet in
            wallet.cards.removeAll { $0.id == id }
            if wallet.defaultCardID == id { wallet.defaultCardID = wallet.cards.first?.id }
        }
    }

    public func removeAddress(id: String, forCustomer customer: String) throws {
        update(customer) { wallet in
            wallet.addresses.removeAll { $0.id == id }
            if wallet.defaultAddressID == id { wallet.defaultAddressID = wallet.addresses.first?.id }
        }
    }

    public func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) throws -> WalletContents {
        wallets.withLock { all in
            let current = all[customer] ?? WalletContents()
            guard current.cards.isEmpty, current.addresses.isEmpty else { return current }
            var filled = contents
            filled.defaultCardID = contents.defaultCardID ?? contents.cards.first?.id
            filled.defaultAddressID = contents.defaultAddressID ?? contents.addresses.first?.id
            all[customer] = filled
            return filled
        }
    }

    private func update(_ customer: String, _ change: (inout WalletContents) -> Void) {
        wallets.withLock { all in
            var wallet = all[customer] ?? WalletContents()
            change(&wallet)
            all[customer] = wallet
        }
    }
}

/// Carts kept in memory, per customer: the double for the SQLite cart repository.
public final class InMemoryCartRepository: CartRepository {
    private let carts = Mutex<[String: [CartLine]]>([:])
    public init() {}
    public func lines(forCustomer customer: String) throws -> [CartLine] { carts.withLock { $0[customer] ?? [] } }
    public func save(_ lines: [CartLine], forCustomer customer: String) throws { carts.withLock { $0[customer] = lines } }
}

/// Account profiles kept in memory.
public final class InMemoryAccountProfileRepository: AccountProfileRepository {
    private let profiles = Mutex<[String: AccountProfile]>([:])
    public init() {}
    public func profile(forCustomer customer: String) throws -> AccountProfile? { profiles.withLock { $0[customer] } }
    public func save(_ profile: AccountProfile) throws {
        profiles.withLock { all in
            let old = all[profile.customerID]
            all[profile.customerID] = AccountProfile(
                customerID: profile.customerID, name: profile.name ?? old?.name, email: profile.email ?? old?.email,
                language: profile.language ?? old?.language)
        }
    }
}

/// A credential repository in memory: the double for the credential file.
public final class InMemoryCredentialRepository: CredentialRepository {
    private let values = Mutex<[String: String]>([:])
    public init() {}
    public func string(forKey key: String) throws -> String? { values.withLock { $0[key] } }
    public func set(_ value: String, forKey key: String) throws { values.withLock { $0[key] = value } }
    public func removeValue(forKey key: String) throws { _ = values.withLock { $0.removeValue(forKey: key) } }
}

extension InMemoryWalletRepository: LiveObject {}
extension InMemoryCartRepository: LiveObject {}
extension InMemoryAccountProfileRepository: LiveObject {}
extension InMemoryCredentialRepository: LiveObject {}
