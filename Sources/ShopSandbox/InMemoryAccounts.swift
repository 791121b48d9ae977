import Foundation
import ShopModels
import ShopPorts
import Synchronization

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

/// The device wallet over a wallet repository: whichever customer `owner` names right now.
public struct StoredWallet: Wallet {
    private let repository: any WalletRepository
    private let owner: WalletOwner
    public init(repository: any WalletRepository, owner: WalletOwner) {
        self.repository = repository
        self.owner = owner
    }
    /// The stored wallet, each sandbox card labelled with what charging it does, as the test cards are.
    public func contents() async throws -> WalletContents {
        var contents = try await repository.wallet(forCustomer: owner.customerID)
        for index in contents.cards.indices {
            if let label = SandboxCard.label(cardID: contents.cards[index].id) { contents.cards[index].displayName = label }
        }
        return contents
    }
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
                customerID: profile.customerID, name: profile.name ?? old?.name, email: profile.email ?? old?.email)
        }
    }
}

/// The sandbox identity provider's records kept in memory.
public final class InMemoryIdentityDirectory: IdentityDirectory {
    private struct Records {
        var users: [String: (email: String, revoked: Bool)] = [:]
        var refreshTokens: [String: (userID: String, expiresAt: Date)] = [:]
    }
    private let records = Mutex(Records())
    public init() {}

    public func userID(email: String) throws -> String? {
        records.withLock { $0.users.first { $0.value.email == email }?.key }
    }

    public func authorize(email: String, newID: String) throws -> String {
        records.withLock { records in
            if let id = records.users.first(where: { $0.value.email == email })?.key {
                records.users[id]?.revoked = false
                return id
            }
            records.users[newID] = (email, false)
            return newID
        }
    }

    public func status(userID: String) throws -> CredentialState {
        records.withLock { records in
            guard let user = records.users[userID] else { return .notFound }
            return user.revoked ? .revoked : .authorized
        }
    }

    public func revoke(userID: String) throws {
        records.withLock { records in
            records.users[userID]?.revoked = true
            records.refreshTokens = records.refreshTokens.filter { $0.value.userID != userID }
        }
    }

    public func storeRefreshToken(hash: String, userID: String, expiresAt: Date) throws {
        records.withLock { $0.refreshTokens[hash] = (userID, expiresAt) }
    }

    public func takeRefreshToken(hash: String) throws -> (userID: String, expiresAt: Date)? {
        records.withLock { $0.refreshTokens.removeValue(forKey: hash) }
    }
}
