import ShopModels
import ShopPorts

/// A wallet repository in which an empty wallet, any customer's (a guest, an SSH key, a Sandbox ID
/// account), is filled with the sandbox test cards and sample addresses the first time it is read,
/// so a demo audience can buy on a first visit. For sandbox payments only: these cards cannot be
/// charged anywhere else.
public struct SandboxSeededWalletRepository: ForwardingWalletRepository {
    public let base: any WalletRepository
    private let sample: WalletContents

    public init(_ base: any WalletRepository, sample: SandboxWallet = SandboxWallet()) throws {
        self.base = base
        self.sample = try sample.contents()
    }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        let current = try await base.wallet(forCustomer: customer)
        guard current.cards.isEmpty, current.addresses.isEmpty else { return current }
        return try await base.fillIfEmpty(sample, forCustomer: customer)
    }
}
