import Foundation
import ShopIdentity
import ShopPorts
import StoragePostgres
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// The accounts' signed-in sessions on SQLite and PostgreSQL alike: "sign out everywhere" ends every session of the
/// account (browser cookies and terminals) and no other account's; what an open tab is watched with reads the same.
@Suite("Account session stores contract", .ownThreads)
struct LoginRepositoryContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }

        func store() async throws -> any LoginRepository {
            switch self {
            case .sqlite: SQLLogins(database: try SQLiteDatabase.open(directory: TemporaryDirectory.make()))
            case .postgres: SQLLogins(database: try await PostgresFixture().database)
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func signingOutEverywhereEndsEverySessionOfTheAccountAndNoOther(kind: Kind) async throws {
        let store = try await kind.store()
        let now = Date(timeIntervalSince1970: 1_795_339_800)
        let signIn = AccountSignIn(
            directory: SQLAccountDirectory(database: try SQLiteDatabase.inMemory()), logins: store, dates: DateSource { now })
        let browser = try await signIn.startLogin(account: "acct_a", kind: .browser, label: "email code")
        let terminal = try await signIn.startLogin(account: "acct_a", kind: .terminal, label: "Mock ID")
        let other = try await signIn.startLogin(account: "acct_b", kind: .browser, label: "email code")
        let ids = [browser.record.id, terminal.record.id, other.record.id]
        #expect(
            try await store.liveAccounts(ids: ids, at: now) == [browser.record.id: "acct_a", terminal.record.id: "acct_a", other.record.id: "acct_b"])

        #expect(try await store.endAll(account: "acct_a", at: now) == 2)
        for secret in [browser.secret, terminal.secret] { #expect(try await signIn.check(secret: secret) == .ended, "a browser's and a terminal's") }
        guard case .valid = try await signIn.check(secret: other.secret) else {
            Issue.record("another account's session stays")
            return
        }
        #expect(try await store.liveAccounts(ids: ids, at: now) == [other.record.id: "acct_b"], "an open tab of A is closed, B's stays")
        #expect(try await store.liveAccounts(ids: [], at: now).isEmpty)
        #expect(try await store.liveAccounts(ids: [other.record.id], at: now.addingTimeInterval(AccountSignIn.lifetime + 1)).isEmpty, "expired")
    }
}
