import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Where the account stores live: a session's memory (the identities in SQLite in memory), a SQLite file, or a PostgreSQL database.
enum AccountRepositoryKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, sqlite, postgres
    var testDescription: String { rawValue }

    func repositories() async throws -> (wallets: any WalletRepository, profiles: any AccountProfileRepository, directory: any IdentityDirectory) {
        switch self {
        case .inMemory:
            return (InMemoryWalletRepository(), InMemoryAccountProfileRepository(), SQLIdentityDirectory(database: try SQLiteDatabase.inMemory()))
        case .sqlite:
            let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
            return (
                SQLWalletRepository(database: database), SQLAccountProfileRepository(database: database),
                SQLIdentityDirectory(database: database)
            )
        case .postgres:
            let database = try await PostgresFixture().database
            return (
                SQLWalletRepository(database: database), SQLAccountProfileRepository(database: database),
                SQLIdentityDirectory(database: database)
            )
        }
    }
}

@Suite("Account stores contract", .ownThreads)
struct AccountRepositoryContractTests {
    static let mastercard = PaymentMethod(
        id: "pm_mc_4444", network: .mastercard, lastFour: "4444", expiry: CardExpiry(month: 3, year: 2031), displayName: "Expires 03/31")
    static let amex = PaymentMethod(
        id: "pm_amex_0005", network: .amex, lastFour: "0005", expiry: CardExpiry(month: 7, year: 2032), displayName: "Expires 07/32")
    static let office = Contact(
        id: "office", name: "Jane Appleseed", email: "jane@example.com", phone: "+1 555 0100",
        address: PostalAddress(street: "1 Market St", city: "San Francisco", postalCode: "94105", countryCode: "US")
    )

    @Test(arguments: AccountRepositoryKind.allCases)
    func theFirstCardIsTheDefaultAndRemovingTheDefaultPromotesTheOldest(kind: AccountRepositoryKind) async throws {
        let wallets = try await kind.repositories().wallets
        #expect(try await wallets.wallet(forCustomer: "SHA256:abc") == WalletContents())
        try await wallets.addCard(Fixtures.visa, forCustomer: "SHA256:abc", makeDefault: false)
        try await wallets.addCard(Self.mastercard, forCustomer: "SHA256:abc", makeDefault: false)
        try await wallets.addCard(Self.amex, forCustomer: "SHA256:abc", makeDefault: true)
        var wallet = try await wallets.wallet(forCustomer: "SHA256:abc")
        #expect(wallet.cards.map(\.id) == [Fixtures.visa.id, Self.mastercard.id, Self.amex.id])
        #expect(wallet.cards.map(\.lastFour) == ["4242", "4444", "0005"])
        #expect(wallet.cards.map(\.expiry) == [Fixtures.visa.expiry, Self.mastercard.expiry, Self.amex.expiry])
        #expect(wallet.defaultCardID == Self.amex.id)
        try await wallets.setDefaultCard(id: Self.mastercard.id, forCustomer: "SHA256:abc")
        try await wallets.setDefaultCard(id: "no-such-card", forCustomer: "SHA256:abc")
        #expect(try await wallets.wallet(forCustomer: "SHA256:abc").defaultCardID == Self.mastercard.id, "an unknown card leaves the default alone")
        try await wallets.removeCard(id: Self.mastercard.id, forCustomer: "SHA256:abc")
        wallet = try await wallets.wallet(forCustomer: "SHA256:abc")
        #expect(wallet.cards.map(\.id) == [Fixtures.visa.id, Self.amex.id])
        #expect(wallet.defaultCardID == Fixtures.visa.id)
        #expect(try await wallets.wallet(forCustomer: "local:john").cards.isEmpty, "wallets are per customer")
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func addressesKeepEveryFieldAndTheirOwnDefault(kind: AccountRepositoryKind) async throws {
        let wallets = try await kind.repositories().wallets
        try await wallets.addAddress(Fixtures.jane, forCustomer: "local:jane", makeDefault: false)
        try await wallets.addAddress(Self.office, forCustomer: "local:jane", makeDefault: false)
        var wallet = try await wallets.wallet(forCustomer: "local:jane")
        #expect(wallet.addresses == [Fixtures.jane, Self.office])
        #expect(wallet.defaultAddressID == Fixtures.jane.id)
        try await wallets.setDefaultAddress(id: Self.office.id, forCustomer: "local:jane")
        try await wallets.removeAddress(id: Fixtures.jane.id, forCustomer: "local:jane")
        wallet = try await wallets.wallet(forCustomer: "local:jane")
        #expect(wallet.addresses == [Self.office])
        #expect(wallet.defaultAddressID == Self.office.id)
        #expect(wallet.cards.isEmpty)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aProfileKeepsWhatTheFirstSignInGave(kind: AccountRepositoryKind) async throws {
        let profiles = try await kind.repositories().profiles
        #expect(try await profiles.profile(forCustomer: "sandboxid:1") == nil)
        try await profiles.save(AccountProfile(customerID: "sandboxid:1", name: "Jane Appleseed", email: "jane@example.com"))
        try await profiles.save(AccountProfile(customerID: "sandboxid:1", name: nil, email: nil))
        #expect(
            try await profiles.profile(forCustomer: "sandboxid:1")
                == AccountProfile(customerID: "sandboxid:1", name: "Jane Appleseed", email: "jane@example.com"))
        // The language key's choice is kept beside them, and a save without one leaves it.
        try await profiles.save(AccountProfile(customerID: "sandboxid:1", name: nil, email: nil, language: "ja"))
        try await profiles.save(AccountProfile(customerID: "sandboxid:1", name: "Jane A.", email: nil))
        #expect(
            try await profiles.profile(forCustomer: "sandboxid:1")
                == AccountProfile(customerID: "sandboxid:1", name: "Jane A.", email: "jane@example.com", language: "ja"))
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func usersAreRevokedAndRefreshTokensAreUsedOnce(kind: AccountRepositoryKind) async throws {
        let directory = try await kind.repositories().directory
        #expect(try await directory.userID(email: "jane@example.com") == nil)
        #expect(try await directory.authorize(email: "jane@example.com", newID: "u1") == "u1")
        #expect(try await directory.authorize(email: "jane@example.com", newID: "u2") == "u1", "the first id stays")
        #expect(try await directory.status(userID: "u1") == .authorized)
        #expect(try await directory.status(userID: "u2") == .notFound)
        let expiry = Date(timeIntervalSince1970: 1_800_000_000)
        try await directory.storeRefreshToken(hash: "h1", userID: "u1", expiresAt: expiry)
        let taken = try await #require(try directory.takeRefreshToken(hash: "h1"))
        #expect(taken.userID == "u1")
        #expect(taken.expiresAt == expiry)
        #expect(try await directory.takeRefreshToken(hash: "h1") == nil, "a refresh token works once")
        try await directory.storeRefreshToken(hash: "h2", userID: "u1", expiresAt: expiry)
        try await directory.revoke(userID: "u1")
        #expect(try await directory.status(userID: "u1") == .revoked)
        #expect(try await directory.takeRefreshToken(hash: "h2") == nil, "revoking drops the user's refresh tokens")
        #expect(try await directory.authorize(email: "jane@example.com", newID: "u3") == "u1")
        #expect(try await directory.status(userID: "u1") == .authorized, "signing in again lifts the revocation")
    }
}

/// The sandbox's test cards for every new customer, over each kind of wallet repository.
@Suite("Sandbox test cards for new customers", .ownThreads)
struct SandboxSeededWalletTests {
    static let sample = try! SandboxWallet().contents()

    @Test(arguments: AccountRepositoryKind.allCases)
    func anEmptyWalletIsFilledWithTheTestCardsAndSampleAddressesOnce(kind: AccountRepositoryKind) async throws {
        let base = try await kind.repositories().wallets
        let seeded = try SandboxSeededWalletRepository(base)
        let first = try await seeded.wallet(forCustomer: "ssh:SHA256:new")
        // Stores keep what a card is, not its label: the sheet labels test cards from their ids.
        #expect(first.cards.map(\.id) == Self.sample.cards.map(\.id), "a new customer starts with every test card")
        #expect(first.addresses == Self.sample.addresses)
        #expect(first.defaultCardID == Self.sample.defaultCardID && first.defaultAddressID == Self.sample.defaultAddressID)
        // Two front ends opening one new customer's wallet at once: every add is an upsert under a fixed id.
        let again = try SandboxSeededWalletRepository(base)
        try await base.removeCard(id: Self.sample.cards[1].id, forCustomer: "ssh:SHA256:new")
        #expect(
            try await again.wallet(forCustomer: "ssh:SHA256:new").cards.count == Self.sample.cards.count - 1,
            "a wallet with anything in it is left alone")
        #expect(try await base.wallet(forCustomer: "someone-else") == WalletContents(), "only the customer read is filled")
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func readsAtTheSameTimeAsTheFillingSeeTheWholeSampleOrNothing(kind: AccountRepositoryKind) async throws {
        let seeded = try SandboxSeededWalletRepository(try await kind.repositories().wallets)
        // A session reads its wallet for the list and again for the sheet; both reads may meet the first fill.
        let reads = try await withThrowingTaskGroup(of: WalletContents.self) { group in
            for _ in 0..<8 { group.addTask { try await seeded.wallet(forCustomer: "ssh:SHA256:new") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for read in reads {
            #expect(read.cards.map(\.id) == Self.sample.cards.map(\.id), "no read sees a half-filled wallet")
            #expect(read.addresses == Self.sample.addresses && read.defaultAddressID == Self.sample.defaultAddressID)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func fillingAWalletThatHoldsACardChangesNothing(kind: AccountRepositoryKind) async throws {
        let base = try await kind.repositories().wallets
        try await base.addCard(Fixtures.visa, forCustomer: "local:jane", makeDefault: true)
        let after = try await base.fillIfEmpty(Self.sample, forCustomer: "local:jane")
        #expect(after.cards.map(\.id) == [Fixtures.visa.id] && after.addresses.isEmpty)
        #expect(try await base.wallet(forCustomer: "local:jane") == after)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aWalletWithOnlyAnAddressIsLeftAlone(kind: AccountRepositoryKind) async throws {
        let base = try await kind.repositories().wallets
        let address = try #require(SandboxWallet.sampleContacts.last)
        try await base.addAddress(address, forCustomer: "local:jane", makeDefault: true)
        let wallet = try await SandboxSeededWalletRepository(base).wallet(forCustomer: "local:jane")
        #expect(wallet.cards.isEmpty)
        #expect(wallet.addresses.map(\.id) == [address.id])
    }
}
