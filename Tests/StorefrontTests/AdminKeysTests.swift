import Foundation
import ShopSSH
import Testing

/// Reading `serve --admin-keys`: OpenSSH's authorized_keys lines, their fingerprints, and a clear refusal of a
/// line that holds no key.
@Suite("Admin keys file")
struct AdminKeysTests {
    /// A real Ed25519 public key line and the fingerprint `ssh-keygen -l` prints for it.
    static let line = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ops@shop"
    static let fingerprint = "SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU"

    @Test func keysAndCommentsAreRead() throws {
        let keys = try AdminKeys.parse("# operators\n\n" + Self.line + "\n" + Self.line + "\n")
        #expect(keys.fingerprints == [Self.fingerprint], "the fingerprint ssh-keygen -l prints, once for the key listed twice")
    }

    /// The console cannot honour `from=`, `expiry-time=`, `no-pty` or `command=`: a key that only looks restricted
    /// would open it from anywhere, at any time, so such a line is refused by the options' names.
    @Test(arguments: [
        (#"from="203.0.113.9""#, ["from"]),
        (#"expiry-time="20000101""#, ["expiry-time"]),
        ("no-pty", ["no-pty"]),
        (#"restrict,command="echo hi, there",from="10.0.0.1,10.0.0.2""#, ["restrict", "command", "from"]),
    ])
    func aKeyWithOptionsIsRefusedByTheirNames(options: String, names: [String]) {
        #expect(throws: AdminKeysError.options(line: 2, names: names)) { try AdminKeys.parse("# ops\n" + options + " " + Self.line) }
        let message = (try? AdminKeys.parse(options + " " + Self.line)).map { _ in "" } ?? "\(AdminKeysError.options(line: 1, names: names))"
        #expect(message.contains(names.joined(separator: ", ")) && message.contains("not honoured"), "\(message)")
    }

    @Test func aLineWithoutAKeyIsRefusedByNumber() {
        #expect(throws: AdminKeysError.noKey(line: 2)) { try AdminKeys.parse(Self.line + "\nhello world\n") }
    }

    @Test func aKeyWhoseBlobIsAnotherTypeIsRefused() {
        let rsaNamed = Self.line.replacingOccurrences(of: "ssh-ed25519", with: "ssh-rsa")
        #expect(throws: AdminKeysError.badKey(line: 1, type: "ssh-rsa")) { try AdminKeys.parse(rsaNamed) }
        #expect(throws: AdminKeysError.badKey(line: 1, type: "ssh-ed25519")) { try AdminKeys.parse("ssh-ed25519 not-base64!! x") }
        // The type is right but the key is cut short.
        #expect(throws: AdminKeysError.badKey(line: 1, type: "ssh-ed25519")) { try AdminKeys.parse("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHh0 ops") }
    }

    /// The embedded server does not sign RSA keys in: listing one would give a console no one can reach.
    @Test func anRSAKeyIsRefusedAsOneThatCannotSignIn() {
        let rsa =
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDJLxNquSTqWPgOq5hwgGt3YtLIsIscbwLCahR5qBUk+8XH5XCARuenAaWMGViDyhlFiumga/58lerphtSpQYdK7EAzb4js1YXOHSDmcYG1NIQcyVySTFJmxRcBMOn5s+4ogMvvK0GM1DItCw728NdDvoHRF+140Eq5C1IuE5GNOw== ops"
        #expect(throws: AdminKeysError.unsupported(line: 1, type: "ssh-rsa")) { try AdminKeys.parse(rsa) }
    }
}
