import ShopModels
import ShopPorts

/// Keeps one guest's wallet in memory and everyone else's in the shop's storage: a browser visitor shops as a guest
/// (nothing kept) and, once signed in, reaches the saved wallet of the account.
public struct GuestKeptApartWalletRepository: WalletRepository {
    let guest: String
    let forGuest: any WalletRepository
    let forAccounts: any WalletRepository

    public init(guest: String, forGuest: any WalletRepository = InMemoryWalletRepository(), forAccounts: any WalletRepository) {
        self.guest = guest
        self.forGuest = forGuest
        self.forAccounts = forAccounts
    }

    private func repository(for customer: String) -> any WalletRepository { customer == guest ? forGuest : forAccounts }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        try await repository(for: customer).wallet(forCustomer: customer)
    }
    public func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) async throws {
        try await repository(for: customer).addCard(card, forCustomer: customer, makeDefault: makeDefault)
    }
    public func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) async throws {
        try await repository(for: customer).addAddress(address, forCustomer: customer, makeDefault: makeDefault)
    }
    public func setDefaultCard(id: String, forCustomer customer: String) async throws {
        try await repository(for: customer).setDefaultCard(id: id, forCustomer: customer)
    }
    public func setDefaultAddress(id: String, forCustomer customer: String) async throws {
        try await repository(for: customer).setDefaultAddress(id: id, forCustomer: customer)
    }
    public func removeCard(id: String, forCustomer customer: String) async throws {
        try await repository(for: customer).removeCard(id: id, forCustomer: customer)
    }
    public func removeAddress(id: String, forCustomer customer: String) async throws {
        try await repository(for: customer).removeAddress(id: id, forCustomer: customer)
    }
    public func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) async throws -> WalletContents {
        try await repository(for: customer).fillIfEmpty(contents, forCustomer: customer)
    }
}

/// One guest's cart in memory, everyone else's in the shop's storage.
public struct GuestKeptApartCartRepository: CartRepository {
    let guest: String
    let forGuest: any CartRepository
    let forAccounts: any CartRepository

    public init(guest: String, forGuest: any CartRepository = InMemoryCartRepository(), forAccounts: any CartRepository) {
        self.guest = guest
        self.forGuest = forGuest
        self.forAccounts = forAccounts
    }

    public func lines(forCustomer customer: String) async throws -> [CartLine] {
        try await (customer == guest ? forGuest : forAccounts).lines(forCustomer: customer)
    }

    public func save(_ lines: [CartLine], forCustomer customer: String) async throws {
        try await (customer == guest ? forGuest : forAccounts).save(lines, forCustomer: customer)
    }
}

/// One guest's profile in memory, everyone else's in the shop's storage.
public struct GuestKeptApartProfileRepository: AccountProfileRepository {
    let guest: String
    let forGuest: any AccountProfileRepository
    let forAccounts: any AccountProfileRepository

    public init(guest: String, forGuest: any AccountProfileRepository = InMemoryAccountProfileRepository(), forAccounts: any AccountProfileRepository)
    {
        self.guest = guest
        self.forGuest = forGuest
        self.forAccounts = forAccounts
    }

    public func profile(forCustomer customer: String) async throws -> AccountProfile? {
        try await (customer == guest ? forGuest : forAccounts).profile(forCustomer: customer)
    }

    public func save(_ profile: AccountProfile) async throws {
        try await (profile.customerID == guest ? forGuest : forAccounts).save(profile)
    }
}
