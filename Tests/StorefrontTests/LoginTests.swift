import Foundation
import ShopIdentity
import ShopPorts
import StorageRows
import StorageSQLite
import StorefrontTesting
import Synchronization
import Testing

/// A signed-in session lives 30 days from its last use: each use moves its end on, and one unused for longer is
/// expired; an ended one stays ended; a secret the shop never made is unknown.
@Suite("Sessions: 30 days, sliding")
struct LoginTests {
    @Test func aSessionSlidesWithUseExpiresUnusedAndStaysEnded() async throws {
        let database = try SQLiteDatabase.inMemory()
        let clock = Mutex(Date(timeIntervalSince1970: 1_795_339_800))
        let signIn = AccountSignIn(
            directory: SQLAccountDirectory(database: database), logins: SQLLogins(database: database),
            dates: DateSource { clock.withLock { $0 } })
        func later(days: Double) { clock.withLock { $0 = $0.addingTimeInterval(days * 86_400) } }

        let (secret, record) = try await signIn.startLogin(account: "acct_1", kind: .browser, label: "email code")
        #expect(secret.hasPrefix("sfs_") && secret.count == 47 && record.id.hasPrefix("ses_"))
        later(days: 29)
        guard case .valid(let used) = try await signIn.check(secret: secret) else {
            Issue.record("valid at 29 days")
            return
        }
        #expect(used.expiresAt == clock.withLock { $0 }.addingTimeInterval(AccountSignIn.lifetime), "its end moved on")
        later(days: 29)
        #expect(try await signIn.check(secret: secret) != .expired, "58 days after it began, 29 after its last use")
        later(days: 31)
        #expect(try await signIn.check(secret: secret) == .expired)

        let (second, _) = try await signIn.startLogin(account: "acct_1", kind: .terminal, label: "email code")
        try await signIn.end(secret: second)
        #expect(try await signIn.check(secret: second) == .ended)
        #expect(try await signIn.check(secret: "sfs_" + String(repeating: "A", count: 43)) == .unknown)
        #expect(try await signIn.check(secret: "not-a-session") == .unknown)
    }
}
