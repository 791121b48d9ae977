import ShopModels
import ShopPorts

/// A wallet repository a test did not set up: every read and change fails the test.
public struct UnimplementedWalletRepository: WalletRepository {
    public init() {}

    private func fail(_ method: String) -> Unimplemented {
        unimplemented("WalletRepository", method)
        return Unimplemented(port: "WalletRepository")
    }

    public func wallet(forCustomer customer: String) async throws -> WalletContents { throw fail("wallet(forCustomer:)") }
    public func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) async throws {
        throw fail("addCard(_:forCustomer:makeDefault:)")
    }
    public func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) async throws {
        throw fail("addAddress(_:forCustomer:makeDefault:)")
    }
    public func setDefaultCard(id: String, forCustomer customer: String) async throws { throw fail("setDefaultCard(id:forCustomer:)") }
    public func setDefaultAddress(id: String, forCustomer customer: String) async throws { throw fail("setDefaultAddress(id:forCustomer:)") }
    public func removeCard(id: String, forCustomer customer: String) async throws { throw fail("removeCard(id:forCustomer:)") }
    public func removeAddress(id: String, forCustomer customer: String) async throws { throw fail("removeAddress(id:forCustomer:)") }
    public func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) async throws -> WalletContents {
        throw fail("fillIfEmpty(_:forCustomer:)")
    }
}

/// A profile repository a test did not set up: reading or saving a profile fails the test.
public struct UnimplementedProfileRepository: AccountProfileRepository {
    public init() {}

    public func profile(forCustomer customer: String) async throws -> AccountProfile? {
        unimplemented("AccountProfileRepository", "profile(forCustomer:)")
        throw Unimplemented(port: "AccountProfileRepository")
    }

    public func save(_ profile: AccountProfile) async throws {
        unimplemented("AccountProfileRepository", "save(_:)")
        throw Unimplemented(port: "AccountProfileRepository")
    }
}
