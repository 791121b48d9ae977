import Foundation
import ShopIdentity
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// The API's token and idempotency stores, alike in SQLite (in memory and in a file) and in PostgreSQL.
@Suite("API token stores contract", .ownThreads)
struct APITokenRepositoryContractTests {
    static func repositories(_ kind: AccountRepositoryKind) async throws -> (tokens: any APITokenRepository, keys: any IdempotencyRepository) {
        switch kind {
        case .inMemory:
            let database = try SQLiteDatabase.inMemory()
            return (SQLAPITokenRepository(database: database), SQLIdempotencyRepository(database: database))
        case .sqlite:
            let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
            return (SQLAPITokenRepository(database: database), SQLIdempotencyRepository(database: database))
        case .postgres:
            let database = try await PostgresFixture().database
            return (SQLAPITokenRepository(database: database), SQLIdempotencyRepository(database: database))
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
        let early = Self.made - 1000
        func claim(_ owner: String, _ key: String, _ print: String, at time: Date = Self.made) async throws -> IdempotentClaim {
            try await keys.claim(owner: owner, key: key, fingerprint: print, at: time, abandonedBefore: early)
        }
        #expect(try await claim("ada", "k1", "aaa") == .granted)
        #expect(try await claim("ada", "k1", "aaa") == .inFlight, "the same request while the first runs")
        #expect(try await claim("ada", "k1", "bbb") == .reused, "another body meets the first")
        #expect(try await claim("bob", "k1", "bbb") == .granted, "keys are per owner")
        let answer = IdempotentAnswer(status: 201, contentType: "application/json", body: Array(#"{"number":"SF-000007"}"#.utf8) + [0, 255])
        try await keys.answer(answer, owner: "ada", key: "k1")
        #expect(try await claim("ada", "k1", "aaa") == .answered(answer), "the answer, byte for byte")
        try await keys.release(owner: "ada", key: "k1")
        #expect(try await claim("ada", "k1", "aaa") == .answered(answer), "an answered key is never released")
        try await keys.release(owner: "bob", key: "k1")
        #expect(try await claim("bob", "k1", "ccc") == .granted, "a released key runs anew, with any body")
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aRequestUnansweredPastItsTimeIsTakenOverOnceAndTwentyAtOnceGetOneGrant(kind: AccountRepositoryKind) async throws {
        let keys = try await Self.repositories(kind).keys
        #expect(try await keys.claim(owner: "ada", key: "lost", fingerprint: "p", at: Self.made, abandonedBefore: Self.made - 60) == .granted)
        let later = Self.made + 120
        #expect(
            try await keys.claim(owner: "ada", key: "lost", fingerprint: "p", at: later, abandonedBefore: later - 60) == .granted,
            "its process died with it")
        #expect(try await keys.claim(owner: "ada", key: "lost", fingerprint: "p", at: later, abandonedBefore: later - 60) == .inFlight)
        let claims = try await withThrowingTaskGroup(of: IdempotentClaim.self) { group in
            for _ in 0..<20 {
                group.addTask { try await keys.claim(owner: "ada", key: "race", fingerprint: "p", at: Self.made, abandonedBefore: Self.made - 60) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(claims.filter { $0 == .granted }.count == 1 && claims.filter { $0 == .inFlight }.count == 19)
    }
}
