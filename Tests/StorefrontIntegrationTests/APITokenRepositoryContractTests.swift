import Foundation
import ShopIdentity
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageSQLite
import StorefrontTesting
import Testing

/// The API's token and idempotency stores, alike in memory, in SQLite and in PostgreSQL.
@Suite("API token stores contract")
struct APITokenRepositoryContractTests {
    static func repositories(_ kind: AccountRepositoryKind) async throws -> (tokens: any APITokenRepository, keys: any IdempotencyRepository) {
        switch kind {
        case .inMemory: return (InMemoryAPITokenRepository(), InMemoryIdempotencyRepository())
        case .sqlite:
            let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
            return (SQLiteAPITokenRepository(database: database), SQLiteIdempotencyRepository(database: database))
        case .postgres:
            let database = try await PostgresFixture().database
            return (PostgresAPITokenRepository(database: database), PostgresIdempotencyRepository(database: database))
        }
    }

    static let made = Date(timeIntervalSince1970: 1_790_000_000)

    @Test(arguments: AccountRepositoryKind.allCases)
    func aTokenIsFoundByItsHashListedByOwnerMarkedUsedAndRevokedOnce(kind: AccountRepositoryKind) async throws {
        let tokens = try await Self.repositories(kind).tokens
        let secret = PersonalAccessToken.mint()
        let record = secret.record(name: "deploy", owner: "ssh:SHA256:ada", scope: .shop, at: Self.made)
        let other = PersonalAccessToken.mint().record(name: "fulfilment", owner: "ssh:SHA256:admin", scope: .merchant, at: Self.made + 1)
        try await tokens.add(record)
        try await tokens.add(other)

        #expect(try await tokens.token(secretHash: secret.hash) == record)
        #expect(try await tokens.token(secretHash: PersonalAccessToken.mint().hash) == nil)
        #expect(try await tokens.tokens(owner: "ssh:SHA256:ada") == [record])
        #expect(try await tokens.tokens(owner: nil).map(\.id) == [record.id, other.id], "oldest first")

        try await tokens.markUsed(id: record.id, at: Self.made + 60)
        #expect(try await tokens.token(secretHash: secret.hash)?.lastUsedAt == Self.made + 60)

        #expect(try await tokens.revoke(id: record.id, owner: "ssh:SHA256:someone-else", at: Self.made + 90) == nil, "only its owner's")
        #expect(try await tokens.revoke(id: record.id, owner: "ssh:SHA256:ada", at: Self.made + 100)?.revokedAt == Self.made + 100)
        #expect(try await tokens.revoke(id: record.id, owner: nil, at: Self.made + 200)?.revokedAt == Self.made + 100, "the first revocation stands")
        #expect(try await tokens.revoke(id: "tok_none", owner: nil, at: Self.made) == nil)
        #expect(try await tokens.token(secretHash: secret.hash)?.isRevoked == true)
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func theFirstRequestUnderAKeyIsTheOneEveryRepeatMeets(kind: AccountRepositoryKind) async throws {
        let keys = try await Self.repositories(kind).keys
        let first = IdempotentRequest(owner: "ada", key: "k1", requestHash: "aaa")
        #expect(try await keys.claim(first, at: Self.made) == first)
        #expect(try await keys.claim(IdempotentRequest(owner: "ada", key: "k1", requestHash: "bbb"), at: Self.made) == first, "another body meets the first")
        #expect(try await keys.claim(IdempotentRequest(owner: "bob", key: "k1", requestHash: "bbb"), at: Self.made).requestHash == "bbb", "keys are per owner")
        try await keys.attach(orderNumber: "SF-000007", owner: "ada", key: "k1")
        #expect(try await keys.claim(first, at: Self.made).orderNumber == "SF-000007")
    }
}
