import Foundation
import ShopModels
import ShopPorts

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
