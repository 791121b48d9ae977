import Foundation
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// `storefront accounts`: a key's first session makes its account, which the operator lists and shows, by id, as text
/// and JSON.
@Suite("storefront accounts", .ownThreads)
struct AccountsCommandTests {
    let scratch = TemporaryDirectory.make().path
    static let fingerprint = "SHA256:" + String(repeating: "a", count: 43)

    func storefront(_ arguments: [String], fingerprint: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_SSH_KEY_FINGERPRINT"] = fingerprint
        let run = try Subprocess.run(try BuiltProduct.requireStorefront(), arguments, environment: environment)
        return (run.status, run.stdout, run.stderr)
    }

    @Test func aKeysFirstSessionMakesItsAccountWhichTheOperatorLists() throws {
        #expect(try storefront(["headless", "--data-dir", scratch, "--keys", "q"], fingerprint: Self.fingerprint).status == 0)
        let listed = try storefront(["accounts", "list", "--data-dir", scratch, "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let accounts = try #require(document["accounts"] as? [[String: Any]])
        let ids = accounts.compactMap { $0["id"] as? String }
        #expect(ids == ["ssh:" + Self.fingerprint])
        let ways = try #require(accounts.first?["waysIn"] as? [[String: Any]])
        let kinds = ways.compactMap { $0["kind"] as? String }
        #expect(kinds == ["ssh-key"] && ways.first?["key"] as? String == Self.fingerprint)
        #expect(ways.first?["lastUsedAt"] is String, "the session's use is recorded")

        let shown = try storefront(["accounts", "show", "ssh:\(Self.fingerprint)", "--data-dir", scratch])
        #expect(shown.status == 0 && shown.stdout.contains("ssh-key \(Self.fingerprint)"), "\(shown.stdout)")
        let missing = try storefront(["accounts", "show", "nobody@example.com", "--data-dir", scratch])
        #expect(missing.status == 65 && missing.stderr.contains("no account has the id or verified email \"nobody@example.com\""))
    }

    /// Every command that takes a customer takes every id the shop prints: an account's `acct_…` too.
    @Test func theCommandsThatTakeACustomerTakeAnAccountsID() async throws {
        #expect(try storefront(["headless", "--data-dir", scratch, "--keys", "q"]).status == 0)
        let database = try SQLiteDatabase.open(directory: URL(fileURLWithPath: scratch))
        let account = try await SQLAccountDirectory(database: database).openAccount(
            verifiedEmail: "ada@example.com", newID: "acct_0123456789abcdef", at: Date())
        try database.pool.close()
        let listed = try storefront(["accounts", "list", "--data-dir", scratch])
        #expect(listed.stdout.contains(account.id), "\(listed.stdout)")

        let orders = try storefront(["orders", "--customer", account.id, "--data-dir", scratch])
        #expect(orders.status == 0, "\(orders.stderr)")
        let made = try storefront(["tokens", "create", "--name", "script", "--customer", account.id, "--data-dir", scratch])
        #expect(made.status == 0 && made.stdout.hasPrefix("sfp_"), "\(made.stderr)")
        let tokens = try storefront(["tokens", "list", "--customer", account.id, "--data-dir", scratch])
        #expect(tokens.status == 0 && tokens.stdout.contains("script"), "\(tokens.stdout)\(tokens.stderr)")

        let gone = try storefront(["tokens", "create", "--name", "x", "--customer", "acct_ffffffffffffffff", "--data-dir", scratch])
        #expect(gone.status == 65 && gone.stderr.contains("no account acct_ffffffffffffffff"), "\(gone.stderr)")
        for bad in ["acct_XYZ", "acct_0123456789ABCDEF", "bob"] {
            #expect(try storefront(["orders", "--customer", bad, "--data-dir", scratch]).status == 64, "\(bad)")
            #expect(try storefront(["tokens", "create", "--name", "x", "--customer", bad, "--data-dir", scratch]).status == 64, "\(bad)")
        }
    }
}
