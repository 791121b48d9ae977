import Foundation
import GRDB
import ShopBootstrap
import ShopBundledCatalog
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// Accounts apart from their ways in, on both databases: a key seen first becomes an account under the id its data was
/// kept under, a second key joins it, a removed key is refused on the next connection from any host, and the last way
/// in stays. Customers kept before accounts become accounts with everything they had.
@Suite("Accounts and their ways in", .ownThreads)
struct AccountDirectoryTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    let now = Date(timeIntervalSince1970: 1_795_339_800)
    static let keyA = WayIn.sshKey(fingerprint: "SHA256:aaaa")
    static let keyB = WayIn.sshKey(fingerprint: "SHA256:bbbb")

    /// Two directories on one database, each through its own connections: one host, and another.
    func directories(_ kind: Kind) async throws -> (any AccountDirectory, any AccountDirectory) {
        switch kind {
        case .sqlite:
            let directory = TemporaryDirectory.make()
            return (
                SQLAccountDirectory(database: try SQLiteDatabase.open(directory: directory)),
                SQLAccountDirectory(database: try SQLiteDatabase.open(directory: directory))
            )
        case .postgres:
            let fixture = try await PostgresFixture()
            return (SQLAccountDirectory(database: fixture.database), SQLAccountDirectory(database: try fixture.anotherClient()))
        }
    }

    @Test(arguments: Kind.allCases)
    func aSecondKeyJoinsTheAccountAndARemovedKeyIsRefusedEverywhere(kind: Kind) async throws {
        let (here, there) = try await directories(kind)
        let first = try #require(try await here.account(for: Self.keyA, at: now))
        #expect(first.id == "ssh:SHA256:aaaa", "the id its cart and orders were kept under")
        #expect(first.waysIn.map(\.wayIn) == [Self.keyA])
        try await here.link(Self.keyB, to: first.id, at: now.addingTimeInterval(60))
        let throughB = try #require(try await there.account(for: Self.keyB, at: now.addingTimeInterval(120)))
        #expect(throughB.id == first.id && throughB.waysIn.map(\.wayIn) == [Self.keyA, Self.keyB], "one account, from another host")
        #expect(throughB.waysIn.last?.lastUsedAt == now.addingTimeInterval(120))

        let stranger = try #require(try await there.account(for: .sshKey(fingerprint: "SHA256:cccc"), at: now))
        await #expect(throws: AccountChangeError.reachesAnotherAccount(first.id)) {
            try await here.link(Self.keyB, to: stranger.id, at: now)
        }
        try await there.remove(Self.keyA, from: first.id, at: now.addingTimeInterval(180))
        #expect(try await here.account(for: Self.keyA, at: now.addingTimeInterval(240)) == nil, "key A is refused at its next connection")
        await #expect(throws: AccountChangeError.lastWayIn) { try await here.remove(Self.keyB, from: first.id, at: now) }
        #expect(try await here.account(id: first.id)?.waysIn.map(\.wayIn) == [Self.keyB])
        // Signed in by email again, key A is linked back.
        try await here.link(Self.keyA, to: first.id, at: now.addingTimeInterval(300))
        #expect(try await there.account(for: Self.keyA, at: now.addingTimeInterval(360))?.id == first.id)
    }

    @Test(arguments: Kind.allCases)
    func aVerifiedEmailFindsItsAccountAndBelongsToOneAccountOnly(kind: Kind) async throws {
        let (here, there) = try await directories(kind)
        let ada = try #require(try await here.account(for: Self.keyA, at: now))
        let bo = try #require(try await here.account(for: Self.keyB, at: now))
        #expect(try await there.account(verifiedEmail: "ada@example.com") == nil)
        try await here.verify(email: "ada@example.com", for: ada.id, at: now)
        #expect(try await there.account(verifiedEmail: "ADA@example.com")?.id == ada.id, "an email in any case")
        await #expect(throws: AccountChangeError.emailTaken) { try await there.verify(email: "Ada@Example.com", for: bo.id, at: now) }
        await #expect(throws: AccountChangeError.noSuchAccount("nobody")) { try await there.verify(email: "x@example.com", for: "nobody", at: now) }
        #expect(try await there.accounts(offset: 0, limit: 10).map(\.id) == [ada.id, bo.id])
    }

    /// v22 on a database the shop kept before accounts: every key, Sandbox ID user and local user it kept anything for
    /// becomes an account under the same id, with that way in, its profile and its Sandbox ID email; guests do not.
    @Test func customersKeptBeforeAccountsBecomeAccountsWithEverythingTheyHad() async throws {
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        try await database.pool.write { db in
            // As the shop wrote them before v22: none of these has an account row or a way in yet.
            try db.execute(sql: "DELETE FROM account_way_in")
            try db.execute(
                sql: """
                    INSERT INTO cart_line (customer, position, product_id, name, unit_price, currency, quantity)
                        VALUES ('ssh:SHA256:aaaa', 0, 'mug', 'Mug', 1800, 'USD', 1), ('guest-1', 0, 'mug', 'Mug', 1800, 'USD', 1);
                    INSERT INTO address (customer, id, name, street, city, postal_code, country, email, phone, is_default, added)
                        VALUES ('local:ada', 'a1', 'Ada', '1 Loop Road', 'Cupertino', '95014', 'US', '', '', 1, 0);
                    INSERT INTO sandbox_id_user (id, email) VALUES ('u1', 'bo@example.com');
                    INSERT INTO account (customer, name) VALUES ('ssh:SHA256:bbbb', 'Bo');
                    """)
            for statement in AccountsMigration.backfill + [AccountsMigration.sandboxEmails] + AccountsMigration.backfill {
                try db.execute(sql: statement)
            }
        }
        let directory = SQLAccountDirectory(database: database)
        let accounts = try await directory.accounts(offset: 0, limit: 10)
        #expect(accounts.map(\.id) == ["local:ada", "sandbox-id:u1", "ssh:SHA256:aaaa", "ssh:SHA256:bbbb"], "run twice, made once; no guest")
        #expect(accounts.map { $0.waysIn.map(\.wayIn) } == [[.localUser(name: "ada")], [.sandboxID(userID: "u1")], [Self.keyA], [Self.keyB]])
        #expect(accounts[1].email == "bo@example.com" && accounts[3].name == "Bo", "the email and the name they had")
        #expect(try await directory.account(for: Self.keyA, at: now)?.id == "ssh:SHA256:aaaa", "key A reaches its cart's account")
        let cart = try await SQLCartRepository(database: database).lines(forCustomer: "ssh:SHA256:aaaa")
        #expect(cart.map(\.name) == ["Mug"], "and its cart is where it was")
    }

    /// A session of a key: the account it reaches, made by it or by the key it was linked to; a key taken off its
    /// account ends its next session, refused (exit 77), with a line that says why.
    @Test func aLinkedKeyShopsAsItsAccountAndARemovedKeysNextSessionIsRefused() async throws {
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        let catalog = try Fixtures.importBundledCatalog(into: database)
        let storage = ShopStorage.sqlite(database, catalog: catalog)
        let first = try #require(try await SessionComposition.keyAccount(.keyHolder(fingerprint: "SHA256:aaaa"), storage: storage, at: now))
        try await storage.accounts.link(Self.keyB, to: first.id, at: now)
        let second = try await SessionComposition.keyAccount(.keyHolder(fingerprint: "SHA256:bbbb"), storage: storage, at: now)
        #expect(second?.id == "ssh:SHA256:aaaa", "key B shops as the account key A made: its cart, wallet and orders")
        try await storage.accounts.remove(Self.keyA, from: first.id, at: now)
        do {
            _ = try await SessionComposition.keyAccount(.keyHolder(fingerprint: "SHA256:aaaa"), storage: storage, at: now)
            Issue.record("key A was let in after it was taken off its account")
        } catch {
            #expect(error.kind == .refused && error.description.contains("was taken off its account"))
        }
        #expect(try await SessionComposition.keyAccount(.local, storage: storage, at: now) == nil, "no key, no account to look up")
    }
}
