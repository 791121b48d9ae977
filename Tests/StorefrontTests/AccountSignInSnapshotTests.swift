import Crypto
import Foundation
import LiveObjects
import ShopApplication
import ShopBootstrap
import ShopIdentity
import ShopModels
import ShopPorts
import SnapshotTesting
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The screens of sign-in by an emailed code, of a new key joining an account, and of the account screen's ways in, at
/// 80x24, 40x12 and 200x60: over the shop's own account tables (SQLite in memory), a mailer that keeps what it sends, and
/// the fixed clock.
@MainActor
@Suite("Sign-in and ways-in screens")
struct AccountSignInSnapshotTests {
    final class Outbox: MailTransport, @unchecked Sendable, LiveObject {
        func send(_ message: MailMessage) async throws(MailTransportError) {}
    }

    static let key = "SHA256:" + String(repeating: "k", count: 43)

    /// A stack whose sign-in is the emailed code, every code 123456; for `key`, a key seen for the first time.
    func stack(key: Bool) async throws -> TestStack {
        var stack = TestStack()
        let database = stack.database
        let directory = SQLAccountDirectory(database: database)
        let accounts = AccountSignIn(directory: directory, logins: SQLLogins(database: database), dates: Fixtures.fixedDates)
        let codes = EmailCodes(store: SQLSignInCodes(database: database), key: SymmetricKey(data: Data(repeating: 7, count: 32))) { "123456" }
        let mailer = CodeMailer(transport: Outbox(), sender: MailSender(from: MailAddress(name: "Shop", address: "shop@example.com")), shop: "Shop")
        let signIn = SessionComposition.CodeSignIn(mailer: mailer, codes: codes, accounts: accounts)
        stack.waysIn = WaysInAccess(directory: directory, logins: accounts.logins)
        if key {
            let account = try #require(try await directory.account(for: .sshKey(fingerprint: Self.key), at: Fixtures.fixedDates.now()))
            stack.signIn = signIn.keyJoining(account, fingerprint: Self.key)
            stack.signedIn = SignedInAccount(provider: .sshKey, userID: Self.key, customerID: account.id)
            stack.launchNotice = SessionComposition.newKeyNotice
        } else {
            stack.signIn = signIn.signIn(kind: .terminal, client: "local:test", auth: AuthManager(credentials: InMemoryCredentialRepository()))
        }
        return stack
    }

    @Test(
        "sign-in by code at 80x24, 40x12 and 200x60", arguments: ["email-prompt", "code-prompt", "account-ways-in", "key-join-prompt"],
        SnapshotTests.sizes)
    func screen(name: String, size: Size) async throws {
        let driver = await ScriptedDriver(stack: try await stack(key: name == "key-join-prompt"), size: size)
        try await driver.press("u")
        try await driver.press("i")
        if name != "email-prompt" && name != "key-join-prompt" {
            for character in "ada@example.com" { await driver.press(.character(character)) }
            await driver.press(.enter)
        }
        if name == "account-ways-in" {
            for character in "123456" { await driver.press(.character(character)) }
            await driver.press(.enter)
            #expect(driver.state.account.isSignedIn, "\(driver.frameText)")
            try await driver.press("end")
        }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }
}
