import StoreClients
import StoreModels

/// A wallet store in which an empty wallet, any customer's (a guest, an SSH key, a Sandbox ID
/// account), is filled with the sandbox test cards and sample addresses the first time it is read,
/// so a demo audience can buy on a first visit. For sandbox payments only: these cards cannot be
/// charged anywhere else.
public struct SandboxSeededWalletStore: ForwardingWalletStore {
    public let base: any WalletStore
    private let sample: WalletContents

    public init(_ base: any WalletStore, sample: SandboxWallet = SandboxWallet()) throws {
        self.base = base
        self.sample = try sample.contents()
    }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        let current = try await base.wallet(forCustomer: customer)
        guard current.cards.isEmpty, current.addresses.isEmpty else { return current }
        return try await base.fillIfEmpty(sample, forCustomer: customer)
    }
}
