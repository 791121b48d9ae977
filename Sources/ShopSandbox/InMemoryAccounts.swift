import Foundation
import ShopModels
import ShopPorts
import Synchronization

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
