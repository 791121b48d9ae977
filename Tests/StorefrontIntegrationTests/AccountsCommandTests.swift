import Foundation
import StorefrontTesting
import Testing

/// `storefront accounts`: a key's first session makes its account, which the operator lists and shows, by id, as text
/// and JSON.
@Suite("storefront accounts")
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
}
